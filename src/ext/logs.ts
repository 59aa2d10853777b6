/**
 * Extension stderr logs: `$ZOT_HOME/logs/ext-<manifest name>.log`. The name a
 * user types is resolved through the installed extensions (so a directory name
 * works), falling back to the raw name for extensions that are not installed
 * (`--ext` runs). Printing streams the file; following keeps printing appended
 * bytes (250 ms stat poll, restarting from the top after truncation or
 * rotation) until the caller's AbortSignal fires. No external `tail`.
 */
import type { Stats } from "node:fs";
import { open, stat } from "node:fs/promises";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";
import { extensionLogPath, type ZotPaths } from "../common/home.ts";
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

/** Writes the bytes of `path` from `start` to its current end; returns the new position. */
async function copyFrom(path: string, start: number, write: ChunkWriter): Promise<number> {
  const handle = await open(path, "r");
  try {
    const buffer = new Uint8Array(CHUNK_BYTES);
    let position = start;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) return position;
      await write(buffer.slice(0, bytesRead));
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** Prints the whole log. Missing log → ZotError `no log for "x" at <path>`. */
export async function printLog(target: LogTarget, write: ChunkWriter): Promise<void> {
  await statLog(target);
  await copyFrom(target.path, 0, write);
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

/**
 * Prints the log, then every byte appended to it until `signal` aborts. A
 * shrunk file (truncation) or a new file at the path (rotation) is printed
 * from the start; while the path is missing it waits for it to reappear.
 */
export async function followLog(
  target: LogTarget,
  write: ChunkWriter,
  signal: AbortSignal,
  pollMs: number = FOLLOW_POLL_MS,
): Promise<void> {
  let current = await statLog(target);
  let position = await copyFrom(target.path, 0, write);
  while (!signal.aborted) {
    await pause(pollMs, signal);
    if (signal.aborted) break;
    let latest: Stats;
    try {
      latest = await stat(target.path);
    } catch (err) {
      if (systemErrorCode(err) === "ENOENT") continue;
      throw err;
    }
    if (!sameFile(current, latest) || latest.size < position) position = 0;
    current = latest;
    if (latest.size > position) {
      try {
        position = await copyFrom(target.path, position, write);
      } catch (err) {
        if (systemErrorCode(err) !== "ENOENT") throw err;
      }
    }
  }
}
