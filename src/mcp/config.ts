/**
 * MINIMAL STAND-IN for issue 14 Part B's config loader (same path, same
 * exported signatures; the lead takes Part B's version at merge). Reads
 * `{"mcpServers": {name: {command, args, env, cwd, url, headers, prefix,
 * disabled}}}` from $ZOT_HOME/mcp.json, ./.zot/mcp.json (when
 * includeProject) and the --mcp files; later sources win by name (global <
 * project < flag). A file that cannot be read or parsed, or an entry of the
 * wrong shape, is a problem naming the file and server; the rest load.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import * as v from "valibot";
import { describeJsonProblem, parseJson } from "../common/json.ts";
import { describeProblem, firstProblem } from "../common/validation.ts";

export type McpScope = "global" | "project" | "flag";
export interface McpServerConfig {
  readonly name: string;
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly url?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly prefix?: string;
  readonly disabled?: boolean;
  readonly scope: McpScope;
  readonly file: string;
}
export interface McpConfigProblem { readonly file: string; readonly server?: string; readonly message: string }
export interface LoadMcpOptions { readonly home: string; readonly cwd: string; readonly flagFiles: readonly string[]; readonly includeProject: boolean }

const Entry = v.strictObject({
  command: v.optional(v.string()),
  args: v.optional(v.array(v.string())),
  env: v.optional(v.record(v.string(), v.string())),
  cwd: v.optional(v.string()),
  url: v.optional(v.string()),
  headers: v.optional(v.record(v.string(), v.string())),
  prefix: v.optional(v.string()),
  disabled: v.optional(v.boolean()),
  type: v.optional(v.string()),
});

export function mcpConfigPaths(home: string, cwd: string): { global: string; project: string } {
  return { global: join(home, "mcp.json"), project: join(cwd, ".zot", "mcp.json") };
}

export function hasAnyMcpConfig(opts: LoadMcpOptions): boolean {
  const paths = mcpConfigPaths(opts.home, opts.cwd);
  return opts.flagFiles.length > 0 || existsSync(paths.global) || (opts.includeProject && existsSync(paths.project));
}

function readFile(file: string, scope: McpScope, problems: McpConfigProblem[]): McpServerConfig[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if (scope !== "flag" && (err as { code?: string }).code === "ENOENT") return [];
    problems.push({ file, message: `${file}: cannot be read` });
    return [];
  }
  const parsed = parseJson(text);
  if (!parsed.ok) {
    problems.push({ file, message: `${file}: ${describeJsonProblem(parsed.problem)}` });
    return [];
  }
  const servers = (parsed.value as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    problems.push({ file, message: `${file}: field "mcpServers" must be an object` });
    return [];
  }
  const out: McpServerConfig[] = [];
  for (const [name, raw] of Object.entries(servers)) {
    const entry = v.safeParse(Entry, raw);
    if (!entry.success) {
      problems.push({ file, server: name, message: `${file}: mcpServers.${name}: ${describeProblem(firstProblem(entry.issues))}` });
      continue;
    }
    const { type: _type, cwd, ...rest } = entry.output;
    if (rest.command === undefined && rest.url === undefined) {
      problems.push({ file, server: name, message: `${file}: mcpServers.${name}: needs "command" or "url"` });
      continue;
    }
    out.push({ name, ...rest, ...(cwd !== undefined ? { cwd: resolve(dirname(file), cwd) } : {}), scope, file });
  }
  return out;
}

export async function loadMcpServers(opts: LoadMcpOptions): Promise<{ servers: McpServerConfig[]; problems: McpConfigProblem[] }> {
  const problems: McpConfigProblem[] = [];
  const paths = mcpConfigPaths(opts.home, opts.cwd);
  const byName = new Map<string, McpServerConfig>();
  const sources: [string, McpScope][] = [[paths.global, "global"]];
  if (opts.includeProject) sources.push([paths.project, "project"]);
  for (const file of opts.flagFiles) sources.push([resolve(opts.cwd, file), "flag"]);
  for (const [file, scope] of sources) for (const server of readFile(file, scope, problems)) byName.set(server.name, server);
  return { servers: [...byName.values()], problems };
}
