/**
 * Process-level output and exit helpers shared by the CLI entry and modes:
 * one-line `zot: <message>` errors (never a stack trace unless ZOT_DEBUG is
 * set) and exits that flush stdout/stderr first. stdout text goes through
 * the modes' one ordered, non-blocking stdout (common/stdout.ts); stderr
 * text shares one ordered, non-blocking queue with the modes' warnings
 * (common/stderr.ts).
 * Text written to a terminal goes through the terminal sanitizer
 * (common/terminal-text.ts: only SGR colours survive), since messages quote
 * outside text (server error bodies, extension names, model ids from
 * models.json); pipes get it raw.
 */
import { writeSync } from "node:fs";
import { UsageError, ZotError, errorMessage } from "../common/errors.ts";
import { flushStderr, queueStderr } from "../common/stderr.ts";
import { flushStdout, writeStdoutText } from "../common/stdout.ts";
import { forStdout } from "../common/terminal-text.ts";

/** Writes `text` (sanitized on a terminal) after every earlier stdout text; resolves when it is out. */
export function writeStdout(text: string): Promise<void> {
  writeStdoutText(forStdout(text));
  return flushStdout();
}

/**
 * The instant answers (--version, --help): the only output of their run,
 * written before zot handles any signal, so a plain write that waits for
 * the reader is safe (SIGINT / SIGTERM / SIGHUP keep their default action
 * and end zot even then) and skips setting up the non-blocking writer (on a
 * socket that loads bun:ffi, ≈0.5 ms of a ≈5 ms run). Should the descriptor
 * be non-blocking and full, the rest goes through writeStdout.
 */
export async function writeAnswer(text: string): Promise<void> {
  const bytes = Buffer.from(forStdout(text), "utf8");
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(1, bytes, offset);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EAGAIN") return; // stdout is gone: nothing to tell
    writeStdoutText(bytes.subarray(offset));
    await flushStdout();
  }
}

/** Queues `text` after every earlier stderr text; resolves when written (or the reader stalled, see flushStderr). */
export function writeStderr(text: string): Promise<void> {
  queueStderr(text);
  return flushStderr();
}

/** Formats any failure as the one line a user sees, plus a hint for usage errors. */
export function describeFailure(err: unknown, usageHint: string): { text: string; exitCode: number } {
  const debug = process.env.ZOT_DEBUG ? `\n${err instanceof Error ? err.stack ?? "" : ""}` : "";
  if (err instanceof UsageError) return { text: `zot: ${err.message}\n${usageHint}\n`, exitCode: 2 };
  if (err instanceof ZotError) return { text: `zot: ${err.message}${debug}\n`, exitCode: 1 };
  return { text: `zot: internal error: ${errorMessage(err)}${debug}\n`, exitCode: 1 };
}
