/**
 * zot's own stderr text (warnings, extension notes, the final `zot: …` line)
 * in call order, written so that a stderr nobody reads can never block the
 * event loop (and with it signal handling). The writing itself is
 * common/fd-writer.ts (shared with stdout); this module adds stderr's
 * policy:
 *
 * - stderr is a terminal, a regular file or another device (/dev/null):
 *   written at once with writeSync, as before. On a terminal the text goes
 *   through the terminal sanitizer (terminal-text.ts).
 * - stderr is a pipe, a socket or anything else: written without blocking;
 *   what the reader does not take yet waits. At most
 *   MAX_QUEUED_STDERR_BYTES (1 MiB) wait; text past that is dropped and
 *   counted, and once the queue has drained to half of that one line says
 *   how many bytes were dropped. One text longer than the whole queue,
 *   arriving while nothing waits, is cut to fit (at a character boundary)
 *   and followed by that line at once. Waiting text never keeps zot alive.
 * - stderr is the very pipe or socket stdout is (`zot --json … 2>&1 | jq`):
 *   the text joins stdout's queue (common/stdout.ts), so that it lands
 *   between lines, never inside a JSON line stdout had only partly written
 *   to a full pipe. Text is dropped (and counted, as above) only while
 *   stdout's queue holds more than STDOUT_HIGH_WATER_BYTES plus
 *   MAX_QUEUED_STDERR_BYTES.
 *
 * setStderrInterjection(hook) registers one hook run before any text is
 * written (print mode's progress line erases itself there:
 * modes/print-progress.ts).
 *
 * flushStderr() resolves once everything queued has been written, or once
 * the reader has taken nothing for FLUSH_STALL_MS (1 s): a process about to
 * exit waits for a slow reader but not for a stalled one. Nothing happens
 * at import time; the writer is set up with the first text.
 */
import { fstatSync } from "node:fs";
import { FdWriter } from "./fd-writer.ts";
import { queuedStdoutBytes, STDOUT_HIGH_WATER_BYTES, writeStdoutText } from "./stdout.ts";
import { forStderr } from "./terminal-text.ts";

export const MAX_QUEUED_STDERR_BYTES = 1024 * 1024;
export const FLUSH_STALL_MS = 1_000;

/** Room kept for the dropped-bytes note when one oversized text is cut to fit the queue. */
const NOTE_ROOM_BYTES = 1024;

let writer: FdWriter | undefined;
let droppedBytes = 0;
/** Whether fd 2 is the pipe or socket fd 1 is; found with the first text. */
let sharesStdout: boolean | undefined;

function stderrIsStdoutPipe(): boolean {
  try {
    const out = fstatSync(1);
    const err = fstatSync(2);
    return (out.isFIFO() || out.isSocket()) && out.dev === err.dev && out.ino === err.ino;
  } catch {
    return false;
  }
}

/** `text` into stdout's queue (stderr is stdout's pipe): in order with stdout's lines, never inside one. */
function queueIntoStdout(text: string): void {
  const bytes = Buffer.byteLength(text, "utf8");
  if (queuedStdoutBytes() + bytes > STDOUT_HIGH_WATER_BYTES + MAX_QUEUED_STDERR_BYTES) {
    droppedBytes += bytes;
    return;
  }
  if (droppedBytes > 0) writeStdoutText(droppedNote());
  writeStdoutText(text);
}

function stderrWriter(): FdWriter {
  writer ??= new FdWriter(2, { keepAlive: false, onProgress: reportDropped });
  return writer;
}

function droppedNote(why = "stderr was not being read"): string {
  const note = `zot: warning: ${droppedBytes} bytes of stderr output were dropped (${why})\n`;
  droppedBytes = 0;
  return note;
}

/** After progress: once the queue is down to half, say what was dropped. */
function reportDropped(): void {
  if (droppedBytes > 0 && writer !== undefined && !writer.broken && writer.queuedBytes <= MAX_QUEUED_STDERR_BYTES / 2) {
    writer.write(droppedNote());
  }
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes, cut at a character boundary. */
function utf8Head(text: string, maxBytes: number): string {
  const encoded = Buffer.from(text, "utf8");
  let end = Math.min(maxBytes, encoded.length);
  // Back up over continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && end < encoded.length && ((encoded[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return encoded.subarray(0, end).toString("utf8");
}

let interjection: (() => void) | undefined;

/** Runs `hook` before every later stderr text (undefined removes it); one hook at a time. */
export function setStderrInterjection(hook: (() => void) | undefined): void {
  interjection = hook;
}

/** Writes `text` to stderr after everything written before it, without blocking on the reader. */
export function queueStderr(text: string): void {
  if (text === "") return;
  interjection?.();
  sharesStdout ??= stderrIsStdoutPipe();
  if (sharesStdout) return queueIntoStdout(text);
  const target = stderrWriter();
  if (target.mode === "direct") {
    // Only this path can reach a terminal: there, outside text is sanitized.
    target.write(forStderr(text));
    return;
  }
  const bytes = Buffer.byteLength(text, "utf8");
  if (target.queuedBytes + bytes > MAX_QUEUED_STDERR_BYTES) {
    if (target.queuedBytes > 0) {
      droppedBytes += bytes;
      return;
    }
    // One text longer than the whole queue (an extension's 2 MB note): nothing waits whose
    // progress would report the drop later, so its head is written and the drop said at once.
    const head = utf8Head(text, MAX_QUEUED_STDERR_BYTES - NOTE_ROOM_BYTES);
    if (droppedBytes > 0) target.write(droppedNote());
    target.write(`${head}\n`);
    droppedBytes += bytes - Buffer.byteLength(head, "utf8");
    target.write(droppedNote("a text longer than the 1 MiB stderr queue was cut"));
    return;
  }
  if (droppedBytes > 0) target.write(droppedNote());
  target.write(text);
}

/** Bytes accepted and not yet written (0 when the reader keeps up). */
export function queuedStderrBytes(): number {
  return writer?.queuedBytes ?? 0;
}

/** Resolves once the queue is written, or once the reader stalled for FLUSH_STALL_MS. */
export function flushStderr(): Promise<void> {
  // Sharing stdout's pipe, the text is stdout's to flush; a drop not yet said is said now.
  if (sharesStdout === true && droppedBytes > 0) writeStdoutText(droppedNote());
  const target = writer;
  if (target === undefined || target.queuedBytes === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const check = setInterval(() => {
      if (target.queuedBytes > 0 && Date.now() - target.lastProgressAt < FLUSH_STALL_MS) return;
      clearInterval(check);
      resolve();
    }, 50);
    void target.whenQueuedAtMost(0).then(() => {
      clearInterval(check);
      resolve();
    });
  });
}
