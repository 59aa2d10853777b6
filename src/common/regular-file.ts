/**
 * Opening files zot reads (the session store; config, model and key files;
 * a project's context files, agent definitions and MCP config) without
 * ever blocking: every open adds O_NONBLOCK (a FIFO named like one of them
 * would otherwise block open(2) or read(2) forever, and zot's signal
 * handlers with it, since they run on the thread the open holds) and
 * anything that is not a regular file is refused. openRegular and
 * readRegularText throw the system's errors (ENOENT, EACCES...) or
 * NotRegularFileError, as readFileSync would throw its own; withRegularFile
 * and readSmallFile, for readers that pass over what they cannot read, turn
 * any failure into a fallback value.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from "node:fs";

export class NotRegularFileError extends Error {
  readonly code = "ENOTREG";
  constructor(readonly path: string) {
    super("not a regular file");
  }
}

/** open(2) with O_NONBLOCK; throws NotRegularFileError (closing it) unless it is a regular file. */
export function openRegular(path: string, flags: number, mode?: number): number {
  const fd = openSync(path, flags | constants.O_NONBLOCK, mode);
  let regular: boolean;
  try {
    regular = fstatSync(fd).isFile();
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  if (!regular) {
    closeSync(fd);
    throw new NotRegularFileError(path);
  }
  return fd;
}

/**
 * Runs `use` on `path` opened read-only (openRegular) and closes it after;
 * `fallback` when it cannot be opened (missing, special, unreadable) or
 * `use` throws.
 */
export function withRegularFile<T, F>(path: string, fallback: F, use: (fd: number) => T): T | F {
  let fd: number;
  try {
    fd = openRegular(path, constants.O_RDONLY);
  } catch {
    return fallback;
  }
  try {
    return use(fd);
  } catch {
    return fallback;
  } finally {
    closeSync(fd);
  }
}

/** The whole content of the regular file at `path`: readFileSync(path) that never blocks on a special file. */
export function readRegularBytes(path: string): Buffer {
  const fd = openRegular(path, constants.O_RDONLY);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** readRegularBytes as UTF-8 text: readFileSync(path, "utf8") that never blocks on a special file. */
export function readRegularText(path: string): string {
  return readRegularBytes(path).toString("utf8");
}

/** A small regular file's text (at most `limit` bytes); undefined when missing, special or longer. */
export function readSmallFile(path: string, limit: number): string | undefined {
  return withRegularFile(path, undefined, (fd) => {
    const size = fstatSync(fd).size;
    if (size > limit) return undefined;
    const bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const got = readSync(fd, bytes, read, size - read, read);
      if (got === 0) break;
      read += got;
    }
    return bytes.toString("utf8", 0, read);
  });
}
