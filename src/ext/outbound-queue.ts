/**
 * Hand-written per-extension outbound frame queue. Frames are written to the
 * extension's stdin strictly in enqueue order. Enqueueing never waits for the
 * subprocess: frames wait here while a write is in flight. Frames queued in
 * the same tick are joined into one write (one syscall for a burst of events
 * instead of one per frame).
 *
 * The queue exists to catch an extension that stops reading, not to punish
 * the host's own bursts: correlated requests are flow-controlled before they
 * get here (request-flow.ts admits one only while `hasRoom()`: fewer than
 * 256 frames and 8 MiB waiting), so the queue holds one-way frames (events)
 * plus a bounded number of requests. Its hard bound is a memory bound
 * (65,536 frames or 16 MiB queued, plus the write in flight); a stopped
 * reader is caught by the write timeout (a write the pipe has not taken
 * within 5 s), a closed reader (EPIPE) by flushing each write. Overflow, a
 * write timeout or a write error fails the queue
 * once through `onFailure` (the owner disconnects the extension) — frames
 * are never dropped silently. `onProgress` is told whenever frames left the
 * queue for the pipe.
 */

export const MAX_QUEUED_FRAMES = 65_536;
export const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/** Requests are admitted only while fewer frames / bytes than these wait to be written. */
export const REQUEST_ROOM_FRAMES = 256;
export const REQUEST_ROOM_BYTES = 8 * 1024 * 1024;
export const WRITE_TIMEOUT_MS = 5_000;
/** Upper bound on the characters joined into one write. */
const MAX_BATCH_CHARS = 1024 * 1024;

/** What the queue writes to (Bun's FileSink satisfies it). */
export interface ByteSink {
  /**
   * Returns bytes accepted, or a promise when the pipe is full. Bun 1.4's
   * FileSink also returns `true` (text buffered, e.g. once the child has
   * exited and its stdin is closing): taken as written, like a number.
   */
  write(chunk: string): number | boolean | PromiseLike<number>;
  /**
   * Writes what `write` buffered. Bun's FileSink reports a broken pipe (the
   * extension closed its stdin but runs on) only here: `write` keeps
   * accepting text. Throws on a write error, or returns a promise while the pipe is full.
   */
  flush?(): number | PromiseLike<number>;
}

function isPending(result: number | boolean | PromiseLike<number>): result is PromiseLike<number> {
  return typeof result === "object" && result !== null && typeof result.then === "function";
}

export type QueueFailure =
  | { readonly kind: "overflow"; readonly frames: number; readonly bytes: number }
  | { readonly kind: "write_timeout"; readonly timeoutMs: number }
  | { readonly kind: "write_error"; readonly error: unknown };

export interface OutboundQueueOptions {
  readonly maxFrames?: number;
  readonly maxBytes?: number;
  readonly writeTimeoutMs?: number;
  readonly onFailure: (failure: QueueFailure) => void;
  /** Frames left the queue for the pipe (there may be room again). */
  readonly onProgress?: () => void;
}

/** A frame serialised once, ready to queue. */
export interface PreparedFrame {
  readonly text: string;
  readonly bytes: number;
}

interface QueuedFrame {
  readonly text: string;
  readonly bytes: number;
  /** Resolved once the frame has been handed to the pipe. */
  readonly written?: (ok: boolean) => void;
}

export class OutboundQueue {
  private readonly frames: QueuedFrame[] = [];
  private head = 0;
  private queuedBytes = 0;
  private inFlight = false;
  private pumpScheduled = false;
  private failed = false;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  private readonly maxFrames: number;
  private readonly maxBytes: number;
  private readonly writeTimeoutMs: number;

  constructor(
    private readonly sink: ByteSink,
    private readonly options: OutboundQueueOptions,
  ) {
    this.maxFrames = options.maxFrames ?? MAX_QUEUED_FRAMES;
    this.maxBytes = options.maxBytes ?? MAX_QUEUED_BYTES;
    this.writeTimeoutMs = options.writeTimeoutMs ?? WRITE_TIMEOUT_MS;
  }

  /** Frames waiting (not counting the one in flight). */
  get queuedFrames(): number {
    return this.frames.length - this.head;
  }

  get bytesQueued(): number {
    return this.queuedBytes;
  }

  /** True once the queue failed or was closed; enqueue then refuses. */
  get stopped(): boolean {
    return this.failed || this.closed;
  }

  /**
   * Queues one frame (a JSON value, serialised here with its newline).
   * Returns false when the queue is stopped or this frame overflowed it.
   * `onWritten` learns whether the frame reached the pipe.
   */
  enqueue(frame: unknown, onWritten?: (ok: boolean) => void): boolean {
    return this.enqueuePrepared(prepareFrame(frame), onWritten);
  }

