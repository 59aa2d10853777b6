/**
 * zot's stdout outside the interactive screen: print, JSON and RPC output,
 * `zot ext` reports and the CLI's own answers (--help, --version,
 * --list-models). Every byte arrives, in call order, and no write blocks the
 * event loop (common/fd-writer.ts), so a reader that stops reading cannot
 * stop signal handling. (The interactive screen writes to its terminal
 * itself.)
 *
 * Backpressure instead of dropping: while more than STDOUT_HIGH_WATER_BYTES
 * (4 MiB) wait, stdoutRoom() returns a promise that resolves once at most
 * STDOUT_LOW_WATER_BYTES (1 MiB) wait, the reader is gone, or zot is being
 * interrupted. zot's producers await it before they take more input: the
 * model stream (providers/shared.ts; the response is then not read, so the
 * server's TCP window fills and it pauses), a running bash command's output
 * (tools/bash-run.ts), extension output (ext/connection.ts), RPC commands on
 * stdin (modes/rpc/server.ts) and the log `zot ext logs -f` follows
 * (cli/ext-command.ts). What waits is then bounded by the high-water mark
 * plus what was already in flight.
 *
 * flushStdout() resolves once everything is written or the reader is gone:
 * a normal exit waits for a slow or paused reader as long as it takes. After
 * stdoutInterrupted() (the first SIGINT / SIGTERM / SIGHUP) room is never
 * waited for again, and flushes give the reader INTERRUPTED_FLUSH_MS (1 s,
 * counted from the first flush that has to wait) in all; what is still
 * queued then is lost. Nothing happens at import time.
 *
 * A reader that closes stdout (EPIPE, `zot --json … | head -1`) breaks the
 * writer: later text is discarded, and onStdoutGone() listeners (the modes,
 * modes/signals.ts) are told once, so a run nobody watches stops the way the
 * original zot did (killed by SIGPIPE at its next write) instead of going
 * on with its tools. Any other write error (ENOSPC on a full disk, EIO,
 * EFBIG, EDQUOT…) breaks it the same way, but is not a reader that left:
 * stdoutWriteFailure() then names it, so that the run fails (exit 1, a
 * `zot: cannot write to stdout: …` line) instead of ending quietly as for
 * EPIPE.
 */
import { settledOrAborted } from "./abortable-wait.ts";
import { FdWriter } from "./fd-writer.ts";

export const STDOUT_HIGH_WATER_BYTES = 4 * 1024 * 1024;
export const STDOUT_LOW_WATER_BYTES = 1024 * 1024;
export const INTERRUPTED_FLUSH_MS = 1_000;

let writer: FdWriter | undefined;
let interrupted = false;
/** Date.now() after which an interrupted zot stops waiting for its reader. */
let graceEndsAt: number | undefined;
/** Aborted when zot is interrupted: waits for the reader end there (no long-lived promise to race against). */
let interruption: AbortController | undefined;

function interruptionSignal(): AbortSignal {
  // Callers check `interrupted` first, so a controller made now is not yet aborted.
  interruption ??= new AbortController();
  return interruption.signal;
}

let goneListeners: (() => void)[] = [];
let goneReported = false;

function reportIfGone(): void {
  if (goneReported || writer?.broken !== true) return;
  goneReported = true;
  const listeners = goneListeners;
  goneListeners = [];
  for (const listener of listeners) listener();
}

/** Writes `data` after everything written before it; never blocks, never drops (unless the reader is gone). */
export function writeStdoutText(data: string | Uint8Array): void {
  writer ??= new FdWriter(1, { keepAlive: true, onProgress: reportIfGone });
  writer.write(data);
  reportIfGone();
}

/** Bytes accepted for stdout and not yet written. */
export function queuedStdoutBytes(): number {
  return writer?.queuedBytes ?? 0;
}

/** Errors that mean stdout's reader is gone (or stdout was never open), not that a write failed. */
const READER_GONE_CODES = new Set(["EPIPE", "ECONNRESET", "ENOTCONN", "ESHUTDOWN", "EBADF"]);

const WRITE_FAILURE_REASONS: Readonly<Record<string, string>> = {
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large",
  EIO: "input/output error",
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EINVAL: "invalid argument",
};

/**
 * When stdout broke on a write error that is not a reader going away:
 * one line naming it (`cannot write to stdout: ENOSPC (no space left on
 * device); the output is incomplete`); undefined otherwise.
 */
export function stdoutWriteFailure(): string | undefined {
  const code = writer?.failureCode;
  if (code === undefined || READER_GONE_CODES.has(code)) return undefined;
  const reason = WRITE_FAILURE_REASONS[code];
  return `cannot write to stdout: ${code}${reason === undefined ? "" : ` (${reason})`}; the output is incomplete`;
}

/** Calls `listener` once when stdout's reader has gone (at once if it already has). */
export function onStdoutGone(listener: () => void): void {
  if (goneReported) listener();
  else goneListeners.push(listener);
}

/** undefined while stdout keeps up; otherwise a promise to await before taking more input (see the header). */
export function stdoutRoom(): Promise<void> | undefined {
  const target = writer;
  if (target === undefined || interrupted || target.queuedBytes <= STDOUT_HIGH_WATER_BYTES) return undefined;
  return settledOrAborted(target.whenQueuedAtMost(STDOUT_LOW_WATER_BYTES), interruptionSignal());
}

function withinGrace(target: FdWriter): Promise<void> {
  graceEndsAt ??= Date.now() + INTERRUPTED_FLUSH_MS;
  const left = graceEndsAt - Date.now();
  if (left <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, left);
    void target.whenQueuedAtMost(0).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Resolves once everything written so far is out (or the reader is gone); bounded once interrupted. */
export function flushStdout(): Promise<void> {
  const target = writer;
  if (target === undefined || target.queuedBytes === 0) return Promise.resolve();
  if (interrupted) return withinGrace(target);
  return settledOrAborted(target.whenQueuedAtMost(0), interruptionSignal()).then(() => (interrupted ? withinGrace(target) : undefined));
}

/** zot is being interrupted: stop applying backpressure, and bound every flush from now on. */
export function stdoutInterrupted(): void {
  if (interrupted) return;
  interrupted = true;
  interruption?.abort();
}
