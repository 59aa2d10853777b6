/**
 * Where a headless prompt comes from (reference notes §1.3): the positional
 * words, else all of stdin (trimmed) when stdin is not a terminal. Still
 * empty → UsageError "<mode> mode requires a prompt (argument or stdin)".
 * Also the abort helpers the modes use to stop waiting on input when a
 * signal arrives.
 */
import { UsageError, ZotError } from "../common/errors.ts";

export type HeadlessModeName = "print" | "json";

/** Rejected with when a wait is cut short by SIGINT/SIGTERM. */
export class InterruptedError extends ZotError {
  constructor() {
    super("mode.interrupted", "interrupted");
  }
}

/** Resolves like `work`, or rejects with InterruptedError as soon as `signal` aborts. */
export function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new InterruptedError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new InterruptedError());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

export async function readHeadlessPrompt(mode: HeadlessModeName, positional: string, signal: AbortSignal): Promise<string> {
  let prompt = positional.trim();
  if (prompt === "" && !process.stdin.isTTY) {
    prompt = (await unlessAborted(Bun.stdin.text(), signal)).trim();
  }
  if (prompt === "") throw new UsageError(`${mode} mode requires a prompt (argument or stdin)`);
  return prompt;
}
