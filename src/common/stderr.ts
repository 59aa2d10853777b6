/**
 * zot's own stderr text (warnings, extension notes, the final `zot: …` line)
 * in call order, written so that a stderr nobody reads can never block the
 * event loop (and with it signal handling):
 *
 * - stderr is a terminal, a regular file or another character device
 *   (/dev/null): written synchronously with writeSync, as before. Fast, and
 *   the order against the interactive screen (also written synchronously) is
 *   kept. On a terminal the text goes through the terminal sanitizer
 *   (terminal-text.ts).
 * - stderr is a pipe, a socket or anything else: the text goes to a worker
 *   thread (WORKER_SOURCE below) that does the blocking write. At most
 *   MAX_QUEUED_STDERR_BYTES (1 MiB) wait for it; text past that is dropped
 *   and counted, and once the queue has drained to half of that one line
 *   says how many bytes were dropped. If the worker cannot start, writes
 *   are synchronous.
 *
 * flushStderr() resolves once everything queued has been written, or once
 * the reader has taken nothing for FLUSH_STALL_MS (1 s): a process about to
 * exit waits for a slow reader but not for a stalled one. Nothing happens
 * at import time; the worker starts with the first queued text.
 */
import { fstatSync, writeSync } from "node:fs";
import { forStderr } from "./terminal-text.ts";

export const MAX_QUEUED_STDERR_BYTES = 1024 * 1024;
export const FLUSH_STALL_MS = 1_000;

/**
 * The worker: writes each text it is sent to fd 2 completely (blocking there
 * is the point), then acknowledges the byte count. A non-blocking stderr
 * that is momentarily full is retried every 10 ms; any other error drops
 * that text. Plain JavaScript loaded from a Blob URL, so the compiled binary
 * needs no extra entry point.
 */
const WORKER_SOURCE = `
import { writeSync } from "node:fs";
const pause = new Int32Array(new SharedArrayBuffer(4));
onmessage = (event) => {
  const bytes = Buffer.from(event.data, "utf8");
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(2, bytes, offset);
    } catch (err) {
      if (err?.code !== "EAGAIN") break;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
  postMessage(bytes.length);
};
`;

type Channel = { readonly kind: "sync" } | { readonly kind: "worker"; readonly worker: Worker };

let channel: Channel | undefined;
let queuedBytes = 0;
let droppedBytes = 0;
let lastProgress = 0;
const drainWaiters: (() => void)[] = [];

function writeSyncAll(text: string): void {
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(2, bytes, offset);
  } catch {
    // stderr is gone (or non-blocking and full): nothing else to tell
  }
}

function blocksOnFullReader(): boolean {
  try {
    const stat = fstatSync(2);
    return !(stat.isFile() || stat.isCharacterDevice());
  } catch {
    return false;
  }
}

function openChannel(): Channel {
  if (!blocksOnFullReader()) return { kind: "sync" };
  try {
    const worker = new Worker(URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" })));
    worker.unref();
    worker.onmessage = (event: MessageEvent<number>) => acknowledged(event.data);
    worker.onerror = () => {
      // The worker died: later text is written synchronously; what it held is lost.
      channel = { kind: "sync" };
      queuedBytes = 0;
      wakeDrainWaiters();
    };
    return { kind: "worker", worker };
  } catch {
    return { kind: "sync" };
  }
}

function acknowledged(bytes: number): void {
  queuedBytes = Math.max(0, queuedBytes - bytes);
  lastProgress = Date.now();
  if (droppedBytes > 0 && queuedBytes <= MAX_QUEUED_STDERR_BYTES / 2) post(droppedNote());
  if (queuedBytes === 0) wakeDrainWaiters();
}

function wakeDrainWaiters(): void {
  for (const wake of drainWaiters.splice(0)) wake();
}

function droppedNote(): string {
  const note = `zot: warning: ${droppedBytes} bytes of stderr output were dropped (stderr was not being read)\n`;
  droppedBytes = 0;
  return note;
}

function post(text: string): void {
  if (channel?.kind !== "worker") {
    writeSyncAll(text);
    return;
  }
  if (queuedBytes === 0) lastProgress = Date.now();
  queuedBytes += Buffer.byteLength(text, "utf8");
  channel.worker.postMessage(text);
}

/** Writes `text` to stderr after everything written before it, without blocking on the reader. */
export function queueStderr(text: string): void {
  if (text === "") return;
  channel ??= openChannel();
  if (channel.kind === "sync") {
    // Only this path can reach a terminal: there, outside text is sanitized.
    writeSyncAll(forStderr(text));
    return;
  }
  const bytes = Buffer.byteLength(text, "utf8");
  if (queuedBytes + bytes > MAX_QUEUED_STDERR_BYTES) {
    droppedBytes += bytes;
    return;
  }
  if (droppedBytes > 0) post(droppedNote());
  post(text);
}

/** Bytes handed to the writer and not yet written (0 when writes are synchronous). */
export function queuedStderrBytes(): number {
  return queuedBytes;
}

/** Resolves once the queue is written, or once the reader stalled for FLUSH_STALL_MS. */
export function flushStderr(): Promise<void> {
  if (channel?.kind !== "worker" || queuedBytes === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const check = setInterval(() => {
      if (queuedBytes > 0 && Date.now() - lastProgress < FLUSH_STALL_MS) return;
      clearInterval(check);
      resolve();
    }, 50);
    drainWaiters.push(() => {
      clearInterval(check);
      resolve();
    });
  });
}
