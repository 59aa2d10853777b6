/**
 * Removing abandoned empty sessions from one cwd's directory. A file is
 * deleted only if ALL hold: its first line is a meta row (it is ours); it has
 * no message row, valid or not (nothing to lose); it was last modified more
 * than `minAgeMs` ago (another running zot's fresh file is never touched);
 * and it is not one of `keep` (the caller's own files). The age is checked
 * again just before unlinking. Should a live writer's file still be removed,
 * SessionWriter recreates it on its next append.
 */
import { readFile, stat, unlink } from "node:fs/promises";
import { resolve } from "node:path";
import { systemErrorCode } from "../common/errors.ts";
import { sessionFiles } from "./list.ts";
import { scanSession } from "./scan.ts";

export const DEFAULT_PRUNE_MIN_AGE_MS = 10 * 60 * 1000;

export interface PruneOptions {
  /** Paths never to delete (the caller's current session). */
  readonly keep?: readonly string[];
  /** Only files not modified for this long are candidates. Default 10 minutes. */
  readonly minAgeMs?: number;
  /** Clock for tests; default Date.now(). */
  readonly now?: number;
}

async function isOldEnough(path: string, cutoff: number): Promise<boolean> {
  try {
    return (await stat(path)).mtimeMs < cutoff;
  } catch {
    return false;
  }
}

async function isEmptySession(path: string): Promise<boolean> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    return false;
  }
  const scan = scanSession(bytes);
  const [first] = scan.rows;
  // Any line typed "message" counts, even an invalid one: never delete what we cannot read.
  return first?.row.type === "meta" && scan.messageRowCount === 0;
}

/** Deletes empty, stale session files in `dir`; returns the deleted paths. */
export async function pruneEmptySessions(dir: string, options: PruneOptions = {}): Promise<string[]> {
  const keep = new Set((options.keep ?? []).map((path) => resolve(path)));
  const cutoff = (options.now ?? Date.now()) - (options.minAgeMs ?? DEFAULT_PRUNE_MIN_AGE_MS);
  const removed: string[] = [];
  for (const path of await sessionFiles(dir)) {
    if (keep.has(resolve(path))) continue;
    if (!(await isOldEnough(path, cutoff))) continue;
    if (!(await isEmptySession(path))) continue;
    if (!(await isOldEnough(path, cutoff))) continue;
    try {
      await unlink(path);
      removed.push(path);
    } catch (err) {
      if (systemErrorCode(err) !== "ENOENT") throw err;
    }
  }
  return removed;
}
