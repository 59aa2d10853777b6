/**
 * Full-output ("spill") files of the `bash` tool. A command whose output is
 * truncated in the result has its output saved, as it streams, to
 * `<dir>/zot-bash-<12 hex>.log`: the file is created 0600 (O_EXCL) in a
 * directory of zot's own, `$ZOT_HOME/tmp`, which is made 0700 (and tightened
 * to 0700 when it exists with looser bits). A spill file keeps at most
 * MAX_SPILL_BYTES, the HEAD of the output; the writer reports how much it
 * saved and whether it stopped at the cap. Spill files older than
 * SPILL_MAX_AGE_MS are removed by a sweep that runs once per process, in the
 * background, from the bash tool's first command (scheduleSpillSweep);
 * the sweep also removes old files of the same name pattern that earlier
 * versions left directly in $TMPDIR, and old `jail-tmp-*` directories (the
 * macOS sandbox's per-command temp dirs) that a killed zot left behind. The
 * files this process created are remembered by canonical path, so the read
 * tool may open them under --jail.
 */
import { lstat, open, readdir, realpath, rm, unlink, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveZotHome } from "../common/home.ts";
import { errorMessage } from "../common/errors.ts";
import { ensureOwnPrivateDir } from "../common/private.ts";

/** Most bytes one spill file keeps (64 MiB): the first part of the output. */
export const MAX_SPILL_BYTES = 64 * 1024 * 1024;
/** Spill files older than this (3 days, by mtime) are removed by the first bash command of a run. */
export const SPILL_MAX_AGE_MS = 3 * 24 * 60 * 60 * 1000;

const SPILL_NAME = /^zot-bash-[0-9a-f]{12}\.log$/;
/** Per-command private temp dirs of the macOS sandbox (removed after the command; swept if zot died first). */
const JAIL_TMP_NAME = /^jail-tmp-[A-Za-z0-9]{6}$/;

/** `$ZOT_HOME/tmp`, resolved when first needed. */
export function defaultSpillDir(): string {
  return join(resolveZotHome(), "tmp");
}

/** Canonical paths (symlinks resolved, as the jail check sees them) of the spill files this process created. */
const createdHere = new Set<string>();

/** True for the canonical path of a spill file this process created (the read tool may open it under --jail). */
export function isOwnSpillFile(path: string): boolean {
  return createdHere.has(path);
}

function spillName(): string {
  return `zot-bash-${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex")}.log`;
}

/** One spill file being written; never throws after creation (a write failure is kept as `error`). */
export class SpillFile {
  #handle: FileHandle | undefined;
  #saved = 0;
  #capped = false;
  #error: string | undefined;

  private constructor(
    readonly path: string,
    handle: FileHandle,
    private readonly cap: number,
  ) {
    this.#handle = handle;
  }

  /** Creates a new spill file in dir; the error text when that fails. */
  static async create(dir: string, cap = MAX_SPILL_BYTES): Promise<SpillFile | { readonly error: string }> {
    try {
      ensureOwnPrivateDir(dir);
      const path = join(dir, spillName());
      const handle = await open(path, "wx", 0o600);
      // $ZOT_HOME may be reached through a symlink; the read tool compares canonical paths.
      createdHere.add(await realpath(path).catch(() => path));
      return new SpillFile(path, handle, cap);
    } catch (err) {
      return { error: errorMessage(err) };
    }
  }

  /** Bytes written so far. */
  get savedBytes(): number {
    return this.#saved;
  }

  /** True once output was dropped because the cap was reached. */
  get capped(): boolean {
    return this.#capped;
  }

  get error(): string | undefined {
    return this.#error;
  }

  /** Appends bytes up to the cap; the rest is dropped and `capped` set. */
  async write(bytes: Uint8Array): Promise<void> {
    const handle = this.#handle;
    if (!handle || bytes.length === 0) return;
    const room = this.cap - this.#saved;
    const part = bytes.length <= room ? bytes : bytes.subarray(0, Math.max(0, room));
    if (part.length < bytes.length) this.#capped = true;
    if (part.length === 0) return;
    try {
      let written = 0;
      while (written < part.length) {
        const { bytesWritten } = await handle.write(part, written, part.length - written);
        written += bytesWritten;
      }
      this.#saved += part.length;
    } catch (err) {
      this.#error = errorMessage(err);
      await this.close();
    }
  }

  async close(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    if (handle) await handle.close().catch(() => undefined);
  }
}

/**
 * Removes spill files and jail temp dirs (by name pattern, of this user only)
 * older than maxAgeMs (by mtime) from each directory; returns how many were
 * removed. Missing directories and per-entry errors are skipped.
 */
export async function sweepSpillFiles(dirs: readonly string[], now = Date.now(), maxAgeMs = SPILL_MAX_AGE_MS): Promise<number> {
  const uid = process.getuid?.();
  let removed = 0;
  for (const dir of dirs) {
    for (const name of await readdir(dir).catch(() => [])) {
      const spill = SPILL_NAME.test(name);
      if (!spill && !JAIL_TMP_NAME.test(name)) continue;
      const path = join(dir, name);
      try {
        const stats = await lstat(path);
        if (spill ? !stats.isFile() : !stats.isDirectory()) continue;
        if ((uid !== undefined && stats.uid !== uid) || now - stats.mtimeMs <= maxAgeMs) continue;
        if (spill) await unlink(path);
        else await rm(path, { recursive: true, force: true });
        removed++;
      } catch {
        // Gone already, or not ours to remove.
      }
    }
  }
  return removed;
}

const sweptDirs = new Set<string>();

/** Starts (once per process and directory) a background sweep of dir and, for the default dir, $TMPDIR. */
export function scheduleSpillSweep(dir: string | undefined): void {
  const target = dir ?? defaultSpillDir();
  if (sweptDirs.has(target)) return;
  sweptDirs.add(target);
  const dirs = dir === undefined ? [target, tmpdir()] : [target];
  setTimeout(() => void sweepSpillFiles(dirs).catch(() => undefined), 0);
}
