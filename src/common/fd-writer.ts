/**
 * Writes to one of zot's own descriptors (stdout, stderr) in call order
 * without ever blocking the event loop. common/stdout.ts and
 * common/stderr.ts put their policies on top (backpressure; dropping). How
 * it writes is decided once, when the writer is made, from what the
 * descriptor is:
 *
 * - "direct": a regular file, a terminal or another device (/dev/null):
 *   writeSync on the descriptor itself, as any program does.
 * - "pipe": a pipe or FIFO, on Linux: writeSync on a private, non-blocking
 *   open file description of the same pipe (`/proc/self/fd/N` opened
 *   O_WRONLY | O_NONBLOCK; Bun adds O_CLOEXEC). The shared description keeps
 *   its flags, so whoever else writes to that pipe (a sibling in a shell
 *   pipeline, the shell once zot has exited) still gets blocking writes.
 * - "socket": send(2) with MSG_DONTWAIT on the descriptor (common/libc.ts);
 *   nothing shared changes either. Bun.spawn and Node give a child a socket
 *   when they are asked for a "pipe".
 * - "worker": anything else, or when the above cannot be set up (pipes on
 *   macOS, no /proc, no libc): a worker thread (WORKER_SOURCE) does blocking
 *   writes and acknowledges each text. It costs a thread, ≈7 ms and ≈11 MB,
 *   which is why it is only the fallback.
 *
 * What the descriptor does not take at once waits in a FIFO queue (small
 * texts are joined into pieces of up to 64 KiB) and is retried: these
 * descriptors give the event loop no readiness signal, so the retry is
 * paced by what the reader does. Right after a write meets a full
 * descriptor, and while each retry moves at least 16 KiB (a fast reader),
 * the next retry comes on the next turn of the event loop (setImmediate),
 * at most 32 fruitless turns in a row; a retry that moves less (a slow
 * reader) waits 1 ms; a fruitless one doubles the wait, up to 16 ms (a
 * stalled reader costs about 60 failed writes a second). Any error other
 * than EAGAIN / EINTR (EPIPE, ECONNRESET, EIO, EBADF…) means the reader is
 * gone: the writer is then "broken" and discards what is queued and
 * everything written later; `failureCode` keeps the error's code (EPIPE
 * for a reader that left, ENOSPC for a full disk…), so that callers can
 * tell a reader that went away from a write that failed.
 * A direct write that meets EAGAIN (a terminal someone made non-blocking) is
 * queued and retried the same way.
 */
import { closeSync, constants, fstatSync, openSync, writeSync } from "node:fs";
import { EINTR, EWOULDBLOCK, libcAvailable, sendNonBlocking } from "./libc.ts";

export type FdWriterMode = "direct" | "pipe" | "socket" | "worker";

export interface FdWriterOptions {
  /** While text is pending, the writer keeps the process alive (stdout must be delivered; stderr need not). */
  readonly keepAlive: boolean;
  /** Called after every write that made progress (and when the writer breaks). */
  readonly onProgress?: () => void;
  /** Use the worker whatever the descriptor is: the path of other platforms, for tests. */
  readonly forceWorker?: boolean;
}

/** Retry delays: 0 is "next turn of the event loop" (setImmediate). */
const FIRST_RETRY_MS = 1;
const MAX_RETRY_MS = 16;
/** A retry that moves this much means a fast reader: retry again at once. */
const FAST_READER_BYTES = 16 * 1024;
const MAX_IDLE_SPINS = 32;
const PIECE_BYTES = 64 * 1024;
/** Results of one attempt besides the byte count. */
const AGAIN = -1;
const BROKEN = -2;

/**
 * The worker: writes each text it is sent to its descriptor completely
 * (blocking there is the point; a non-blocking descriptor that is
 * momentarily full is retried every 10 ms), then acknowledges the byte
 * count. After any other error it writes nothing more and says so. Plain
 * JavaScript loaded from a Blob URL, so the compiled binary needs no extra
 * entry point.
 */
