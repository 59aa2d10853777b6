/**
 * Where a headless prompt comes from (reference notes §1.3): the positional
 * words, else all of stdin (trimmed) when stdin is not a character device
 * (a terminal, /dev/null, /dev/zero: the original's test). Still empty →
 * UsageError "<mode> mode requires a prompt (argument or stdin)". At most
 * MAX_STDIN_PROMPT_BYTES (32 MiB) are read: a larger stdin is ZotError
 * "mode.prompt_too_large" as soon as the limit is passed (the rest is not
 * read), instead of zot holding all of it (the model could not take it).
 * A stdin that cannot be read (a directory: `zot -p < /`) is ZotError
 * "mode.stdin_unreadable" naming the error.
 * Also the abort helpers the modes use to stop waiting on input when a
 * signal arrives.
 */
import { fstatSync } from "node:fs";
import { UsageError, ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";

export const MAX_STDIN_PROMPT_BYTES = 32 * 1024 * 1024;

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

/** stdin is a character device (a terminal, /dev/null, …), or is not open at all: nothing to read a prompt from. */
function stdinIsCharacterDevice(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return true;
  }
}

/** All of stdin as text, or ZotError once more than `limit` bytes came. */
async function readStdinBounded(limit: number): Promise<string> {
  let reader: ReturnType<ReturnType<typeof Bun.stdin.stream>["getReader"]>;
  const readFailed = (err: unknown): ZotError =>
    new ZotError("mode.stdin_unreadable", `cannot read the prompt from stdin (${systemErrorCode(err) ?? errorMessage(err)}); give it as an argument or pipe it in`, {}, { cause: err });
  try {
    reader = Bun.stdin.stream().getReader();
  } catch (err) {
    throw readFailed(err);
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        throw readFailed(err);
      }
      const { done, value } = chunk;
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        throw new ZotError("mode.prompt_too_large", `the prompt on stdin is larger than ${limit / (1024 * 1024)} MiB (the most zot reads); save it to a file and name the file in a prompt instead (zot -p "summarise big.log")`, { limit });
      }
      parts.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return new TextDecoder().decode(Buffer.concat(parts, size));
}

export async function readHeadlessPrompt(mode: HeadlessModeName, positional: string, signal: AbortSignal, limit = MAX_STDIN_PROMPT_BYTES): Promise<string> {
  let prompt = positional.trim();
  if (prompt === "" && !stdinIsCharacterDevice()) {
    prompt = (await unlessAborted(readStdinBounded(limit), signal)).trim();
  }
  if (prompt === "") throw new UsageError(`${mode} mode requires a prompt (argument or stdin)`);
  return prompt;
}
