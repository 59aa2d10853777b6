/**
 * `zot ext install <path|git-url>`: puts a copy of an extension into the
 * global (`$ZOT_HOME/extensions`) or project (`<cwd>/.zot/extensions`) root.
 * A local path is copied recursively (file modes kept, less group/other
 * write: installedMode; hardlinked files
 * become independent copies) without following symlinks: a symlink whose
 * target is inside the source tree is recreated as a relative symlink to the
 * same place in the copy, one that points outside the tree (or nowhere) fails
 * the install with an error naming it. A git URL is shallow-cloned with the
 * system `git`; a clone holding a symlink that resolves outside it (or
 * nowhere) fails the same way. Either way the copy lands in a staging dir
 * `.install-<pid>-<random>` inside the root (a killed install's leftover is
 * swept by the next install once its process is gone), its extension.json must validate, and
 * then, under an advisory lock on the root directory (install-lock.ts),
 * the directory and manifest names are checked free and the staging dir is
 * renamed into place: of two concurrent installs of one name exactly one
 * lands. Any failure or interruption (the caller's AbortSignal) deletes the
 * staging dir: nothing half-installed remains and an existing install is
 * never overwritten.
 */
import type { Stats } from "node:fs";
import { chmod, copyFile, lstat, mkdir, mkdtemp, readdir, readlink, realpath, rename, stat, symlink } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";
import type { ZotPaths } from "../common/home.ts";
import { pidExists } from "../common/platform.ts";
import { canonicalPath } from "../tools/paths.ts";
import { trackSpawned } from "../common/process-tree.ts";
import { manifestName, projectExtensionsRoot, refuseLinkedProjectRoot, scanRoot, type ExtensionScope } from "./installed.ts";
import { withInstallLock } from "./install-lock.ts";
import { removeTree } from "./manage.ts";
import { MANIFEST_FILE, ManifestError, hasManifest, loadManifest, type LoadedManifest } from "./manifest.ts";

export interface InstallOptions {
  readonly paths: ZotPaths;
  /** Resolves relative source paths and locates the project scope. */
  readonly cwd: string;
  /** Install into `<cwd>/.zot/extensions` instead of the global root. */
  readonly project: boolean;
  /** Directory name to install under; defaults to the source basename. */
  readonly name?: string;
  /** Aborting stops the copy/clone and rolls back. */
  readonly signal?: AbortSignal;
}

export type SourceKind = "path" | "git";

export interface InstallResult {
  readonly kind: SourceKind;
  readonly scope: ExtensionScope;
  /** Final absolute extension directory. */
  readonly dest: string;
  readonly name: string;
  readonly version?: string;
}

const GIT_SCHEME = /^(?:https?|ssh|git|file):\/\//i;
const SCP_LIKE = /^[A-Za-z0-9._-]+@[^\s:/]+:/;