function workerSource(fd: number): string {
  return `
import { writeSync } from "node:fs";
const pause = new Int32Array(new SharedArrayBuffer(4));
let broken = false;
let code;
onmessage = (event) => {
  const bytes = event.data;
  let offset = 0;
  while (!broken && offset < bytes.length) {
    try {
      offset += writeSync(${fd}, bytes, offset);
    } catch (err) {
      if (err?.code === "EAGAIN" || err?.code === "EINTR") Atomics.wait(pause, 0, 0, 10);
      else {
        broken = true;
        code = typeof err?.code === "string" ? err.code : "EIO";
      }
    }
  }
  postMessage({ bytes: bytes.length, broken, code });
};
`;
}

type Attempt = (bytes: Uint8Array) => number;
/** Where an attempt leaves the code of the error that broke it. */
interface FailureRecord {
  code: string | undefined;
}

/** Short texts are encoded here for their first write attempt (what is not written at once is copied out). */
const SCRATCH_BYTES = 64 * 1024;
let scratch: { readonly bytes: Uint8Array; readonly encoder: TextEncoder } | undefined;

function encodeToScratch(text: string): Uint8Array {
  scratch ??= { bytes: new Uint8Array(SCRATCH_BYTES), encoder: new TextEncoder() };
  return scratch.bytes.subarray(0, scratch.encoder.encodeInto(text, scratch.bytes).written);
}

function writeAttempt(fd: number, failure: FailureRecord): Attempt {
  return (bytes) => {
    try {
      return writeSync(fd, bytes);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException | undefined)?.code;
      if (code === "EAGAIN" || code === "EWOULDBLOCK" || code === "EINTR") return AGAIN;
      failure.code = typeof code === "string" ? code : "EIO";
      return BROKEN;
    }
  };
}

function sendAttempt(fd: number, failure: FailureRecord): Attempt {
  return (bytes) => {
    const sent = sendNonBlocking(fd, bytes) ?? -EWOULDBLOCK;
    if (sent >= 0) return sent;
    if (sent === -EWOULDBLOCK || sent === -EINTR) return AGAIN;
    // A socket's writer breaks when its peer has gone.
    failure.code = "EPIPE";
    return BROKEN;
  };
}

/** How to write to `fd` without blocking, or undefined when only the worker can. */
function directPath(fd: number, failure: FailureRecord): { mode: Exclude<FdWriterMode, "worker">; attempt: Attempt } | undefined {
  let stat: ReturnType<typeof fstatSync>;
  try {
    stat = fstatSync(fd);
  } catch {
    // Not open: writes fail at once and break the writer.
    return { mode: "direct", attempt: writeAttempt(fd, failure) };
  }
  if (stat.isFile() || stat.isCharacterDevice() || stat.isBlockDevice()) return { mode: "direct", attempt: writeAttempt(fd, failure) };
  if (stat.isSocket()) return libcAvailable() ? { mode: "socket", attempt: sendAttempt(fd, failure) } : undefined;
  if (stat.isFIFO() && process.platform === "linux") {
    try {
      const privateFd = openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY | constants.O_NONBLOCK);
      // With stdin closed the new descriptor would be 0, where zot expects its input: not that.
      if (privateFd > 2) return { mode: "pipe", attempt: writeAttempt(privateFd, failure) };
      closeSync(privateFd);
    } catch {
      // no /proc, or not allowed: the worker
    }
    return undefined;
  }
  return undefined;
}

export class FdWriter {
  readonly #mode: FdWriterMode;
  readonly #attempt: Attempt | undefined;
  readonly #worker: Worker | undefined;
  /** Sealed pieces waiting, from #head on. */
  #pieces: Uint8Array[] = [];
  #head = 0;
  /** Small texts being gathered into the next piece. */
  #open: Uint8Array[] = [];
  #openBytes = 0;
  #queuedBytes = 0;
  #broken = false;
  readonly #failure: FailureRecord = { code: undefined };
  #lastProgressAt = 0;
  #cancelRetry: (() => void) | undefined;
  #delay = 0;
  #idleSpins = 0;
  #waiters: { readonly atMost: number; readonly wake: () => void }[] = [];

