/**
 * Path handling shared by the file tools: `~/` expansion, resolution against
 * the tool cwd, canonicalisation through symlinks (also for paths that do not
 * exist yet, via their nearest existing ancestor and dangling links), and the
 * jail check: under --jail a path must resolve to the root or below it, and
 * an existing regular file with more than one hard link is refused too (a
 * hard link has no direction, so one inside the jail may be the same file as
 * one outside; finding the other names would mean scanning the file system).
 * With `ownSpillFiles` (the read tool), spill files of this process's own
 * bash commands may be read although they live outside the root. With
 * `forWriting` (write, edit), the root's `.zot` directory is refused under
 * --jail: it holds what zot itself starts with the user's full rights
 * (project extensions and their files, MCP servers, skills), so a jailed
 * model must not change it (bash gets it read-only too: sandbox-linux.ts,
 * sandbox-macos.ts). Nothing here throws for an expected failure: results
 * are values.
 */
import { lstat, readlink, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { systemErrorCode } from "../common/errors.ts";
import { isOwnSpillFile } from "./bash-spill.ts";
import { textOutcome, type ToolContext, type ToolOutcome } from "./types.ts";

/** Symlink hops followed before giving up (matches the usual ELOOP limit). */
const MAX_LINK_HOPS = 40;

/** Expands a leading `~` / `~/` and resolves relative paths against cwd. */
export function resolveToolPath(cwd: string, path: string): string {
  let expanded = path;
  if (path === "~") expanded = homedir();
  else if (path.startsWith("~/")) expanded = join(homedir(), path.slice(2));
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}

/**
 * The real location of an absolute path with every symlink resolved. Missing
 * trailing components are appended to the canonical form of the nearest
 * existing ancestor; a dangling symlink is followed to where it points.
 */
export async function canonicalPath(path: string, hops = 0): Promise<string> {
  try {
    const real = await realpath(path);
    // A /proc magic link (`/proc/self/fd/1` → `pipe:[4952637]`) names no file: not a path to resolve against anything.
    if (!isAbsolute(real)) throw Object.assign(new Error(`does not name a file (it is ${real})`), { code: "EINVAL" });
    return real;
  } catch (err) {
    const code = systemErrorCode(err);
    if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
  }
  if (hops > MAX_LINK_HOPS) throw Object.assign(new Error("too many levels of symbolic links"), { code: "ELOOP" });
  const linkTarget = await danglingLinkTarget(path);
  if (linkTarget !== undefined) return canonicalPath(resolve(dirname(path), linkTarget), hops + 1);
  const parent = dirname(path);
  if (parent === path) return path;
  return join(await canonicalPath(parent, hops), basename(path));
}

async function danglingLinkTarget(path: string): Promise<string | undefined> {
  try {
    const stats = await lstat(path);
    return stats.isSymbolicLink() ? await readlink(path) : undefined;
  } catch {
    return undefined;
  }
}

export function isWithin(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

export type PathCheck =
  | { readonly ok: true; readonly absolute: string; readonly canonical: string }
  | { readonly ok: false; readonly outcome: ToolOutcome };

export interface PathCheckOptions {
  /** Also allow, under --jail, the spill files this process's bash commands wrote (read-only use). */
  readonly ownSpillFiles?: boolean;
  /** The tool changes the file: under --jail the root's `.zot` directory is refused (see the header). */
  readonly forWriting?: boolean;
}

/** The project directory zot starts code from (extensions, MCP servers, skills): read-only under --jail. */
export const PROTECTED_PROJECT_DIR = ".zot";

/** The canonical jail root (the root as given when it cannot be resolved). */
export async function canonicalJailRoot(jailRoot: string): Promise<string> {
  try {
    return await canonicalPath(resolve(jailRoot));
  } catch {
    return resolve(jailRoot);
  }
}

/** The refusal of a file with several hard links under --jail. */
export function hardLinkRefusal(path: string, links: number): ToolOutcome {
  const text =
    `jailed: "${path}" has ${links} hard links; under --jail a file with more than one link is refused, ` +
    "because another link may be outside the sandbox root (copy the file to break the link)";
  return textOutcome(text, true, { status: "blocked", details: { path, hard_links: links } });
}

/**
 * Resolves a tool's path argument and, when ctx.jailRoot is set, refuses it
 * (status "blocked") unless its canonical form is the root or under it and it
 * is not a regular file with several hard links.
 */
export async function checkToolPath(ctx: ToolContext, path: string, options: PathCheckOptions = {}): Promise<PathCheck> {
  const absolute = resolveToolPath(ctx.cwd, path);
  let canonical: string;
  try {
    canonical = await canonicalPath(absolute);
  } catch (err) {
    return { ok: false, outcome: textOutcome(describeFsError(err, path), true) };
  }
  if (ctx.jailRoot === undefined) return { ok: true, absolute, canonical };
  const root = await canonicalJailRoot(ctx.jailRoot);
  if (!isWithin(root, canonical) && !(options.ownSpillFiles === true && isOwnSpillFile(canonical))) {
    const text = `jailed: path "${path}" is outside sandbox root "${ctx.jailRoot}"`;
    return { ok: false, outcome: textOutcome(text, true, { status: "blocked", details: { path, jail_root: ctx.jailRoot } }) };
  }
  if (options.forWriting === true && isWithin(join(root, PROTECTED_PROJECT_DIR), canonical)) {
    const text =
      `jailed: path "${path}" is in the project's ${PROTECTED_PROJECT_DIR} directory, which holds what zot itself runs ` +
      "(extensions, MCP servers, skills); it is read-only under --jail";
    return { ok: false, outcome: textOutcome(text, true, { status: "blocked", details: { path, jail_root: ctx.jailRoot } }) };
  }
  try {
    const stats = await stat(canonical);
    if (stats.isFile() && stats.nlink > 1) return { ok: false, outcome: hardLinkRefusal(path, stats.nlink) };
  } catch {
    // Missing (a new file) or unreadable: the tool reports it.
  }
  return { ok: true, absolute, canonical };
}

/** One line describing a file-system failure, naming the path as the model gave it. */
export function describeFsError(err: unknown, path: string): string {
  switch (systemErrorCode(err)) {
    case "ENOENT":
      return `${path}: no such file or directory`;
    case "ENOTDIR":
      return `${path}: a parent of this path is not a directory`;
    case "EACCES":
    case "EPERM":
      return `${path}: permission denied`;
    case "EISDIR":
      return `${path} is a directory`;
    case "ELOOP":
      return `${path}: too many levels of symbolic links`;
    default:
      return `${path}: ${err instanceof Error ? err.message : String(err)}`;
  }
}
