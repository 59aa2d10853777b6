/**
 * Atomic file replacement: write a sibling temp file, fsync, rename over the
 * target. A crash or error leaves either the old file or the new one, never a
 * half-written mix.
 */
import { mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

let tempCounter = 0;

export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${++tempCounter}.tmp`);
  try {
    const handle = await open(temp, "w", mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
