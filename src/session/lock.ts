/**
 * One writer per session file. A zot that appends to a session holds an
 * exclusive advisory lock on it for as long as the file is open:
 *  - flock(2) (common/libc.ts) on the session file's own descriptor, where
 *    libc offers it (Linux, macOS). The kernel drops it with the descriptor,
 *    so every exit path releases it, kill -9 included.
 *  - Elsewhere, or where the file system refuses flock (ENOLCK, EINVAL...),
 *    a lock file `.<session file name>.lock` created with O_EXCL (0600)
 *    holding the writer's pid; it is removed on close. One left behind by a
 *    crash is stale once no process has that pid and is then taken over.
 *    This fallback fails safe: a live process that reuses the pid keeps the
 *    session locked until the lock file is deleted by hand.
 * A session another zot holds is reported as busy, with that zot's pid when
 * known: from the lock file; for a flock, from the kernel's lock table
 * (/proc/locks, Linux) or else the index file its writer keeps (written on
 * resume; a new session gets its first index when it closes or grows).
 * Only zots take these locks: the original Go zot does not.
 */
import { closeSync, fstatSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { EWOULDBLOCK, flock, LOCK_EX, LOCK_NB, LOCK_SH, LOCK_UN } from "../common/libc.ts";
import { systemErrorCode } from "../common/errors.ts";
import { PRIVATE_FILE_MODE } from "../common/private.ts";
import { readSmallFile, withRegularFile } from "../common/regular-file.ts";
import { indexWriterPid } from "./index-file.ts";

export interface SessionLock {
  readonly kind: "flock" | "lockfile";
  /** Releases the lock (the flock also goes with the descriptor). */
  release(): void;
}

export type LockAttempt =
  | { readonly ok: true; readonly lock: SessionLock }
  /** Another zot holds it. */
  | { readonly ok: false; readonly reason: "busy"; readonly holderPid?: number }
  /** No lock could be taken (the lock file cannot be created): fail closed. */
  | { readonly ok: false; readonly reason: "error"; readonly code: string };

/** How long a busy flock is retried: covers another zot's momentary probe (see isLockedByOther). */
const BUSY_RETRIES = 10;
const BUSY_RETRY_MS = 20;
/** A lock file younger than this without a readable pid is being written: busy. */
const FRESH_LOCK_FILE_MS = 5_000;

export function lockFilePathFor(sessionPath: string): string {
  return join(dirname(sessionPath), `.${basename(sessionPath)}.lock`);
}

/** True when a process with this pid exists (EPERM: exists, not ours). */
function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return systemErrorCode(err) === "EPERM";
  }
}

function livePid(pid: number | undefined): number | undefined {
  return pid !== undefined && pid !== process.pid && processAlive(pid) ? pid : undefined;
}

function readLockFilePid(path: string): number | undefined {
  const text = readSmallFile(path, 64)?.trim();
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

function lockFileAge(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Infinity;
  }
}

/** `dev` as /proc/locks prints it: `<major hex>:<minor hex>` (glibc's major/minor split of a dev_t). */
function procLocksDevice(dev: number): string {
  const high = Math.floor(dev / 0x1_0000_0000);
  const low = dev % 0x1_0000_0000;
  const major = ((low >>> 8) & 0xfff) | ((high & ~0xfff) >>> 0);
  const minor = (low & 0xff) | ((low >>> 12) & ~0xff);
  return `${major.toString(16).padStart(2, "0")}:${(minor >>> 0).toString(16).padStart(2, "0")}`;
}

/** The pid the kernel's lock table names as holding a flock on the file open as `fd` (Linux); undefined when unknown. */
function flockHolderPid(fd: number): number | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const stats = fstatSync(fd);
    const file = `${procLocksDevice(stats.dev)}:${stats.ino}`;
    // "1: FLOCK  ADVISORY  WRITE 4242 fe:00:2147084 0 EOF" (waiters read "1: -> FLOCK ...").
    for (const line of readFileSync("/proc/locks", "utf8").split("\n")) {
      const match = /^\d+: FLOCK\s+\S+\s+WRITE\s+(\d+)\s+(\S+)\s/.exec(line);
      if (match?.[2] === file) return Number(match[1]);
    }
  } catch {
    // no lock table: unknown
  }
  return undefined;
}

/** The O_EXCL lock-file fallback. */
export function lockWithLockFile(sessionPath: string): LockAttempt {
  const path = lockFilePathFor(sessionPath);
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, "wx", PRIVATE_FILE_MODE);
    } catch (err) {
      const code = systemErrorCode(err) ?? "error";
      if (code !== "EEXIST") return { ok: false, reason: "error", code };
      const pid = readLockFilePid(path);
      if (pid !== undefined ? processAlive(pid) : lockFileAge(path) < FRESH_LOCK_FILE_MS) {
        return pid === undefined ? { ok: false, reason: "busy" } : { ok: false, reason: "busy", holderPid: pid };
      }
      rmSync(path, { force: true }); // stale: its writer is gone
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    const release = (): void => {
      if (readLockFilePid(path) === process.pid) rmSync(path, { force: true });
    };
    return { ok: true, lock: { kind: "lockfile", release } };
  }
  return { ok: false, reason: "busy" };
}

/** Takes the exclusive lock on the session open as `fd` (any access mode). */
export function lockSession(fd: number, sessionPath: string): LockAttempt {
  for (let attempt = 0; ; attempt++) {
    const result = flock(fd, LOCK_EX | LOCK_NB);
    if (result.ok) return { ok: true, lock: { kind: "flock", release: () => void flock(fd, LOCK_UN) } };
    if (result.reason === "failed" && result.errno === EWOULDBLOCK) {
      if (attempt < BUSY_RETRIES) {
        Bun.sleepSync(BUSY_RETRY_MS);
        continue;
      }
      const holderPid = livePid(flockHolderPid(fd)) ?? livePid(indexWriterPid(sessionPath));
      return holderPid === undefined ? { ok: false, reason: "busy" } : { ok: false, reason: "busy", holderPid };
    }
    // No flock here (unsupported platform or file system): the lock-file fallback.
    return lockWithLockFile(sessionPath);
  }
}

/**
 * True when another zot holds the session's lock. Probes with a shared lock
 * released at once (a writer retries over that moment); a live lock file
 * counts too.
 */
export function isLockedByOther(sessionPath: string): boolean {
  const pid = readLockFilePid(lockFilePathFor(sessionPath));
  if (livePid(pid) !== undefined) return true;
  return withRegularFile(sessionPath, false, (fd) => {
    const result = flock(fd, LOCK_SH | LOCK_NB);
    return !result.ok && result.reason === "failed" && result.errno === EWOULDBLOCK;
  });
}
