/**
 * Agent definitions: `<name>.md` files with a frontmatter block (the skills
 * parser: src/skills/parse.ts) in ./.zot/agents/ (project) and
 * $ZOT_HOME/agents/ (user; a project definition of the same name wins).
 * Recognised keys: name (default: the file name without .md), description,
 * tools (a list or comma-separated names), model. The body (trimmed) is the
 * child's system prompt; an empty body keeps the default prompt.
 *
 * Limits: at most MAX_DEFINITIONS files per directory (sorted by name, the
 * rest ignored with a warning), each at most MAX_DEFINITION_BYTES (a larger
 * one is skipped with a warning). Names are 1-64 of [A-Za-z0-9_.-]; a file
 * with another name is skipped with a warning. A directory that does not
 * exist is no error; an unreadable file is a warning naming it.
 * Extensions ship definitions through their manifest (`"agents": [...]`):
 * each entry, relative to the extension directory, is a directory of
 * `<name>.md` files (read like the directories above) or one `.md` file. An
 * entry that is empty, missing, or resolves outside the extension directory
 * (lexically or through a symlink) is ignored with a warning naming the
 * extension. Priority: project, then user, then extensions in discovery
 * order (a user file of the same name overrides an extension's).
 * Synchronous on purpose: a few small files at setup.
 */
import { readdirSync, realpathSync, statSync } from "node:fs";
import { basename, join, relative, resolve, isAbsolute } from "node:path";
import { systemErrorCode } from "../common/errors.ts";
import { parseSkillFile } from "../skills/parse.ts";
import { readRegularText } from "../common/regular-file.ts";

export const MAX_DEFINITIONS = 64;
export const MAX_DEFINITION_BYTES = 256 * 1024;
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export interface AgentDefinition {
  readonly name: string;
  readonly description: string | undefined;
  /** undefined: the parent's tool selection. */
  readonly tools: readonly string[] | undefined;
  readonly model: string | undefined;
  /** The child's system prompt ("" keeps the default). */
  readonly prompt: string;
  readonly path: string;
}

export interface DefinitionDiscovery {
  readonly definitions: readonly AgentDefinition[];
  readonly warnings: readonly string[];
}

function toolList(value: string | readonly string[] | undefined): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const names = typeof value === "string" ? value.split(",") : value;
  return names.map((name) => name.trim()).filter((name) => name !== "");
}

function scalar(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = (typeof value === "string" ? value : value.join(", ")).trim();
  return text === "" ? undefined : text;
}

/** Parses one definition file's text; undefined name → the file name. */
export function parseAgentDefinition(raw: string, path: string, fileName: string): AgentDefinition {
  const parsed = parseSkillFile(raw);
  return {
    name: parsed.name ?? fileName.replace(/\.md$/, ""),
    description: parsed.description,
    tools: toolList(parsed.others.tools),
    model: scalar(parsed.others.model),
    prompt: parsed.body,
    path,
  };
}

/** A manifest's `agents` entries (ext/manifest.ts), relative to its directory. */
export interface ExtensionAgentSource {
  readonly extension: string;
  readonly dir: string;
  readonly entries: readonly string[];
}

function loadFile(path: string, fileName: string, warnings: string[]): AgentDefinition | undefined {
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return undefined;
    if (stat.size > MAX_DEFINITION_BYTES) {
      warnings.push(`${path}: agent definition over ${MAX_DEFINITION_BYTES} bytes; ignored`);
      return undefined;
    }
    const definition = parseAgentDefinition(readRegularText(path), path, fileName);
    if (!NAME.test(definition.name)) {
      warnings.push(`${path}: agent name ${JSON.stringify(definition.name)} must be 1-64 of letters, digits, _ . -; ignored`);
      return undefined;
    }
    return definition;
  } catch (err) {
    warnings.push(`${path}: cannot be read (${systemErrorCode(err) ?? "error"}); ignored`);
    return undefined;
  }
}

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function loadExtensionEntry(source: ExtensionAgentSource, entry: string, warnings: string[]): AgentDefinition[] {
  const refuse = (why: string): AgentDefinition[] => {
    warnings.push(`extension "${source.extension}": agents entry ${JSON.stringify(entry)} ${why}; ignored`);
    return [];
  };
  if (entry.trim() === "") return refuse("is empty");
  const dir = resolve(source.dir);
  const target = resolve(dir, entry);
  if (!isInside(dir, target)) return refuse("is outside the extension directory");
  const realTarget = realOrUndefined(target);
  if (realTarget === undefined) return refuse("does not exist");
  if (!isInside(realOrUndefined(dir) ?? dir, realTarget)) return refuse("is outside the extension directory");
  let isDirectory: boolean;
  try {
    isDirectory = statSync(realTarget).isDirectory();
  } catch (err) {
    return refuse(`cannot be read (${systemErrorCode(err) ?? "error"})`);
  }
  if (isDirectory) return loadDirectory(realTarget, warnings);
  if (!target.endsWith(".md")) return refuse("is not a directory or a .md file");
  const definition = loadFile(realTarget, basename(target), warnings);
  return definition === undefined ? [] : [definition];
}

function loadDirectory(dir: string, warnings: string[]): AgentDefinition[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(".md") && !name.startsWith(".")).sort();
  } catch (err) {
    const code = systemErrorCode(err);
    if (code !== "ENOENT" && code !== "ENOTDIR") warnings.push(`${dir}: cannot be read (${code ?? "error"}); agent definitions there ignored`);
    return [];
  }
  if (names.length > MAX_DEFINITIONS) {
    warnings.push(`${dir}: more than ${MAX_DEFINITIONS} agent definitions; only the first ${MAX_DEFINITIONS} by name are used`);
    names = names.slice(0, MAX_DEFINITIONS);
  }
  const found: AgentDefinition[] = [];
  for (const fileName of names) {
    const definition = loadFile(join(dir, fileName), fileName, warnings);
    if (definition !== undefined) found.push(definition);
  }
  return found;
}

/** Project definitions first, then user, then extensions'; a later definition whose name an earlier one took is dropped. */
export function discoverAgentDefinitions(options: {
  readonly cwd: string;
  readonly zotHome: string;
  readonly extensions?: readonly ExtensionAgentSource[];
}): DefinitionDiscovery {
  const warnings: string[] = [];
  const byName = new Map<string, AgentDefinition>();
  const add = (definitions: readonly AgentDefinition[]): void => {
    for (const definition of definitions) if (!byName.has(definition.name)) byName.set(definition.name, definition);
  };
  for (const dir of [join(options.cwd, ".zot", "agents"), join(options.zotHome, "agents")]) add(loadDirectory(dir, warnings));
  for (const source of options.extensions ?? []) for (const entry of source.entries) add(loadExtensionEntry(source, entry, warnings));
  return { definitions: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), warnings };
}