/** Whether `source` is cloned (URL schemes, scp-like `git@host:path`, `*.git`) rather than copied. */
export function isGitUrl(source: string): boolean {
  return GIT_SCHEME.test(source) || SCP_LIKE.test(source) || /\.git\/*$/i.test(source);
}

/** The default directory name: the last path segment of the source, `.git` stripped. */
export function defaultDirName(source: string, kind: SourceKind, cwd: string): string {
  if (kind === "path") return basename(resolve(cwd, source));
  const trimmed = source.replace(/[?#].*$/, "").replace(/\/+$/, "").replace(/\.git$/i, "");
  const segments = trimmed.split(/[/:\\]/);
  return segments[segments.length - 1] ?? "";
}

function checkDirName(name: string, explicit: boolean): void {
  const bad = name === "" || name === "." || name === ".." || /[/\\\0]/.test(name) || name.startsWith(".") ||
    name.startsWith("-");
  if (!bad) return;
  const detail = `"${name}" cannot be an extension directory name (no separators, must not start with '.' or '-')`;
  throw new ZotError("ext.bad_dir_name", explicit ? `--name: ${detail}` : `${detail}; pass --name <dir>`, { name });
}

function interrupted(): ZotError {
  return new ZotError("ext.install_interrupted", "install interrupted; nothing was installed");
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw interrupted();
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (err) {
    const code = systemErrorCode(err);
    if (code === "ENOENT") return false;
    // ENOTDIR: a parent (the extensions dir itself) is not a directory: name it, not the path under it.
    const parent = dirname(path);
    const detail = code === "ENOTDIR" ? `${parent} is not a directory` : `cannot check ${path} (${code ?? errorMessage(err)})`;
    throw new ZotError("ext.install_failed", `cannot install: ${detail}`, { dir: code === "ENOTDIR" ? parent : path }, { cause: err });
  }
}

async function ensureAbsent(dest: string, dirName: string): Promise<void> {
  if (!(await exists(dest))) return;
  const hint = hasManifest(dest)
    ? `run 'zot ext remove ${dirName}' first`
    : `it has no ${MANIFEST_FILE} (leftover state?); remove it by hand or pass --name <dir>`;
  throw new ZotError("ext.exists", `${dest} already exists; ${hint}`, { dir: dest });
}

/** The source directory, which must exist and hold a valid manifest. */
async function checkSourceDir(dir: string): Promise<Stats> {
  let info: Stats;
  try {
    info = await stat(dir);
  } catch (err) {
    const code = systemErrorCode(err);
    const detail = code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? errorMessage(err)})`;
    throw new ZotError("ext.source_missing", `source ${dir} ${detail}`, { dir }, { cause: err });
  }
  if (!info.isDirectory()) throw new ZotError("ext.source_not_dir", `source ${dir} is not a directory`, { dir });
  await loadManifest(dir);
  return info;
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root + sep);
}

async function refuseSelfCopy(sourceDir: string, destRoot: string): Promise<void> {
  const source = await realpath(sourceDir);
  // The destination may not exist yet (it is made after this check, so a refused install leaves no empty dir behind).
  const root = await canonicalPath(destRoot);
  if (isInside(root, source)) {
    throw new ZotError("ext.install_into_self", `cannot install ${sourceDir}: the destination ${destRoot} is inside it`, {
      dir: sourceDir,
    });
  }
}

/** The source tree being copied: where it really is and where the copy goes. */
interface CopyTree {
  readonly sourceDir: string;
  readonly realSource: string;
  readonly staging: string;
}

async function linkText(path: string): Promise<string> {
  try {
    return await readlink(path);
  } catch {
    return "?";
  }
}

/** The real path a symlink resolves to, which must lie inside `realRoot`. */
async function linkTargetInside(link: string, realRoot: string, shown: string, context: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(link);
  } catch (err) {
    const code = systemErrorCode(err);
    const detail = code === "ENOENT" ? "dangling symlink" : `cannot resolve symlink (${code ?? errorMessage(err)})`;
    throw new ZotError("ext.copy_failed", `${context}: ${shown}: ${detail} (-> ${await linkText(link)})`, { file: link }, { cause: err });
  }
  if (!isInside(real, realRoot)) {
    throw new ZotError(
      "ext.symlink_outside",
      `${context}: symlink ${shown} points outside the extension (-> ${await linkText(link)}); ` +
        "zot does not follow links out of an extension: replace it with a copy or remove it",
      { file: link, target: real },
    );
  }
  return real;
}

/** Recreates a symlink of the source as a relative link to the same place in the copy. */
async function copySymlink(source: string, target: string, tree: CopyTree): Promise<void> {
  const real = await linkTargetInside(source, tree.realSource, source, `cannot install ${tree.sourceDir}`);
  const inCopy = join(tree.staging, relative(tree.realSource, real));
  await symlink(relative(dirname(target), inCopy) || ".", target);
}

/**
 * Copies the contents of `from` into the existing directory `to`. Symlinks
 * are never followed (see copySymlink); a special file (FIFO, socket,
 * device) fails the copy. Directory modes are applied after their contents
 * are written.
 */
async function copyContents(from: string, to: string, tree: CopyTree, signal?: AbortSignal): Promise<void> {
  for (const entry of await readdir(from)) {
    throwIfAborted(signal);
    const source = join(from, entry);
    const target = join(to, entry);
    const info = await lstat(source);
    if (info.isSymbolicLink()) {
      await copySymlink(source, target, tree);
    } else if (info.isDirectory()) {
      await mkdir(target, { mode: 0o700 });
      await copyContents(source, target, tree, signal);
      await chmod(target, installedMode(info.mode));
    } else if (info.isFile()) {
      await copyFile(source, target);
      await chmod(target, installedMode(info.mode));
    } else {
      throw new ZotError("ext.copy_failed", `cannot copy ${source}: not a regular file or directory`, { file: source });
    }
  }
}

async function copySource(sourceDir: string, rootInfo: Stats, staging: string, signal?: AbortSignal): Promise<void> {
  try {
    const tree: CopyTree = { sourceDir, realSource: await realpath(sourceDir), staging };
    await copyContents(sourceDir, staging, tree, signal);
  } catch (err) {
    if (err instanceof ZotError) throw err;
    throw new ZotError("ext.copy_failed", `copying ${sourceDir} failed (${systemErrorCode(err) ?? errorMessage(err)})`, {
      dir: sourceDir,
    }, { cause: err });
  }
  await chmod(staging, installedMode(rootInfo.mode));
}

/** Refuses a clone holding a symlink that resolves outside it (or nowhere); `.git` included. */
async function checkClonedLinks(staging: string, url: string): Promise<void> {
  const realRoot = await realpath(staging);
  const pending = [staging];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isSymbolicLink()) {
        await linkTargetInside(path, realRoot, relative(staging, path), `cannot install ${url}`);
      }
    }
  }
}

function indent(text: string): string {
  return text.split("\n").map((line) => `  ${line}`).join("\n");
}

/** `git clone --depth 1 -- <url> <staging>`; no terminal prompts; stderr shown on failure. */
async function cloneInto(url: string, staging: string, cwd: string, signal?: AbortSignal): Promise<void> {
  let proc: Bun.Subprocess<"ignore", "ignore", "pipe">;
  try {
    proc = Bun.spawn(["git", "clone", "--depth", "1", "--quiet", "--", url, staging], {
      cwd,
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    trackSpawned(proc);
  } catch (err) {
    throw new ZotError("ext.git_unavailable", `cannot run git to clone ${url} (${errorMessage(err)}); is git installed?`, {
      source: url,
    }, { cause: err });
  }
  const stop = (): void => {
    proc.kill("SIGTERM");
  };
  signal?.addEventListener("abort", stop, { once: true });
  try {
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    throwIfAborted(signal);
    if (code !== 0) {
      const detail = stderr.trim() ? `:\n${indent(stderr.trim())}` : "";
      throw new ZotError("ext.clone_failed", `git clone ${url} failed (exit ${code})${detail}`, { source: url });
    }
  } finally {
    signal?.removeEventListener("abort", stop);
  }
  await chmod(staging, 0o755);
}

/** Validates the staged manifest, reporting problems against the source, not the staging path. */
async function validateStaged(staging: string, source: string): Promise<LoadedManifest> {
  try {
    return await loadManifest(staging);
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    const prefix = `${join(staging, MANIFEST_FILE)}: `;
    const detail = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
    throw new ZotError("ext.invalid_manifest", `${source}: ${MANIFEST_FILE} ${detail}; nothing was installed`, {
      source,
      field: err.field,
    }, { cause: err });
  }
}

/** Two installs with one manifest name in one scope would clash at startup. */
async function ensureNameFree(name: string, scope: ExtensionScope, root: string): Promise<void> {
  for (const entry of await scanRoot({ scope, root })) {
    if (manifestName(entry) === name) {
      throw new ZotError(
        "ext.name_taken",
        `an extension named "${name}" is already installed at ${entry.dir}; run 'zot ext remove ${entry.dirName}' first`,
        { extension: name, dir: entry.dir },
      );
    }
  }
}

/**
 * The mode a copied file or directory gets: the source's, without write
 * permission for group and others (an install in a shared directory must
 * not leave code others can change and you then run), as `cp` under the
 * usual umask 022 would.
 */
function installedMode(mode: number): number {
  return mode & 0o7777 & ~0o022;
}

const STAGING_PREFIX = ".install-";
/** An old-style staging dir (no pid in its name) older than this is a leftover. */
const STALE_STAGING_MS = 24 * 60 * 60 * 1000;

/**
 * Removes staging dirs an install that could not clean up left behind
 * (SIGKILL, a crash, power loss): `.install-<pid>-*` whose process is gone,
 * and older ones without a pid after a day. Best effort: a failure leaves
 * the dir for the next install.
 */
async function sweepStaleStaging(destRoot: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(destRoot);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(STAGING_PREFIX)) continue;
    const path = join(destRoot, name);
    const pid = /^\.install-(\d+)-/.exec(name)?.[1];
    try {
      const stale = pid !== undefined ? !pidExists(Number(pid)) : Date.now() - (await lstat(path)).mtimeMs > STALE_STAGING_MS;
      if (stale) await removeTree(path);
    } catch {
      // left for the next install
    }
  }
}

async function discardStaging(staging: string, cause: unknown): Promise<never> {
  try {
    await removeTree(staging);
  } catch (err) {
    const detail = `${errorMessage(cause)} (and the staging directory ${staging} could not be removed: ${errorMessage(err)})`;
    throw new ZotError(cause instanceof ZotError ? cause.code : "ext.install_failed", detail, { dir: staging }, { cause });
  }
  throw cause;
}

export async function installExtension(source: string, options: InstallOptions): Promise<InstallResult> {
  const { cwd, signal } = options;
  const kind: SourceKind = isGitUrl(source) ? "git" : "path";
  const scope: ExtensionScope = options.project ? "project" : "global";
  if (options.project) await refuseLinkedProjectRoot(cwd);
  const destRoot = options.project ? projectExtensionsRoot(cwd) : resolve(options.paths.extensions);
  const dirName = options.name ?? defaultDirName(source, kind, cwd);
  checkDirName(dirName, options.name !== undefined);
  const dest = join(destRoot, dirName);
  const sourceDir = resolve(cwd, source);
  const sourceInfo = kind === "path" ? await checkSourceDir(sourceDir) : undefined;
  await ensureAbsent(dest, dirName);
  if (sourceInfo) await refuseSelfCopy(sourceDir, destRoot);
  throwIfAborted(signal);

  let staging: string;
  try {
    await mkdir(destRoot, { recursive: true, mode: 0o755 });
    await sweepStaleStaging(destRoot);
    staging = await mkdtemp(join(destRoot, `${STAGING_PREFIX}${process.pid}-`));
  } catch (err) {
    // A read-only $ZOT_HOME, an `extensions` that is a file…: an error naming the place, not an internal one.
    throw new ZotError("ext.install_failed", `cannot install into ${destRoot} (${systemErrorCode(err) ?? errorMessage(err)})`, { dir: destRoot }, { cause: err });
  }
  try {
    if (sourceInfo) await copySource(sourceDir, sourceInfo, staging, signal);
    else {
      await cloneInto(source, staging, cwd, signal);
      await checkClonedLinks(staging, source);
    }
    throwIfAborted(signal);
    const loaded = await validateStaged(staging, kind === "path" ? sourceDir : source);
    await withInstallLock(destRoot, signal, async () => {
      await ensureNameFree(loaded.manifest.name, scope, destRoot);
      await ensureAbsent(dest, dirName);
      throwIfAborted(signal);
      await rename(staging, dest);
    });
    return { kind, scope, dest, name: loaded.manifest.name, version: loaded.manifest.version };
  } catch (err) {
    return discardStaging(staging, err);
  }
}
