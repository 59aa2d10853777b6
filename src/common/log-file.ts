/**
 * An append-only log file with a size cap and one rotated generation, written
 * without blocking the event loop. There is one LogFile per path per process
 * (`logFileFor`), shared by every writer of that path. Appends go to an
 * in-memory queue (bounded: host notes past MAX_PENDING_BYTES are dropped and
 * counted; piped stderr waits for room instead) and are written by async fd
 * writes, one batch in flight at a time (opening the file is a few
 * synchronous metadata calls, once per file and rotation). A file never grows past
 * MAX_LOG_BYTES: a batch that does not fit is cut at its last newline, the
 * file is renamed to `<path>.1` (replacing the previous generation) and a
 * fresh file is opened. Before every write the open file is checked to
 * still be the one at the path: a log rotated by another process, removed
 * or replaced is followed by reopening the path (never rotated twice, never
 * written into a deleted file). The cap is exact for one writer; several
 * processes writing one log at the same instant can each overshoot it by at
 * most one batch (WRITE_BATCH_BYTES). The directory is created 0700 and
 * the files 0600; existing ones (both generations) are tightened whenever
 * the file is opened, the exit flush included (common/private.ts). At process exit
 * whatever is still queued is written synchronously, so the last lines are
 * never lost (a batch whose async write was in flight at that instant may
 * then appear twice). Nothing here throws: a log that cannot be written
 * must not take anything down.
 */
import { close, closeSync, constants, fstat, fstatSync, openSync, rename, renameSync, stat, statSync, write, writeSync } from "node:fs";
import type { Stats } from "node:fs";
import { dirname } from "node:path";
import { PRIVATE_FILE_MODE, ensurePrivateDir, tightenFd, tightenPath } from "./private.ts";

/** Largest size of one log file; the previous generation is kept as `<path>.1`. */
export const MAX_LOG_BYTES = 1024 * 1024;
/** Queued bytes beyond which host notes are dropped (and counted) rather than buffered. */
export const MAX_PENDING_BYTES = 1024 * 1024;
const WRITE_BATCH_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
const OPEN_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;

export function rotatedLogPath(path: string): string {
  return `${path}.1`;
}