  /** True while a request may join the queue without crowding it (see REQUEST_ROOM_*). */
  hasRoom(): boolean {
    return this.queuedFrames < REQUEST_ROOM_FRAMES && this.queuedBytes < REQUEST_ROOM_BYTES;
  }

  /** The largest frame the queue can take when empty. */
  get maxFrameBytes(): number {
    return this.maxBytes;
  }

  /** `enqueue` for a frame serialised with prepareFrame. */
  enqueuePrepared(prepared: PreparedFrame, onWritten?: (ok: boolean) => void): boolean {
    if (this.stopped) {
      onWritten?.(false);
      return false;
    }
    const { text, bytes } = prepared;
    if (this.queuedFrames + 1 > this.maxFrames || this.queuedBytes + bytes > this.maxBytes) {
      const frames = this.queuedFrames + 1;
      const total = this.queuedBytes + bytes;
      this.fail({ kind: "overflow", frames, bytes: total });
      onWritten?.(false);
      return false;
    }
    this.frames.push({ text, bytes, written: onWritten });
    this.queuedBytes += bytes;
    if (!this.inFlight && !this.pumpScheduled) {
      this.pumpScheduled = true;
      queueMicrotask(() => {
        this.pumpScheduled = false;
        if (!this.inFlight) this.pump();
      });
    }
    return true;
  }

  /** Resolves true once everything queued has been written, false on failure or timeout. */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.failed) return Promise.resolve(false);
    if (!this.inFlight && !this.pumpScheduled && this.queuedFrames === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(!this.failed);
      });
    });
  }

  /** Stops accepting frames; queued frames that were not written are reported unwritten. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.discardQueued();
    this.notifyIdle();
  }

  private pump(): void {
    while (this.head < this.frames.length && !this.stopped) {
      let text = "";
      const callbacks: ((ok: boolean) => void)[] = [];
      while (this.head < this.frames.length && text.length < MAX_BATCH_CHARS) {
        const frame = this.frames[this.head]!;
        this.frames[this.head] = undefined as unknown as QueuedFrame;
        this.head++;
        this.queuedBytes -= frame.bytes;
        text += frame.text;
        if (frame.written) callbacks.push(frame.written);
      }
      this.compact();
      this.options.onProgress?.();
      if (this.stopped) {
        for (const callback of callbacks) callback(false);
        return;
      }
      let result: number | boolean | PromiseLike<number>;
      try {
        result = this.sink.write(text);
        // Without a flush a broken pipe goes unnoticed: every later frame is "written" and requests wait out their deadlines.
        if (!isPending(result) && this.sink.flush !== undefined) result = this.sink.flush();
      } catch (error) {
        this.fail({ kind: "write_error", error });
        for (const callback of callbacks) callback(false);
        return;
      }
      if (!isPending(result)) {
        for (const callback of callbacks) callback(true);
        continue;
      }
      this.inFlight = true;
      this.awaitWrite(result, callbacks);
      return;
    }
    this.notifyIdle();
  }

  private awaitWrite(pending: PromiseLike<number>, callbacks: readonly ((ok: boolean) => void)[]): void {
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      this.fail({ kind: "write_timeout", timeoutMs: this.writeTimeoutMs });
      for (const callback of callbacks) callback(false);
    }, this.writeTimeoutMs);
    pending.then(
      () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inFlight = false;
        for (const callback of callbacks) callback(true);
        this.pump();
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.fail({ kind: "write_error", error });
        for (const callback of callbacks) callback(false);
      },
    );
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.frames.length) {
      this.frames.splice(0, this.head);
      this.head = 0;
    } else if (this.head === this.frames.length) {
      this.frames.length = 0;
      this.head = 0;
    }
  }

  private discardQueued(): void {
    for (let i = this.head; i < this.frames.length; i++) this.frames[i]?.written?.(false);
    this.frames.length = 0;
    this.head = 0;
    this.queuedBytes = 0;
  }

  /** The owner hears of the failure first, so frames it is then told were not written can say why. */
  private fail(failure: QueueFailure): void {
    if (this.failed) return;
    this.failed = true;
    this.inFlight = false;
    this.options.onFailure(failure);
    this.discardQueued();
    this.notifyIdle();
  }

  private notifyIdle(): void {
    if ((this.inFlight || this.pumpScheduled) && !this.stopped) return;
    if (this.queuedFrames > 0 && !this.stopped) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const waiter of waiters) waiter();
  }
}

/** Serialises one frame (a JSON value) with its newline. */
export function prepareFrame(frame: unknown): PreparedFrame {
  const text = `${JSON.stringify(frame)}\n`;
  return { text, bytes: Buffer.byteLength(text) };
}
