/**
 * The advisory lock that makes "check the name is free, then rename the
 * staged copy into place" atomic among zot processes installing into one
 * extensions root: flock(2) on the root directory itself (so no lock file
 * is ever left behind). The lock is taken without blocking
 * the event loop (LOCK_NB, retried every LOCK_RETRY_MS) for at most
 * LOCK_WAIT_MS, and the kernel drops it if the holder dies, so a killed
 * install never leaves it held. Where flock is unavailable (no libc through
 * bun:ffi, e.g. Windows) the section runs unlocked.
 */
import { type FileHandle, open } from "node:fs/promises";
import { EWOULDBLOCK, LOCK_EX, LOCK_NB, LOCK_UN, flock } from "../common/libc.ts";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";

const LOCK_RETRY_MS = 20;
/** The locked section is a few file-system calls; waiting this long means something is wrong. */
const LOCK_WAIT_MS = 30_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs `task` holding the install lock of `root` (which must exist). */
export async function withInstallLock<T>(root: string, signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
  let handle: FileHandle;
  try {
    handle = await open(root, "r");
  } catch (err) {
    throw new ZotError("ext.install_lock", `cannot open ${root} (${systemErrorCode(err) ?? errorMessage(err)})`, { file: root }, {
      cause: err,
    });
  }
  try {
    const until = Date.now() + LOCK_WAIT_MS;
    let locked = false;
    for (;;) {
      const result = flock(handle.fd, LOCK_EX | LOCK_NB);
      if (result.ok) {
        locked = true;
        break;
      }
      if (result.reason === "unsupported") break;
      if (result.errno !== EWOULDBLOCK) {
        throw new ZotError("ext.install_lock", `cannot lock ${root} (errno ${result.errno ?? "?"})`, { file: root });
      }
      if (signal?.aborted) throw new ZotError("ext.install_interrupted", "install interrupted; nothing was installed");
      if (Date.now() > until) {
        throw new ZotError("ext.install_lock", `another install holds ${root} for over ${LOCK_WAIT_MS / 1000} s; nothing was installed`, {
          file: root,
        });
      }
      await sleep(LOCK_RETRY_MS);
    }
    try {
      return await task();
    } finally {
      if (locked) flock(handle.fd, LOCK_UN);
    }
  } finally {
    await handle.close();
  }
}
