/**
 * Process signals for every mode (one watch per process): SIGINT / SIGTERM / SIGHUP abort the run
 * through an AbortSignal so the normal cleanup runs (session closed,
 * extensions stopped); a second signal exits at once. Once the mode is done
 * (stop()), a late signal also exits at once with its code instead of
 * killing zot by the default action, so the process "exit" hook (the process
 * tree is ended there, common/process-tree.ts) always runs.
 *
 * Exit codes: SIGINT 130, SIGHUP 129, SIGTERM 143.
 *
 * stderr text goes through common/stderr.ts and stdout through
 * common/stdout.ts (ordered, never blocking the event loop on a pipe nobody
 * reads, so these handlers always run). The first signal also tells stdout
 * to stop holding producers back and to bound its last flush (1 s): output
 * a stalled reader never took is lost.
 */
import { SIGNAL_EXIT_CODES, type HandledSignal } from "../common/signal-exit.ts";
import { stdoutInterrupted } from "../common/stdout.ts";

export { SIGNAL_EXIT_CODES, type HandledSignal };
const ALL_SIGNALS: readonly HandledSignal[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export interface SignalWatch {
  /** Aborted by the first signal. */
  readonly signal: AbortSignal;
  /** The first signal received, if any. */
  received(): HandledSignal | undefined;
  /** The mode is done: from now on any of the signals exits at once. */
  stop(): void;
}

export function watchSignals(
  options: { readonly signals?: readonly HandledSignal[]; readonly onSignal?: (signal: HandledSignal) => void } = {},
): SignalWatch {
  const controller = new AbortController();
  let received: HandledSignal | undefined;
  let stopped = false;
  for (const name of options.signals ?? ALL_SIGNALS) {
    process.on(name, () => {
      if (stopped) process.exit(SIGNAL_EXIT_CODES[name]);
      if (received !== undefined) process.exit(SIGNAL_EXIT_CODES[received]);
      received = name;
      stdoutInterrupted();
      controller.abort();
      options.onSignal?.(name);
    });
  }
  return {
    signal: controller.signal,
    received: () => received,
    stop: () => {
      stopped = true;
    },
  };
}
