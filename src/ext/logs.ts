/**
 * Extension stderr logs: `$ZOT_HOME/logs/ext-<manifest name>.log`, plus the
 * rotated generation `<log>.1` (log-file.ts). The name a user types is
 * resolved through the installed extensions (so a directory name works),
 * falling back to the raw name for extensions that are not installed (`--ext`
 * runs). Printing streams the rotated generation, then the current file;
 * following then keeps printing appended bytes (250 ms poll) until the
 * caller's AbortSignal fires, like `tail -F`: it holds the file open, so
 * after a rotation it first prints what was still appended to the old file,
 * then the new file from the top; a truncated file is printed from the top.
 * No external `tail`.
 */
import { constants, type Stats } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";
import { extensionLogPath, type ZotPaths } from "../common/home.ts";
import { rotatedLogPath } from "../common/log-file.ts";
import { findInstalled, manifestName } from "./installed.ts";

export interface LogTarget {
  /** Manifest name the log file is keyed by. */
  readonly name: string;
  readonly path: string;
}

export type ChunkWriter = (chunk: Uint8Array) => Promise<unknown>;

const CHUNK_BYTES = 64 * 1024;
export const FOLLOW_POLL_MS = 250;

/** The log file for `query` (manifest name or installed directory name). */
export async function resolveLogTarget(query: string, options: { cwd: string; paths: ZotPaths }): Promise<LogTarget> {
  let name = query;
  try {
    const entry = await findInstalled(query, options);
    name = manifestName(entry) ?? query;
  } catch (err) {
    if (!(err instanceof ZotError)) throw err;
  }
  if (name === "" || name.startsWith(".") || /[/\\\0]/.test(name)) {
    throw new ZotError("ext.bad_name", `"${query}" is not an extension name`, { extension: query });
  }
  return { name, path: extensionLogPath(options.paths, name) };
}

async function statLog(target: LogTarget): Promise<Stats> {
  try {
    return await stat(target.path);
  } catch (err) {
    const code = systemErrorCode(err);
    if (code === "ENOENT") {
      throw new ZotError("ext.no_log", `no log for "${target.name}" at ${target.path}`, { extension: target.name, file: target.path });
    }
    throw new ZotError("ext.log_unreadable", `cannot read ${target.path} (${code ?? errorMessage(err)})`, { file: target.path }, {
      cause: err,
    });
  }
}

/** Writes the bytes of an open file from `start` to its current end; returns the new position. */
async function copyFrom(handle: FileHandle, start: number, write: ChunkWriter): Promise<number> {
  const buffer = new Uint8Array(CHUNK_BYTES);
  let position = start;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) return position;
    await write(buffer.slice(0, bytesRead));
    position += bytesRead;
  }
}

/**
 * Opens the log at `path` without blocking (a FIFO there would hold the
 * open forever) and only when it is a regular file; undefined when missing.
 */
async function openIfPresent(path: string): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    if (systemErrorCode(err) === "ENOENT") return undefined;
    throw err;
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new ZotError("ext.log_unreadable", `cannot read ${path} (not a regular file)`, { file: path });
  }
  return handle;
}

/** Prints the rotated generation, if any. */
async function printRotated(target: LogTarget, write: ChunkWriter): Promise<void> {
  const rotated = await openIfPresent(rotatedLogPath(target.path));
  if (!rotated) return;
  try {
    await copyFrom(rotated, 0, write);
  } finally {
    await rotated.close();
  }
}

/** Prints the rotated generation and the current log. Missing log → ZotError `no log for "x" at <path>`. */
export async function printLog(target: LogTarget, write: ChunkWriter): Promise<void> {
  await statLog(target);
  await printRotated(target, write);
  const handle = await openIfPresent(target.path);
  if (!handle) return;
  try {
    await copyFrom(handle, 0, write);
  } finally {
    await handle.close();
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolveSleep) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolveSleep();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

async function statIfPresent(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (err) {
    if (systemErrorCode(err) === "ENOENT") return undefined;
    throw err;
  }
}

/**
 * Prints the log (rotated generation first), then every byte appended to it
 * until `signal` aborts. A rotation (a new file at the path) prints the rest
 * of the old file, then the new one from the start; a shrunk file
 * (truncation) is printed from the start; while the path is missing it
 * waits for it to reappear.
 */
export async function followLog(
  target: LogTarget,
  write: ChunkWriter,
  signal: AbortSignal,
  pollMs: number = FOLLOW_POLL_MS,
): Promise<void> {
  await statLog(target);
  await printRotated(target, write);
  let handle = await openIfPresent(target.path);
  let current = handle ? await handle.stat() : undefined;
  let position = handle ? await copyFrom(handle, 0, write) : 0;
  try {
    while (!signal.aborted) {
      await pause(pollMs, signal);
      if (signal.aborted) break;
      const latest = await statIfPresent(target.path);
      if (latest && (!handle || !current || !sameFile(current, latest))) {
        // Rotated or replaced: finish the old file, then start the new one.
        if (handle) {
          await copyFrom(handle, position, write);
          await handle.close();
        }
        handle = await openIfPresent(target.path);
        current = handle ? await handle.stat() : undefined;
        position = handle ? await copyFrom(handle, 0, write) : 0;
      } else if (handle) {
        // Truncated: start again from the top (checked before reading, so new bytes are not mistaken for a tail).
        if ((await handle.stat()).size < position) position = 0;
        position = await copyFrom(handle, position, write);
      }
    }
  } finally {
    await handle?.close();
  }
}