function promised<T>(start: (done: (err: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => start((err, value) => (err ? reject(err) : resolve(value))));
}

const fstatAsync = (fd: number): Promise<Stats> => promised((done) => fstat(fd, done));
const statAsync = (path: string): Promise<Stats | undefined> =>
  promised<Stats | undefined>((done) => stat(path, (err, info) => done(null, err ? undefined : info)));
const closeAsync = (fd: number): Promise<void> => promised((done) => close(fd, (err) => done(err, undefined)));
const renameAsync = (from: string, to: string): Promise<void> => promised((done) => rename(from, to, (err) => done(err, undefined)));
const writeAsync = (fd: number, data: Uint8Array): Promise<number> =>
  promised((done) => write(fd, data, 0, data.length, null, done));

/**
 * Where the next write of `data` from `offset` ends: within `room` (what the
 * file may still grow) and WRITE_BATCH_BYTES, after a newline when possible.
 * `offset` itself means "rotate first".
 */
function pieceEnd(data: Uint8Array, offset: number, room: number, fileEmpty: boolean): number {
  if (room <= 0) return offset;
  const limit = Math.min(room, WRITE_BATCH_BYTES);
  if (data.length - offset <= limit) return data.length;
  const newline = data.lastIndexOf(NEWLINE, offset + limit - 1);
  if (newline >= offset) return newline + 1;
  // No newline within reach: a long line continues in this file while it has room…
  if (room > limit) return offset + limit;
  // …otherwise rotate first, and split only a line longer than a whole file.
  return fileEmpty ? offset + room : offset;
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

export class LogFile {
  private fd: number | undefined;
  private broken = false;
  /** Set when the file could not be rotated: keep writing rather than loop. */
  private unbounded = false;
  private readonly queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private inFlight: Uint8Array | undefined;
  private running: Promise<void> | undefined;
  private waiters: (() => void)[] = [];
  /** Host notes dropped because the queue was full (reported once it drains). */
  private droppedNotes = 0;

  constructor(
    readonly path: string,
    private readonly maxBytes: number = MAX_LOG_BYTES,
  ) {}

  /** Bytes queued or being written. */
  get pendingBytes(): number {
    return this.queuedBytes + (this.inFlight?.length ?? 0);
  }

  /** Queues a host note; false (and counted) when the queue is full. */
  appendNote(text: string): boolean {
    if (this.broken) return false;
    const data = Buffer.from(text);
    if (this.pendingBytes + data.length > MAX_PENDING_BYTES) {
      this.droppedNotes += 1;
      return false;
    }
    this.enqueue(data);
    return true;
  }

  /** Queues bytes that must not be dropped (piped stderr); the caller waits with `whenBelow`. */
  appendBytes(data: Uint8Array): void {
    if (this.broken || data.length === 0) return;
    this.enqueue(data);
  }

  /** Resolves once fewer than `bytes` are pending (at once when already so). */
  whenBelow(bytes: number): Promise<void> {
    if (this.pendingBytes < bytes || this.broken) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.pendingBytes < bytes || this.broken || this.running === undefined) resolve();
        else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  /** Resolves once everything queued so far is written (or dropped on error). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Synchronous last-chance write of everything pending (process exit). */
  flushSync(): void {
    const pending = [...(this.inFlight ? [this.inFlight] : []), ...this.queue];
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.inFlight = undefined;
    const dropped = this.takeDroppedNote();
    if (dropped) pending.push(dropped);
    if (this.broken || pending.length === 0) return;
    try {
      for (const data of pending) this.writeBoundedSync(data);
    } catch {
      // nothing more can be done at exit
    }
  }

  private enqueue(data: Uint8Array): void {
    this.queue.push(data);
    this.queuedBytes += data.length;
    this.running ??= this.run();
  }

  /** The line that reports the notes dropped so far (and resets the count), if any were. */
  private takeDroppedNote(): Uint8Array | undefined {
    if (this.droppedNotes === 0) return undefined;
    const note = Buffer.from(`[zot] ${this.droppedNotes} log line(s) dropped: the log writer fell behind\n`);
    this.droppedNotes = 0;
    return note;
  }

  private takeBatch(): Uint8Array {
    const chunks: Uint8Array[] = [];
    let total = 0;
    while (this.queue.length > 0 && (total === 0 || total + this.queue[0]!.length <= WRITE_BATCH_BYTES)) {
      const chunk = this.queue.shift()!;
      chunks.push(chunk);
      total += chunk.length;
    }
    this.queuedBytes -= total;
    return concat(chunks, total);
  }

  private async run(): Promise<void> {
    while (this.queue.length > 0 && !this.broken) {
      if (this.droppedNotes > 0 && this.queuedBytes < MAX_PENDING_BYTES / 2) {
        const note = this.takeDroppedNote()!;
        this.queue.push(note);
        this.queuedBytes += note.length;
      }
      const batch = this.takeBatch();
      this.inFlight = batch;
      try {
        await this.writeBounded(batch);
      } catch {
        // A failed write loses this batch only; the next one tries again.
      }
      this.inFlight = undefined;
      this.wake();
    }
    if (this.broken) {
      this.queue.length = 0;
      this.queuedBytes = 0;
    }
    this.running = undefined;
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }

  /** The open file: on first use (and after a rotation) the directory is made private and the file opened and tightened. */
  private ensureOpen(): number {
    if (this.fd !== undefined) return this.fd;
    try {
      ensurePrivateDir(dirname(this.path));
      const fd = openSync(this.path, OPEN_FLAGS, PRIVATE_FILE_MODE);
      tightenFd(fd);
      tightenPath(rotatedLogPath(this.path));
      this.fd = fd;
      return fd;
    } catch (err) {
      this.broken = true;
      throw err;
    }
  }

  private async writeBounded(data: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < data.length) {
      const fd = this.ensureOpen();
      const mine = await fstatAsync(fd);
      if (!this.stillAtPath(mine, await statAsync(this.path))) {
        // Rotated or removed by someone else: write to whatever is at the path now.
        this.fd = undefined;
        await closeAsync(fd).catch(() => {});
        continue;
      }
      const size = mine.size;
      const end = this.unbounded ? data.length : pieceEnd(data, offset, this.maxBytes - size, size === 0);
      if (end <= offset) {
        await this.rotate(fd);
        continue;
      }
      let at = offset;
      while (at < end) at += await writeAsync(fd, data.subarray(at, end));
      offset = end;
    }
  }

  /** Whether the open file is still the one at the path (when it cannot be rotated, keep it regardless). */
  private stillAtPath(mine: Stats, atPath: Stats | undefined): boolean {
    return this.unbounded || (atPath !== undefined && atPath.ino === mine.ino && atPath.dev === mine.dev);
  }

  private async rotate(fd: number): Promise<void> {
    const mine = await fstatAsync(fd);
    const atPath = await statAsync(this.path);
    // Another process may have rotated already: then only reopen.
    if (atPath && atPath.ino === mine.ino && atPath.dev === mine.dev) {
      try {
        await renameAsync(this.path, rotatedLogPath(this.path));
      } catch {
        this.unbounded = true;
        return;
      }
    }
    this.fd = undefined;
    await closeAsync(fd).catch(() => {});
  }

  private writeBoundedSync(data: Uint8Array): void {
    let offset = 0;
    while (offset < data.length) {
      const fd = this.ensureOpen();
      const mine = fstatSync(fd);
      const atPath = statOrUndefined(this.path);
      if (!this.stillAtPath(mine, atPath)) {
        this.fd = undefined;
        closeSync(fd);
        continue;
      }
      const size = mine.size;
      const end = this.unbounded ? data.length : pieceEnd(data, offset, this.maxBytes - size, size === 0);
      if (end <= offset) {
        this.rotateSync(fd);
        continue;
      }
      let at = offset;
      while (at < end) at += writeSync(fd, data, at, end - at);
      offset = end;
    }
  }

  private rotateSync(fd: number): void {
    const mine = fstatSync(fd);
    const atPath = statOrUndefined(this.path);
    if (atPath && atPath.ino === mine.ino && atPath.dev === mine.dev) {
      try {
        renameSync(this.path, rotatedLogPath(this.path));
      } catch {
        this.unbounded = true;
        return;
      }
    }
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
}

const files = new Map<string, LogFile>();
const beforeExit = new Set<() => void>();
let exitHookInstalled = false;

/** Runs `task` (which may append) at process exit, just before the final synchronous flush. */
export function beforeExitFlush(task: () => void): () => void {
  beforeExit.add(task);
  return () => beforeExit.delete(task);
}

/** The process-wide writer of `path`. */
export function logFileFor(path: string): LogFile {
  let file = files.get(path);
  if (!file) {
    file = new LogFile(path);
    files.set(path, file);
  }
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", flushAllLogsSync);
  }
  return file;
}

/** Waits until every log file of this process has written what it was given. */
export async function flushAllLogs(): Promise<void> {
  await Promise.all([...files.values()].map((file) => file.flush()));
}

export function flushAllLogsSync(): void {
  for (const task of beforeExit) {
    try {
      task();
    } catch {
      // a summary that cannot be built is not worth a crash at exit
    }
  }
  for (const file of files.values()) file.flushSync();
}

/** stat(2) of a path, or undefined when it does not exist (or cannot be read). */
function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
