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
 * The instant answers (--help, and --version after other flags; a leading
 * --version is answered by main.ts before this module loads): the only output of their run,
 * written before zot handles any signal, so a write that waits for the
 * reader is harmless (SIGINT / SIGTERM / SIGHUP keep their default action
 * and end zot even then). Bun's own write is the cheapest there is: setting
 * up the non-blocking writer costs ≈0.2 ms (node:fs) and on a socket ≈0.5 ms
 * more (bun:ffi) of a ≈5 ms run. A stdout that is gone is not an error.
 */
export async function writeAnswer(text: string): Promise<void> {
  await Bun.write(Bun.stdout, forStdout(text)).catch(() => undefined);
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
