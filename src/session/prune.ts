/**
 * Removing abandoned empty sessions from one cwd's directory. A file is
 * deleted only if ALL hold: its first line is a meta row (it is ours); it has
 * no message row, valid or not (nothing to lose); it was last modified more
 * than `minAgeMs` ago (another running zot's fresh file is never touched);
 * and it is not one of `keep` (the caller's own files). The age is checked
 * again just before unlinking. Should a live writer's file still be removed,
 * SessionWriter recreates it on its next append.
 *
 * It runs beside every session start, so it is cheap per file: a sync stat,
 * and for old files a read that stops at the first message row (usually in
 * the first chunk) instead of scanning the whole transcript; it yields to
 * the event loop every few milliseconds.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { resolve } from "node:path";
import { systemErrorCode } from "../common/errors.ts";
import { parseRow } from "./format.ts";
import { sessionFiles } from "./list.ts";

export const DEFAULT_PRUNE_MIN_AGE_MS = 10 * 60 * 1000;

export interface PruneOptions {
  /** Paths never to delete (the caller's current session). */
  readonly keep?: readonly string[];
  /** Only files not modified for this long are candidates. Default 10 minutes. */
  readonly minAgeMs?: number;
  /** Clock for tests; default Date.now(). */
  readonly now?: number;
}

const READ_CHUNK_BYTES = 16 * 1024;

function isOldEnough(path: string, cutoff: number): boolean {
  try {
    return statSync(path).mtimeMs < cutoff;
  } catch {
    return false;
  }
}

/**
 * scanSession's verdict "the first valid row is meta and no line is typed
 * message", reading line by line and stopping at the first message row.
 * Any line typed "message" counts, even an invalid one: never delete what we
 * cannot read. Blank and unparseable lines are skipped, as scanSession does.
 */
function isEmptySession(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return false;
  }
  let firstType: string | undefined;
  /** false: a message row; undefined: keep reading. */
  const visit = (text: string): false | undefined => {
    if (text.trim() === "") return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (typeof raw === "object" && raw !== null && "type" in raw && raw.type === "message") return false;
    if (firstType === undefined) {
      const parsed = parseRow(raw);
      if (parsed.ok) firstType = parsed.row.type;
    }
    return undefined;
  };
  try {
    let pending = Buffer.alloc(0);
    for (;;) {
      const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      const read = readSync(fd, chunk, 0, READ_CHUNK_BYTES, null);
      const data = read === 0 ? pending : Buffer.concat([pending, chunk.subarray(0, read)]);
      let start = 0;
      for (let newline = data.indexOf(0x0a, start); newline !== -1; newline = data.indexOf(0x0a, start)) {
        if (visit(data.toString("utf8", start, newline)) === false) return false;
        start = newline + 1;
      }
      if (read === 0) {
        if (start < data.length && visit(data.toString("utf8", start)) === false) return false;
        return firstType === "meta";
      }
      pending = data.subarray(start);
    }
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/** Longest stretch of synchronous checks before yielding to the event loop. */
const SLICE_MS = 2;

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Deletes empty, stale session files in `dir`; returns the deleted paths. */
export async function pruneEmptySessions(dir: string, options: PruneOptions = {}): Promise<string[]> {
  const keep = new Set((options.keep ?? []).map((path) => resolve(path)));
  const cutoff = (options.now ?? Date.now()) - (options.minAgeMs ?? DEFAULT_PRUNE_MIN_AGE_MS);
  const removed: string[] = [];
  let sliceStart = performance.now();
  for (const path of await sessionFiles(dir)) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
    if (keep.has(resolve(path))) continue;
    if (!isOldEnough(path, cutoff)) continue;
    if (!isEmptySession(path)) continue;
    if (!isOldEnough(path, cutoff)) continue;
    try {
      await unlink(path);
      removed.push(path);
    } catch (err) {
      if (systemErrorCode(err) !== "ENOENT") throw err;
    }
  }
  return removed;
}
