/**
 * Installed extensions on disk, in both scopes: project
 * (`<cwd>/.zot/extensions/*`) first, then global (`$ZOT_HOME/extensions/*`).
 * A sub-directory without extension.json is not an installation and is
 * ignored, as are dot-directories (install staging dirs). A malformed
 * manifest is reported as an entry carrying its error, never skipped.
 * `findInstalled` resolves a user's query by manifest name OR directory name
 * across both scopes and refuses (naming every path) when it is ambiguous.
 */
import type { Dirent } from "node:fs";
import { lstat, readdir, readlink, realpath, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";
import type { ZotPaths } from "../common/home.ts";
import { ManifestError, hasManifest, loadManifest, type LoadedManifest } from "./manifest.ts";

export type ExtensionScope = "project" | "global";

export interface ExtensionRoot {
  readonly scope: ExtensionScope;
  /** Absolute directory holding one sub-directory per extension. */
  readonly root: string;
}

interface InstalledBase {
  readonly scope: ExtensionScope;
  /** Absolute extension directory. */
  readonly dir: string;
  /** Basename of `dir`: the other name a user may type. */
  readonly dirName: string;
}

export interface ValidInstall extends InstalledBase {
  readonly status: "ok";
  readonly loaded: LoadedManifest;
}

export interface InvalidInstall extends InstalledBase {
  readonly status: "invalid";
  readonly error: ZotError;
}

export type InstalledExtension = ValidInstall | InvalidInstall;

export interface ScopeOptions {
  /** Directory whose `.zot/extensions` is the project scope. */
  readonly cwd: string;
  readonly paths: ZotPaths;
}

export function projectExtensionsRoot(cwd: string): string {
  return join(resolve(cwd), ".zot", "extensions");
}

/**
 * Throws when the project's `.zot` or `.zot/extensions` is a symlink: zot
 * never installs, removes or rewrites project extensions through one (a
 * cloned repository could point it anywhere, and `remove` would delete
 * there). Missing directories are fine.
 */
export async function refuseLinkedProjectRoot(cwd: string): Promise<void> {
  for (const path of [join(resolve(cwd), ".zot"), projectExtensionsRoot(cwd)]) {
    let linked: boolean;
    try {
      linked = (await lstat(path)).isSymbolicLink();
    } catch {
      return;
    }
    if (linked) {
      throw new ZotError(
        "ext.project_root_symlink",
        `${path} is a symlink (-> ${await readlink(path)}); zot does not install, remove or change project extensions through a symlink`,
        { dir: path },
      );
    }
  }
}

async function realOrSelf(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The scanned roots, project first. When the project root is the global root
 * (cwd/.zot is $ZOT_HOME) it is listed once, as global.
 */
export async function extensionRoots(options: ScopeOptions): Promise<ExtensionRoot[]> {
  const project = projectExtensionsRoot(options.cwd);
  const global = resolve(options.paths.extensions);
  const roots: ExtensionRoot[] = [];
  if ((await realOrSelf(project)) !== (await realOrSelf(global))) roots.push({ scope: "project", root: project });
  roots.push({ scope: "global", root: global });
  return roots;
}

async function isDirectoryEntry(root: string, entry: Dirent): Promise<boolean> {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return (await stat(join(root, entry.name))).isDirectory();
  } catch {
    return false;
  }
}

async function describeInstall(scope: ExtensionScope, dir: string, dirName: string): Promise<InstalledExtension> {
  try {
    return { scope, dir, dirName, status: "ok", loaded: await loadManifest(dir) };
  } catch (err) {
    const error = err instanceof ZotError
      ? err
      : new ManifestError(dir, "", `cannot be loaded (${errorMessage(err)})`, err);
    return { scope, dir, dirName, status: "invalid", error };
  }
}

/** Every installation under one root, sorted by directory name. A missing root is empty. */
export async function scanRoot(root: ExtensionRoot): Promise<InstalledExtension[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(root.root, { withFileTypes: true });
  } catch (err) {
    const code = systemErrorCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw new ZotError("ext.scan_failed", `cannot read ${root.scope} extensions directory ${root.root} (${code ?? errorMessage(err)})`, {
      dir: root.root,
    }, { cause: err });
  }
  const names = entries.filter((entry) => !entry.name.startsWith(".")).sort((a, b) => a.name.localeCompare(b.name));
  const found: InstalledExtension[] = [];
  for (const entry of names) {
    if (!(await isDirectoryEntry(root.root, entry))) continue;
    const dir = join(root.root, entry.name);
    if (!hasManifest(dir)) continue;
    found.push(await describeInstall(root.scope, dir, entry.name));
  }
  return found;
}

/** Installations in both scopes, project entries first. */
export async function listInstalled(options: ScopeOptions): Promise<InstalledExtension[]> {
  const all: InstalledExtension[] = [];
  for (const root of await extensionRoots(options)) all.push(...(await scanRoot(root)));
  return all;
}

/** The manifest name of an installation, when its manifest is valid. */
export function manifestName(entry: InstalledExtension): string | undefined {
  return entry.status === "ok" ? entry.loaded.manifest.name : undefined;
}

function matches(entry: InstalledExtension, query: string): boolean {
  return entry.dirName === query || manifestName(entry) === query;
}

/**
 * The single installation named `query` (manifest name or directory name, in
 * either scope). Throws ZotError `ext.not_installed` when nothing matches and
 * `ext.ambiguous` (listing every match) when several directories do.
 */
export async function findInstalled(query: string, options: ScopeOptions): Promise<InstalledExtension> {
  const roots = await extensionRoots(options);
  const hits: InstalledExtension[] = [];
  for (const root of roots) {
    for (const entry of await scanRoot(root)) {
      if (matches(entry, query) && !hits.some((hit) => hit.dir === entry.dir)) hits.push(entry);
    }
  }
  const [only] = hits;
  if (only && hits.length === 1) return only;
  if (!only) {
    const looked = roots.map((root) => root.root).join(", ");
    throw new ZotError("ext.not_installed", `extension "${query}" is not installed (looked in ${looked})`, { extension: query });
  }
  const listing = hits.map((hit) => `  ${hit.dir} (${hit.scope}, ${describeMatch(hit, query)})`).join("\n");
  throw new ZotError(
    "ext.ambiguous",
    `"${query}" matches ${hits.length} installed extensions; nothing was changed:\n${listing}\n` +
      "use a name that matches only one installation (rename a directory if needed)",
    { extension: query, matches: hits.length },
  );
}

function describeMatch(entry: InstalledExtension, query: string): string {
  const byName = manifestName(entry) === query;
  const byDir = entry.dirName === query;
  if (byName && byDir) return "name and directory";
  return byName ? "manifest name" : "directory name";
}
