/**
 * Skill discovery. Sources, highest priority first (the first skill to claim
 * a name wins, later claimants are reported as shadowed):
 *   1. extension skills: each manifest `skills` entry, relative to the
 *      extension dir, is a directory scanned recursively for SKILL.md files
 *      or a direct path to one; entries resolving outside the extension dir
 *      (lexically or through symlinks) are refused with a warning;
 *   2. only with withUserSkills (--with-skills): the immediate subdirectories
 *      holding a SKILL.md of ./.zot/skills, $ZOT_HOME/skills, ./.claude/skills,
 *      ~/.claude/skills, ./.agents/skills, ~/.agents/skills (in that order);
 *   3. the built-in skills (so user skills shadow built-ins of the same name).
 * Only frontmatter is read here (see files.ts); bodies load when the skill is
 * used. All sources are scanned concurrently. Missing directories are
 * silent; other read failures become warnings. Nothing here throws.
 */
import { homedir } from "node:os";
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { readdir, realpath, stat } from "node:fs/promises";
import { errorMessage } from "../common/errors.ts";
import { BUILTIN_SKILLS } from "./builtin.ts";
import { type FileRead, isAbsentError, readSkillBody, readSkillHead } from "./files.ts";
import type { SkillFrontmatter } from "./parse.ts";

export const SKILL_FILE = "SKILL.md";
/** The `path` of a built-in skill. */
export const BUILTIN_SKILL_PATH = "builtin";
/** Directories never descended into when scanning an extension's skills. */
const SKIPPED_DIRS: ReadonlySet<string> = new Set(["node_modules"]);
const MAX_SCAN_DEPTH = 8;

export type SkillOrigin =
  | { readonly kind: "builtin" }
  | { readonly kind: "extension"; readonly extension: string }
  | { readonly kind: "user"; readonly root: string };

export type SkillBody = { readonly ok: true; readonly body: string } | { readonly ok: false; readonly error: string };

export interface Skill {
  readonly name: string;
  /** "" when the frontmatter has none. */
  readonly description: string;
  /** Absolute SKILL.md path, or BUILTIN_SKILL_PATH. */
  readonly path: string;
  readonly origin: SkillOrigin;
  /** Parsed from the frontmatter; not enforced. */
  readonly allowedTools: readonly string[];
  /** Parsed from the frontmatter; not enforced. */
  readonly permissions: Readonly<Record<string, readonly string[]>>;
  /** Reads the body (frontmatter removed, trimmed) on demand. */
  loadBody(): Promise<SkillBody>;
}

/** The `skills` of one extension manifest. */
export interface ExtensionSkillSource {
  readonly extension: string;
  /** Absolute directory holding the manifest. */
  readonly dir: string;
  readonly entries: readonly string[];
}

export interface SkillDiscoveryOptions {
  readonly cwd: string;
  /** $ZOT_HOME layout; only `home` is used. */
  readonly paths: { readonly home: string };
  /** --with-skills: also scan the user skill directories. */
  readonly withUserSkills: boolean;
  readonly extensionSkillSources: readonly ExtensionSkillSource[];
  /** The user's home directory (default os.homedir()). */
  readonly userHome?: string;
}

export interface ShadowedSkill {
  readonly name: string;
  readonly path: string;
  /** Path of the skill that holds the name. */
  readonly heldBy: string;
}

export interface SkillDiscovery {
  /** In priority order; names are unique. */
  readonly skills: Skill[];
  readonly shadowed: ShadowedSkill[];
  readonly warnings: string[];
}

/** Anything shaped like a DiscoveryReport entry (ext/discovery.ts) of a loaded extension or bundle. */
export interface ExtensionManifestEntry {
  readonly loaded: { readonly dir: string; readonly manifest: { readonly name: string; readonly skills?: readonly string[] | undefined } };
}

