/**
 * Changes to an installed extension: enable/disable rewrites extension.json
 * atomically, keeping every other field and the original top-level key order
 * (`enabled` appears exactly once: in its first place, or appended), 2-space
 * indented with a trailing newline and the file's mode kept. It never writes
 * through a symlink: a symlinked extension directory or manifest is refused
 * with an error naming the link and its target (the atomic rename replaces
 * the directory entry, so a hardlinked manifest is not written through
 * either). Removal deletes the whole directory (state included) and requires
 * a manifest, so a stray directory is never deleted by name. Failures are
 * ZotErrors naming the file.
 */
import { chmod, lstat, readFile, readdir, readlink, rm, unlink } from "node:fs/promises";
import type { Stats } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../common/atomic.ts";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";
import { describeJsonProblem, parseJson, isPlainObject } from "../common/json.ts";
import { MANIFEST_FILE, hasManifest } from "./manifest.ts";

export type EnableOutcome = "changed" | "unchanged";

type JsonObject = Record<string, unknown>;

/** Index of the closing quote of the JSON string starting at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return text.length;
}

/**
 * Top-level keys of a JSON object text in source order (first occurrence).
 * JSON.parse loses this for integer-like keys, so it is read from the text.
 */
export function topLevelKeys(text: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      const end = stringEnd(text, i);
      if (depth === 1 && expectKey) {
        const key: unknown = JSON.parse(text.slice(i, end + 1));
        if (typeof key === "string" && !keys.includes(key)) keys.push(key);
        expectKey = false;
      }
      i = end;
    } else if (ch === "{" || ch === "[") {
      depth++;
      if (depth === 1) expectKey = ch === "{";
    } else if (ch === "}" || ch === "]") {
      depth--;
    } else if (ch === "," && depth === 1) {
      expectKey = true;
    }
  }
  return keys;
}

/** Serialises `object` with its top-level keys in `order`, 2-space indent, trailing newline. */
export function serialiseOrdered(object: JsonObject, order: readonly string[]): string {
  const keys = [...new Set(order)].filter((key) => Object.hasOwn(object, key));
  for (const key of Object.keys(object)) if (!keys.includes(key)) keys.push(key);
  if (keys.length === 0) return "{}\n";
  const lines = keys.map((key) => `  ${JSON.stringify(key)}: ${JSON.stringify(object[key], null, 2).replace(/\n/g, "\n  ")}`);
  return `{\n${lines.join(",\n")}\n}\n`;
}

/** lstat of `path`; a ZotError naming the link and its target when it is a symlink. */
async function refuseSymlink(path: string, what: string, manifest: string): Promise<Stats> {
  const info = await lstat(path);
  if (!info.isSymbolicLink()) return info;
  throw new ZotError(
    "ext.manifest_symlink",
    `${what}${path} is a symlink (-> ${await readlink(path)}); zot does not write through symlinks: ` +
      `set "enabled" in ${manifest} by hand`,
    { file: path },
  );
}

/**
 * Sets `enabled` in `<dir>/extension.json`. Returns "unchanged" (and writes
 * nothing) when the manifest already has that state (absent counts as true).
 */
export async function setEnabled(dir: string, enabled: boolean): Promise<EnableOutcome> {
  const declared = join(dir, MANIFEST_FILE);
  let text: string;
  let mode: number;
  try {
    await refuseSymlink(dir, "the extension directory ", declared);
    const info = await refuseSymlink(declared, "", declared);
    if (!info.isFile()) throw new ZotError("ext.manifest_unreadable", `${declared}: not a regular file`, { file: declared });
    mode = info.mode & 0o7777;
    text = await readFile(declared, "utf8");
  } catch (err) {
    if (err instanceof ZotError) throw err;
    throw new ZotError("ext.manifest_unreadable", `${declared}: cannot be read (${systemErrorCode(err) ?? errorMessage(err)})`, {
      file: declared,
    }, { cause: err });
  }
  const read = parseJson(text);
  if (!read.ok) {
    throw new ZotError("ext.manifest_invalid", `${declared}: is not valid JSON (${describeJsonProblem(read.problem)}); fix it by hand`, {
      file: declared,
    });
  }
  const parsed = read.value;
  if (!isPlainObject(parsed)) {
    throw new ZotError("ext.manifest_invalid", `${declared}: expected a JSON object`, { file: declared });
  }
  const alreadySet = parsed.enabled === enabled || (parsed.enabled === undefined && enabled);
  if (alreadySet) return "unchanged";
  const updated: JsonObject = { ...parsed, enabled };
  await writeFileAtomic(declared, serialiseOrdered(updated, [...topLevelKeys(text), "enabled"]), mode);
  return "changed";
}

async function makeWritable(path: string): Promise<void> {
  const info = await lstat(path);
  if (!info.isDirectory()) return;
  await chmod(path, (info.mode & 0o7777) | 0o700);
  for (const name of await readdir(path)) await makeWritable(join(path, name));
}

/**
 * Deletes a file tree. A symlink is unlinked, never followed. Read-only
 * directories (copied modes) are made writable and the delete retried.
 */
export async function removeTree(path: string): Promise<void> {
  let info: Stats;
  try {
    info = await lstat(path);
  } catch (err) {
    if (systemErrorCode(err) === "ENOENT") return;
    throw err;
  }
  if (info.isSymbolicLink()) {
    await unlink(path);
    return;
  }
  try {
    await rm(path, { recursive: true, force: true });
  } catch (err) {
    const code = systemErrorCode(err);
    if (code !== "EACCES" && code !== "EPERM") throw err;
    await makeWritable(path);
    await rm(path, { recursive: true, force: true });
  }
}

/** Deletes an installed extension directory, which must hold a manifest. */
export async function removeInstalled(dir: string): Promise<void> {
  if (!hasManifest(dir)) {
    throw new ZotError("ext.no_manifest", `${dir} has no ${MANIFEST_FILE}; refusing to delete it`, { dir });
  }
  try {
    await removeTree(dir);
  } catch (err) {
    throw new ZotError("ext.remove_failed", `cannot remove ${dir} (${systemErrorCode(err) ?? errorMessage(err)})`, { dir }, {
      cause: err,
    });
  }
}
