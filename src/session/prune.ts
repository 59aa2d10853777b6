/**
 * Removing abandoned empty sessions from one cwd's directory. A file is
 * deleted only if ALL hold: its first row is a meta row (it is ours); it has
 * no message row, valid or not (nothing to lose); it was last modified more
 * than `minAgeMs` ago (another running zot's fresh file is never touched);
 * no other zot holds its lock (lock.ts); and it is not one of `keep` (the
 * caller's own files). The age is checked again just before unlinking. Its
 * index file goes with it, and index files whose session is gone are
 * removed once they are as old. Should a live writer's file still be
 * removed (the original zot prunes without locking), SessionWriter
 * recreates it on its next append.
 *
 * It runs beside every session start, so it is cheap per file: a sync stat,
 * and for old files a read that stops at the first message row (usually in
 * the first chunk) instead of scanning the whole transcript; it yields to
 * the event loop every few milliseconds.
 */
import { readdirSync, statSync } from "node:fs";
import { rm, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { systemErrorCode } from "../common/errors.ts";
import { yieldToEventLoop } from "../common/yield.ts";
import { removeIndex } from "./index-file.ts";
import { sessionFiles, sessionHead } from "./list.ts";
import { isLockedByOther } from "./lock.ts";

export const DEFAULT_PRUNE_MIN_AGE_MS = 10 * 60 * 1000;

export interface PruneOptions {
  /** Paths never to delete (the caller's current session). */
  readonly keep?: readonly string[];
  /** Only files not modified for this long are candidates. Default 10 minutes. */
  readonly minAgeMs?: number;
  /** Clock for tests; default Date.now(). */
  readonly now?: number;
}

function isOldEnough(path: string, cutoff: number): boolean {
  try {
    return statSync(path).mtimeMs < cutoff;
  } catch {
    return false;
  }
}

/** Longest stretch of synchronous checks before yielding to the event loop. */
const SLICE_MS = 2;

const INDEX_NAME = /^\.(.+\.jsonl)\.idx$/;

async function removeOrphanIndexes(dir: string, cutoff: number): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const present = new Set(names);
  for (const name of names) {
    const session = INDEX_NAME.exec(name)?.[1];
    if (session === undefined || present.has(session)) continue;
    const path = join(dir, name);
    if (isOldEnough(path, cutoff)) await rm(path, { force: true });
  }
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
    if (sessionHead(path) !== "empty") continue;
    if (isLockedByOther(path) || !isOldEnough(path, cutoff)) continue;
    try {
      await unlink(path);
      removeIndex(path);
      removed.push(path);
    } catch (err) {
      if (systemErrorCode(err) !== "ENOENT") throw err;
    }
  }
  await removeOrphanIndexes(dir, cutoff);
  return removed;
}

