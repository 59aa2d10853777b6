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
 * Synchronous on purpose: a few small files at setup.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { systemErrorCode } from "../common/errors.ts";
import { parseSkillFile } from "../skills/parse.ts";

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
    const path = join(dir, fileName);
    try {
      const stat = statSync(path);
      if (!stat.isFile()) continue;
      if (stat.size > MAX_DEFINITION_BYTES) {
        warnings.push(`${path}: agent definition over ${MAX_DEFINITION_BYTES} bytes; ignored`);
        continue;
      }
      const definition = parseAgentDefinition(readFileSync(path, "utf8"), path, fileName);
      if (!NAME.test(definition.name)) {
        warnings.push(`${path}: agent name ${JSON.stringify(definition.name)} must be 1-64 of letters, digits, _ . -; ignored`);
        continue;
      }
      found.push(definition);
    } catch (err) {
      warnings.push(`${path}: cannot be read (${systemErrorCode(err) ?? "error"}); ignored`);
    }
  }
  return found;
}

/** Project definitions first; a user definition whose name a project one took is dropped. */
export function discoverAgentDefinitions(options: { readonly cwd: string; readonly zotHome: string }): DefinitionDiscovery {
  const warnings: string[] = [];
  const byName = new Map<string, AgentDefinition>();
  for (const dir of [join(options.cwd, ".zot", "agents"), join(options.zotHome, "agents")]) {
    for (const definition of loadDirectory(dir, warnings)) if (!byName.has(definition.name)) byName.set(definition.name, definition);
  }
  return { definitions: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), warnings };
}