/** ExtensionSkillSources from discovery entries, in the given order (those without skills are dropped). */
export function extensionSkillSources(entries: readonly ExtensionManifestEntry[]): ExtensionSkillSource[] {
  return entries
    .filter((entry) => (entry.loaded.manifest.skills?.length ?? 0) > 0)
    .map((entry) => ({ extension: entry.loaded.manifest.name, dir: entry.loaded.dir, entries: entry.loaded.manifest.skills ?? [] }));
}

/** The user skill roots, highest priority first (reference notes §6.7). */
export function userSkillRoots(cwd: string, zotHome: string, userHome: string): string[] {
  return [
    join(cwd, ".zot", "skills"),
    join(zotHome, "skills"),
    join(cwd, ".claude", "skills"),
    join(userHome, ".claude", "skills"),
    join(cwd, ".agents", "skills"),
    join(userHome, ".agents", "skills"),
  ];
}

/** One SKILL.md found on disk, before names are settled. */
interface FoundSkill {
  readonly path: string;
  readonly defaultName: string;
  readonly origin: SkillOrigin;
  readonly frontmatter: SkillFrontmatter;
}

interface ScanResult {
  readonly found: FoundSkill[];
  readonly warnings: string[];
}

const EMPTY_SCAN: ScanResult = { found: [], warnings: [] };

function singleLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/** The name a file-backed skill gets when its frontmatter has none. */
function defaultSkillName(file: string): string {
  const base = basename(file);
  return base === SKILL_FILE ? basename(dirname(file)) : base.slice(0, base.length - extname(base).length);
}

async function readFound(path: string, defaultName: string, origin: SkillOrigin): Promise<ScanResult> {
  const head: FileRead<SkillFrontmatter> = await readSkillHead(path);
  if (head.kind === "absent") return EMPTY_SCAN;
  if (head.kind === "error") return { found: [], warnings: [head.message] };
  return { found: [{ path, defaultName, origin, frontmatter: head.value }], warnings: [] };
}

function merge(results: readonly ScanResult[]): ScanResult {
  return { found: results.flatMap((result) => result.found), warnings: results.flatMap((result) => result.warnings) };
}

async function realpathOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/** SKILL.md files under `dir`, recursively (no dot dirs, no node_modules, symlinked dirs not followed). */
async function scanTree(dir: string, depth: number, root: string, source: ExtensionSkillSource): Promise<ScanResult> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isAbsentError(err)) return EMPTY_SCAN;
    return { found: [], warnings: [`extension "${source.extension}": cannot read ${dir}: ${errorMessage(err)}`] };
  }
  const origin: SkillOrigin = { kind: "extension", extension: source.extension };
  const tasks: Promise<ScanResult>[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (entry.name === SKILL_FILE && (entry.isFile() || entry.isSymbolicLink())) {
      tasks.push(checkedFile(path, root, source, origin));
    } else if (entry.isDirectory() && !entry.name.startsWith(".") && !SKIPPED_DIRS.has(entry.name) && depth < MAX_SCAN_DEPTH) {
      tasks.push(scanTree(path, depth + 1, root, source));
    }
  }
  return merge(await Promise.all(tasks));
}

/** Reads one SKILL.md after making sure it does not resolve outside the extension's real directory. */
async function checkedFile(path: string, realRoot: string, source: ExtensionSkillSource, origin: SkillOrigin): Promise<ScanResult> {
  const real = await realpathOrUndefined(path);
  if (real === undefined) return EMPTY_SCAN;
  if (!isInside(realRoot, real)) {
    return { found: [], warnings: [`extension "${source.extension}": ${path} resolves outside the extension directory; ignored`] };
  }
  return readFound(path, defaultSkillName(path), origin);
}

