/**
 * Private files and directories: what zot keeps about a user (session
 * transcripts, their index files, auth.json, lock files) is readable by that
 * user only. Files are created 0600 (PRIVATE_FILE_MODE) in directories
 * created 0700 (PRIVATE_DIR_MODE). Existing ones that are group- or
 * world-accessible are tightened when zot opens them; tightening is best
 * effort (a file owned by someone else, a read-only file system) and never
 * fails the run. Creating a missing directory can fail: that error is thrown.
 */
import { chmodSync, fchmodSync, fstatSync, lstatSync, mkdirSync, statSync } from "node:fs";

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Permission bits that let someone other than the owner in. */
const OTHERS_BITS = 0o077;

/** Creates `dir` (and missing parents) 0700; tightens it to 0700 when it already exists with group/other bits. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  tightenPath(dir, PRIVATE_DIR_MODE);
}

/**
 * As ensurePrivateDir, for a directory whose path someone else could have
 * prepared: refuses (throws) when `dir` is a symlink or not a directory, or
 * belongs to another user.
 */
export function ensureOwnPrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const stats = lstatSync(dir);
  if (!stats.isDirectory()) throw new Error(`${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) throw new Error(`${dir} belongs to another user (uid ${stats.uid})`);
  if ((stats.mode & OTHERS_BITS) !== 0) chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Each directory in turn (outermost first), as ensurePrivateDir. */
export function ensurePrivateDirs(dirs: readonly string[]): void {
  for (const dir of dirs) ensurePrivateDir(dir);
}

/** chmod `path` to `mode` when it has group/other bits; never throws. */
export function tightenPath(path: string, mode: number = PRIVATE_FILE_MODE): void {
  try {
    if ((statSync(path).mode & OTHERS_BITS) !== 0) chmodSync(path, mode);
  } catch {
    // best effort: not ours, gone, or a read-only file system
  }
}

/** fchmod an open file to 0600 when it has group/other bits; never throws. */
export function tightenFd(fd: number): void {
  try {
    if ((fstatSync(fd).mode & OTHERS_BITS) !== 0) fchmodSync(fd, PRIVATE_FILE_MODE);
  } catch {
    // best effort
  }
}