  constructor(
    readonly fd: number,
    private readonly options: FdWriterOptions,
  ) {
    const path = options.forceWorker ? undefined : directPath(fd, this.#failure);
    if (path !== undefined) {
      this.#mode = path.mode;
      this.#attempt = path.attempt;
      return;
    }
    this.#worker = this.#startWorker();
    // No worker either: blocking writes (the last resort, as before this module).
    this.#mode = this.#worker === undefined ? "direct" : "worker";
    if (this.#worker === undefined) this.#attempt = writeAttempt(fd, this.#failure);
  }

  get mode(): FdWriterMode {
    return this.#mode;
  }

  /** Bytes accepted and not yet written. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** The reader went away: everything queued was discarded and later text is too. */
  get broken(): boolean {
    return this.#broken;
  }

  /** Once broken: the code of the error that broke it (EPIPE, ENOSPC, EIO…; "EIO" when a worker died). */
  get failureCode(): string | undefined {
    return this.#broken ? (this.#failure.code ?? "EIO") : undefined;
  }

  /** Date.now() of the last write that made progress (or when the queue last started filling). */
  get lastProgressAt(): number {
    return this.#lastProgressAt;
  }

  write(data: string | Uint8Array): void {
    if (this.#broken || data.length === 0) return;
    if (this.#worker !== undefined || this.#queuedBytes > 0) {
      // A caller's array may be reused once write() returns: keep a copy.
      const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : new Uint8Array(data);
      if (this.#worker === undefined) this.#enqueue(bytes);
      else this.#post(this.#worker, bytes);
      return;
    }
    // The common case: written at once. A short text is encoded into a reused buffer (no garbage).
    const bytes = typeof data !== "string" ? data : data.length * 3 <= SCRATCH_BYTES ? encodeToScratch(data) : Buffer.from(data, "utf8");
    const taken = this.#attemptAll(bytes);
    if (taken === bytes.length || this.#broken) return;
    // A copy: `bytes` may be the scratch buffer or the caller's (Buffer#slice would not copy).
    this.#enqueue(new Uint8Array(bytes.subarray(taken)));
    this.#idleSpins = 0;
    this.#schedule(0);
  }

  #post(worker: Worker, bytes: Uint8Array): void {
    this.#enqueued(bytes.length);
    if (this.options.keepAlive) worker.ref();
    worker.postMessage(bytes);
  }

  /** Resolves once at most `bytes` are queued, or the writer broke. */
  whenQueuedAtMost(bytes: number): Promise<void> {
    if (this.#broken || this.#queuedBytes <= bytes) return Promise.resolve();
    return new Promise((wake) => this.#waiters.push({ atMost: bytes, wake }));
  }

  /** Writes what it can of `bytes` now: the count taken (the writer may have broken). */
  #attemptAll(bytes: Uint8Array): number {
    const attempt = this.#attempt as Attempt;
    let offset = 0;
    while (offset < bytes.length) {
      const taken = attempt(offset === 0 ? bytes : bytes.subarray(offset));
      if (taken === BROKEN) {
        this.#break();
        return offset;
      }
      if (taken <= 0) return offset;
      offset += taken;
    }
    return offset;
  }

  #enqueued(bytes: number): void {
    if (this.#queuedBytes === 0) this.#lastProgressAt = Date.now();
    this.#queuedBytes += bytes;
  }

  #enqueue(bytes: Uint8Array): void {
    this.#enqueued(bytes.length);
    if (bytes.length >= PIECE_BYTES) {
      this.#seal();
      this.#pieces.push(bytes);
      return;
    }
    this.#open.push(bytes);
    this.#openBytes += bytes.length;
    if (this.#openBytes >= PIECE_BYTES) this.#seal();
  }

  #seal(): void {
    if (this.#open.length === 0) return;
    this.#pieces.push(this.#open.length === 1 ? (this.#open[0] as Uint8Array) : Buffer.concat(this.#open, this.#openBytes));
    this.#open = [];
    this.#openBytes = 0;
  }

  #nextPiece(): Uint8Array | undefined {
    if (this.#head === this.#pieces.length) this.#seal();
    return this.#pieces[this.#head];
  }

  #schedule(delay: number): void {
    if (this.#cancelRetry !== undefined) return;
    this.#delay = delay;
    if (delay === 0) {
      const immediate = setImmediate(() => this.#retry());
      if (!this.options.keepAlive) immediate.unref();
      this.#cancelRetry = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(() => this.#retry(), delay);
      if (!this.options.keepAlive) timer.unref();
      this.#cancelRetry = () => clearTimeout(timer);
    }
  }

  /** The delay before the next retry, from how much the last one moved. */
  #nextDelay(moved: number): number {
    if (moved >= FAST_READER_BYTES) {
      this.#idleSpins = 0;
      return 0;
    }
    if (moved > 0) return FIRST_RETRY_MS;
    if (this.#delay === 0 && ++this.#idleSpins < MAX_IDLE_SPINS) return 0;
    return this.#delay === 0 ? FIRST_RETRY_MS : Math.min(this.#delay * 2, MAX_RETRY_MS);
  }

  #retry(): void {
    this.#cancelRetry = undefined;
    const attempt = this.#attempt as Attempt;
    let moved = 0;
    for (let piece = this.#nextPiece(); piece !== undefined; piece = this.#nextPiece()) {
      const taken = attempt(piece);
      if (taken === BROKEN) {
        this.#break();
        return;
      }
      if (taken <= 0) break;
      moved += taken;
      this.#queuedBytes -= taken;
      if (taken < piece.length) {
        // The descriptor is full again.
        this.#pieces[this.#head] = piece.subarray(taken);
        break;
      }
      this.#head++;
      if (this.#head >= 1024 && this.#head * 2 >= this.#pieces.length) {
        this.#pieces = this.#pieces.slice(this.#head);
        this.#head = 0;
      }
    }
    if (this.#queuedBytes > 0) this.#schedule(this.#nextDelay(moved));
    if (moved > 0) this.#progressed();
  }

  #progressed(): void {
    this.#lastProgressAt = Date.now();
    if (this.#waiters.length > 0) {
      const due = this.#waiters.filter((waiter) => this.#broken || this.#queuedBytes <= waiter.atMost);
      if (due.length > 0) {
        this.#waiters = this.#waiters.filter((waiter) => !due.includes(waiter));
        for (const waiter of due) waiter.wake();
      }
    }
    this.options.onProgress?.();
  }

  #break(): void {
    this.#broken = true;
    this.#pieces = [];
    this.#head = 0;
    this.#open = [];
    this.#openBytes = 0;
    this.#queuedBytes = 0;
    this.#cancelRetry?.();
    this.#cancelRetry = undefined;
    this.#worker?.unref();
    this.#progressed();
  }

  #startWorker(): Worker | undefined {
    try {
      const worker = new Worker(URL.createObjectURL(new Blob([workerSource(this.fd)], { type: "application/javascript" })));
      worker.unref();
      worker.onmessage = (event: MessageEvent<{ bytes: number; broken: boolean; code?: string }>) => {
        if (this.#broken) return;
        if (event.data.broken) {
          this.#failure.code = event.data.code ?? "EIO";
          this.#break();
          return;
        }
        this.#queuedBytes = Math.max(0, this.#queuedBytes - event.data.bytes);
        if (this.#queuedBytes === 0) worker.unref();
        this.#progressed();
      };
      worker.onerror = () => {
        // The worker died; what it held is lost, and so is what follows.
        this.#break();
      };
      return worker;
    } catch {
      return undefined;
    }
  }
}
