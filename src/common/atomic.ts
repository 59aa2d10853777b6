/**
 * Atomic file replacement: write a sibling temp file, fsync, rename over the
 * target. A crash or error leaves either the old file or the new one, never a
 * half-written mix. `verify`, when given, runs synchronously right before the
 * rename (nothing else runs in between); throwing from it aborts the
 * replacement (the temp file is removed and the error rethrown), which lets a
 * caller refuse to replace a file that changed since it read it. The error
 * thrown is the write's own (EROFS, ENOSPC, …), never the temp file's cleanup.
 */
import { renameSync } from "node:fs";
import { mkdir, open, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

let tempCounter = 0;

export interface AtomicWriteOptions {
  /** Mode of the new file (default 0644). */
  readonly mode?: number;
  /** Checked synchronously just before the rename; throw to abort. */
  readonly verify?: () => void;
}

export async function writeFileAtomic(path: string, data: string | Uint8Array, modeOrOptions: number | AtomicWriteOptions = 0o644): Promise<void> {
  const options = typeof modeOrOptions === "number" ? { mode: modeOrOptions } : modeOrOptions;
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${++tempCounter}.tmp`);
  try {
    const handle = await open(temp, "w", options.mode ?? 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    options.verify?.();
    renameSync(temp, path);
  } catch (err) {
    // The failure is what the caller needs to hear, not a cleanup that fails the same way (a read-only directory).
    await rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
}
