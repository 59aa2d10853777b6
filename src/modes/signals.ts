/**
 * Process signals for the modes: SIGINT / SIGTERM (and SIGHUP for the
 * interactive terminal) abort the run through an AbortSignal so the normal
 * cleanup runs (session closed, extensions stopped); a second signal exits at
 * once (the extension host's exit hook still kills every extension process
 * group). Also the synchronous stderr writer the modes use so warnings keep
 * their order with the CLI's final error line; on a terminal it writes the
 * text through the terminal sanitizer (warnings and extension notes quote
 * outside text).
 */
import { writeSync } from "node:fs";
import { forStderr } from "../common/terminal-text.ts";

export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
export type HandledSignal = keyof typeof SIGNAL_EXIT_CODES;

export function writeStderrSync(text: string): void {
  try {
    writeSync(2, forStderr(text));
  } catch {
    // stderr is gone; nothing else to tell
  }
}

export interface SignalWatch {
  /** Aborted by the first signal. */
  readonly signal: AbortSignal;
  /** The first signal received, if any. */
  received(): HandledSignal | undefined;
  stop(): void;
}

export function watchSignals(
  options: { readonly signals?: readonly HandledSignal[]; readonly onSignal?: (signal: HandledSignal) => void } = {},
): SignalWatch {
  const controller = new AbortController();
  let received: HandledSignal | undefined;
  const handlers = (options.signals ?? ["SIGINT", "SIGTERM"]).map((name) => {
    const handler = (): void => {
      if (received !== undefined) process.exit(SIGNAL_EXIT_CODES[received]);
      received = name;
      controller.abort();
      options.onSignal?.(name);
    };
    process.on(name, handler);
    return { name, handler };
  });
  return {
    signal: controller.signal,
    received: () => received,
    stop: () => {
      for (const { name, handler } of handlers) process.off(name, handler);
    },
  };
}
