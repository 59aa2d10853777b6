/**
 * What `edit` read, kept to protect a concurrent writer's data. A snapshot
 * holds the file open and remembers its identity (device, inode), size,
 * mtime and bytes. Just before the atomic replace, assertUnchanged compares
 * the file at its path with all of them and throws FileChangedError when
 * anything differs (the edit is then refused, nothing written). Bytes that
 * still reach the old file in the microseconds between that check and the
 * rename (an appender that opened it before the rename) are found through
 * the descriptor afterwards and carried over to the end of the new file by
 * carryLateAppends, so they are not lost; a writer that keeps the old file
 * open goes on writing to the replaced inode, which no rename can prevent.
 */
import { appendFileSync, closeSync, fstatSync, openSync, readFileSync, readSync, statSync, type Stats } from "node:fs";
import { ZotError } from "../common/errors.ts";

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
  const fd = openSync(file, "r");
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
  if (!same || !readFileSync(file).equals(snapshot.bytes)) throw new FileChangedError(displayPath);
  // Last and cheapest: a write since the content comparison.
  if (fstatSync(snapshot.fd).size !== stats.size) throw new FileChangedError(displayPath);
}

const CARRY_ROUNDS = 3;

/** After the rename: appends to `file` whatever reached the replaced inode past the snapshot; returns the bytes carried. */
export function carryLateAppends(snapshot: FileSnapshot, file: string): number {
  let carried = 0;
  let from = snapshot.stats.size;
  for (let round = 0; round < CARRY_ROUNDS; round++) {
    const size = fstatSync(snapshot.fd).size;
    if (size <= from) break;
    const late = Buffer.alloc(size - from);
    let read = 0;
    while (read < late.length) {
      const got = readSync(snapshot.fd, late, read, late.length - read, from + read);
      if (got === 0) break;
      read += got;
    }
    appendFileSync(file, late.subarray(0, read));
    carried += read;
    from += read;
  }
  return carried;
}
