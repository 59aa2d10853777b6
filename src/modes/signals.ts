/**
 * Process signals for every mode (one watch per process): SIGINT / SIGTERM / SIGHUP abort the run
 * through an AbortSignal so the normal cleanup runs (session closed,
 * extensions stopped); a second signal exits at once. Once the mode is done
 * (stop()), a late signal also exits at once with its code instead of
 * killing zot by the default action, so the process "exit" hook (the process
 * tree is ended there, common/process-tree.ts) always runs.
 *
 * Exit codes: SIGINT 130, SIGHUP 129, SIGTERM 143. SIGHUP or SIGINT
 * ignored when zot started (nohup, a script's `zot … &`) stays ignored
 * (common/signal-exit.ts ignoredAtStart): no handler is installed for it.
 *
 * With `stdoutGone` (print, JSON and RPC modes, whose output is the product)
 * stdout's reader going away (common/stdout.ts onStdoutGone) counts as a
 * first SIGPIPE: the run is aborted the same way and ends with 141, as the
 * original zot did when its next write killed it. No SIGPIPE handler is
 * installed: a real SIGPIPE stays ignored (writes to a closed pipe of an
 * extension fail with EPIPE instead of ending zot). A stdout that broke on
 * another write error (ENOSPC…, common/stdout.ts stdoutWriteFailure) stops
 * the run the same way but ends it as a failure: exit 1 and a `zot: cannot
 * write to stdout: …` line (interruptedLine / interruptedExitCode).
 *
 * stderr text goes through common/stderr.ts and stdout through
 * common/stdout.ts (ordered, never blocking the event loop on a pipe nobody
 * reads, so these handlers always run). The first signal also tells stdout
 * to stop holding producers back and to bound its last flush (1 s): output
 * a stalled reader never took is lost.
 */
import { SIGNAL_EXIT_CODES, ignoredAtStart, type HandledSignal } from "../common/signal-exit.ts";
import { onStdoutGone, stdoutInterrupted, stdoutWriteFailure } from "../common/stdout.ts";

export { SIGNAL_EXIT_CODES, type HandledSignal };
/** The signals listened to (SIGPIPE only ever comes from onStdoutGone). */
const ALL_SIGNALS: readonly HandledSignal[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** The stderr line a run stopped by `signal` ends with: none for SIGPIPE (quiet, as `yes | head` is, and as the original zot was), unless a write to stdout failed. */
export function interruptedLine(signal: HandledSignal): string {
  if (signal !== "SIGPIPE") return "zot: interrupted\n";
  const failure = stdoutWriteFailure();
  return failure === undefined ? "" : `zot: ${failure}\n`;
}

/** The exit code of a run stopped by `signal`: its code (141 for a reader that went away), 1 when a write to stdout failed. */
export function interruptedExitCode(signal: HandledSignal): number {
  return signal === "SIGPIPE" && stdoutWriteFailure() !== undefined ? 1 : SIGNAL_EXIT_CODES[signal];
}

export interface SignalWatch {
  /** Aborted by the first signal. */
  readonly signal: AbortSignal;
  /** The first signal received, if any. */
  received(): HandledSignal | undefined;
  /** The mode is done: from now on any of the signals exits at once. */
  stop(): void;
}

export function watchSignals(
  options: {
    readonly signals?: readonly HandledSignal[];
    readonly onSignal?: (signal: HandledSignal) => void;
    /** Stop as for a SIGPIPE when stdout's reader goes away (see the header). */
    readonly stdoutGone?: boolean;
  } = {},
): SignalWatch {
  const controller = new AbortController();
  let received: HandledSignal | undefined;
  let stopped = false;
  const receive = (name: HandledSignal): void => {
    if (stopped) process.exit(SIGNAL_EXIT_CODES[name]);
    if (received !== undefined) process.exit(SIGNAL_EXIT_CODES[received]);
    received = name;
    stdoutInterrupted();
    controller.abort();
    options.onSignal?.(name);
  };
  // A signal the parent had zot ignore (nohup: SIGHUP; `zot … &` in a script: SIGINT) stays ignored.
  for (const name of options.signals ?? ALL_SIGNALS) if (!ignoredAtStart(name)) process.on(name, () => receive(name));
  if (options.stdoutGone) {
    onStdoutGone(() => {
      // Only the first report counts, and only while the mode runs: at its end the exit code is already decided.
      if (received === undefined && !stopped) receive("SIGPIPE");
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