async function scanExtensionEntry(source: ExtensionSkillSource, entry: string): Promise<ScanResult> {
  const refuse = (why: string): ScanResult => ({
    found: [],
    warnings: [`extension "${source.extension}": skills entry "${entry}" ${why}; ignored`],
  });
  const dir = resolve(source.dir);
  const target = resolve(dir, entry);
  if (entry.trim() === "") return refuse("is empty");
  if (!isInside(dir, target)) return refuse("is outside the extension directory");
  const realRoot = (await realpathOrUndefined(dir)) ?? dir;
  const realTarget = await realpathOrUndefined(target);
  if (realTarget === undefined) return refuse("does not exist");
  if (!isInside(realRoot, realTarget)) return refuse("is outside the extension directory");
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(realTarget)).isDirectory();
  } catch (err) {
    return { found: [], warnings: [`extension "${source.extension}": cannot read ${target}: ${errorMessage(err)}`] };
  }
  if (!isDirectory) return readFound(target, defaultSkillName(target), { kind: "extension", extension: source.extension });
  return scanTree(target, 0, realRoot, source);
}

async function scanUserRoot(root: string): Promise<ScanResult> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (err) {
    if (isAbsentError(err)) return EMPTY_SCAN;
    return { found: [], warnings: [`cannot read ${root}: ${errorMessage(err)}`] };
  }
  const origin: SkillOrigin = { kind: "user", root };
  const names = entries
    .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && !entry.name.startsWith("."))
    .map((entry) => entry.name)
    .sort();
  return merge(await Promise.all(names.map((name) => readFound(join(root, name, SKILL_FILE), name, origin))));
}

function fileSkill(found: FoundSkill): Skill {
  const { frontmatter } = found;
  return {
    name: singleLine(frontmatter.name ?? "") || found.defaultName,
    description: frontmatter.description ?? "",
    path: found.path,
    origin: found.origin,
    allowedTools: frontmatter.allowedTools,
    permissions: frontmatter.permissions,
    loadBody: async () => {
      const read = await readSkillBody(found.path);
      if (read.kind === "ok") return { ok: true, body: read.value };
      return { ok: false, error: read.kind === "absent" ? `${found.path} no longer exists` : read.message };
    },
  };
}

/** The built-in skills as Skill values. */
export function builtinSkills(): Skill[] {
  return BUILTIN_SKILLS.map((definition) => ({
    name: definition.name,
    description: definition.description,
    path: BUILTIN_SKILL_PATH,
    origin: { kind: "builtin" },
    allowedTools: [],
    permissions: {},
    loadBody: async () => ({ ok: true, body: definition.body }),
  }));
}

export async function discoverSkills(options: SkillDiscoveryOptions): Promise<SkillDiscovery> {
  const extensionScans = options.extensionSkillSources.flatMap((source) =>
    source.entries.map((entry) => scanExtensionEntry(source, entry)),
  );
  const userHome = options.userHome ?? homedir();
  const roots = options.withUserSkills ? [...new Set(userSkillRoots(resolve(options.cwd), options.paths.home, userHome).map((root) => resolve(root)))] : [];
  const userScans = roots.map((root) => scanUserRoot(root));
  const scanned = merge(await Promise.all([...extensionScans, ...userScans]));

  const skills: Skill[] = [];
  const shadowed: ShadowedSkill[] = [];
  const byName = new Map<string, Skill>();
  const seenPaths = new Set<string>();
  const claim = (skill: Skill): void => {
    const holder = byName.get(skill.name);
    if (holder !== undefined) {
      shadowed.push({ name: skill.name, path: skill.path, heldBy: holder.path });
      return;
    }
    byName.set(skill.name, skill);
    skills.push(skill);
  };
  for (const found of scanned.found) {
    if (seenPaths.has(found.path)) continue;
    seenPaths.add(found.path);
    claim(fileSkill(found));
  }
  for (const skill of builtinSkills()) claim(skill);
  return { skills, shadowed, warnings: scanned.warnings };
}

/** Skills a user listing (/skills) shows: everything but the built-ins. */
export function visibleSkills(skills: readonly Skill[]): Skill[] {
  return skills.filter((skill) => skill.origin.kind !== "builtin");
}
