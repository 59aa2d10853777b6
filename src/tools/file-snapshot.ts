/**
 * What `edit` read, kept to protect a concurrent writer's data. A snapshot
 * holds the file open and remembers its identity (device, inode), size,
 * mtime and bytes. Just before the atomic replace, assertUnchanged compares
 * the file at its path with all of them and throws FileChangedError when
 * anything differs (the edit is then refused, nothing written). Bytes that
 * still reach the old file in the microseconds between that check and the
 * rename, or a moment after it from an appender that opened the file just
 * before, are found through the descriptor and carried over to the end of
 * the new file by carryLateAppends (which watches the replaced inode of a
 * recently written file for LATE_WRITE_GRACE_MS; a file whose last write was
 * zot's own, per rememberOwnWrite, is not watched), so they are not lost. A writer that keeps the old
 * file open longer goes on writing to the replaced inode, which no rename
 * can prevent (any editor that saves by rename has the same limit).
 */
import { appendFileSync, closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync, type Stats } from "node:fs";
import { ZotError } from "../common/errors.ts";
import { openRegular, readRegularBytes } from "../common/regular-file.ts";

export class FileChangedError extends ZotError {
  constructor(path: string) {
    super(
      "tool.file_changed",
      `${path} changed on disk while the edit was being made (another process wrote to it); nothing was written. ` +
        "Read the file again and redo the edit.",
      { path },
    );
  }
}

export interface FileSnapshot {
  readonly fd: number;
  readonly bytes: Buffer;
  readonly stats: Stats;
}

/** Opens and reads `file`; throws fs errors, or FileChangedError when it grew while being read. */
export function takeSnapshot(file: string, displayPath: string): FileSnapshot {
  // Never blocking: a FIFO swapped in after the caller's checks is refused, not waited on.
  const fd = openRegular(file, constants.O_RDONLY);
  try {
    const bytes = readFileSync(fd);
    const stats = fstatSync(fd);
    if (stats.size !== bytes.length) throw new FileChangedError(displayPath);
    return { fd, bytes, stats };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

export function releaseSnapshot(snapshot: FileSnapshot): void {
  closeSync(snapshot.fd);
}

/** Throws FileChangedError unless `file` is still exactly what the snapshot read. */
export function assertUnchanged(snapshot: FileSnapshot, file: string, displayPath: string): void {
  const { stats } = snapshot;
  let now: Stats;
  try {
    now = statSync(file);
  } catch {
    throw new FileChangedError(displayPath);
  }
  const same = now.ino === stats.ino && now.dev === stats.dev && now.size === stats.size && now.mtimeMs === stats.mtimeMs;
  if (!same || !readRegularBytes(file).equals(snapshot.bytes)) throw new FileChangedError(displayPath);
  // Last and cheapest: a write since the content comparison.
  if (fstatSync(snapshot.fd).size !== stats.size) throw new FileChangedError(displayPath);
}

/** How long after the rename the replaced inode of a recently written file is watched for late writes. */
// Long enough for a writer that opened the old file and was then descheduled on a loaded machine.
export const LATE_WRITE_GRACE_MS = 500;
/** A file modified this recently before the edit read it may have a writer at work. */
export const RECENT_WRITE_MS = 5_000;
/** Longest watch when late writes keep coming (a writer holding the old file open). */
const LATE_WRITE_MAX_MS = 2_000;

/** Identity of each file as zot's own write tools last left it (bounded: oldest forgotten first). */
const ownWrites = new Map<string, string>();
const MAX_OWN_WRITES = 256;

function identity(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/** Records `file` as zot just left it (after write / edit), so its next edit need not watch for another writer. */
export function rememberOwnWrite(file: string): void {
  try {
    const key = identity(statSync(file));
    ownWrites.delete(file);
    ownWrites.set(file, key);
    if (ownWrites.size > MAX_OWN_WRITES) ownWrites.delete(ownWrites.keys().next().value as string);
  } catch {
    ownWrites.delete(file);
  }
}

/** True when the snapshot's file was modified recently by someone other than zot's own write tools. */
export function recentlyWrittenByOthers(snapshot: FileSnapshot, file: string, now: number = Date.now()): boolean {
  if (now - snapshot.stats.mtimeMs > RECENT_WRITE_MS) return false;
  return ownWrites.get(file) !== identity(snapshot.stats);
}

function carryOnce(snapshot: FileSnapshot, file: string, from: number): number {
  const size = fstatSync(snapshot.fd).size;
  if (size <= from) return 0;
  const late = Buffer.alloc(size - from);
  let read = 0;
  while (read < late.length) {
    const got = readSync(snapshot.fd, late, read, late.length - read, from + read);
    if (got === 0) break;
    read += got;
  }
  appendFileSync(file, late.subarray(0, read));
  return read;
}

/**
 * After the rename: appends to `file` whatever reached the replaced inode
 * past the snapshot. When the file was written within RECENT_WRITE_MS
 * before the edit read it (other than by zot itself), or late bytes already arrived, the inode is
 * watched until LATE_WRITE_GRACE_MS pass without more (a writer that opened
 * the file just before the rename writes a moment later). Returns the bytes
 * carried.
 */
export async function carryLateAppends(snapshot: FileSnapshot, file: string): Promise<number> {
  let carried = carryOnce(snapshot, file, snapshot.stats.size);
  if (carried === 0 && !recentlyWrittenByOthers(snapshot, file)) return 0;
  const started = performance.now();
  let quietSince = started;
  while (performance.now() - quietSince < LATE_WRITE_GRACE_MS && performance.now() - started < LATE_WRITE_MAX_MS) {
    await Bun.sleep(1);
    const more = carryOnce(snapshot, file, snapshot.stats.size + carried);
    if (more > 0) {
      carried += more;
      quietSince = performance.now();
    }
  }
  return carried;
}
