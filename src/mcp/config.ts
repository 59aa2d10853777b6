/**
 * MCP server configuration (docs/mcp.md "Configuration"): `$ZOT_HOME/mcp.json`
 * (scope "global"), `./.zot/mcp.json` (scope "project", skipped entirely with
 * `includeProject: false`) and each `--mcp <file>` (scope "flag"), in the
 * `{"mcpServers": {"<name>": {…}}}` shape other agents write. Merged by server
 * name: project wins over global, flag files over both, a later flag file over
 * an earlier one. Each entry is validated on its own (valibot): a bad entry is
 * a problem naming the file, the server and the field, and is left out (a
 * lower scope's entry of that name then applies); an unreadable or unparseable
 * file, or one larger than MAX_MCP_FILE_BYTES, is one problem naming the file.
 * A problem's `message` is the whole line a user sees, file (and server)
 * included: `<file>: server "x": field "args": expected an array of strings`.
 * `${VAR}` and `${VAR:-default}` in command, args, env, url and headers expand
 * from the environment (an unset variable without a default is a problem); a
 * relative `cwd` resolves against the config file's directory. Nothing is read
 * by `hasAnyMcpConfig` (config-paths.ts: existsSync only, importable without
 * loading this module). Writing lives in config-write.ts.
 */
import { statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import * as v from "valibot";
import { errorMessage, systemErrorCode } from "../common/errors.ts";
import { MAX_JSON_DEPTH, describeJsonProblem, parseJson } from "../common/json.ts";
import { describeProblem, firstProblem } from "../common/validation.ts";
import { mcpConfigPaths } from "./config-paths.ts";
import { readRegularText } from "../common/regular-file.ts";

export type McpScope = "global" | "project" | "flag";
export interface McpServerConfig {
  readonly name: string;                 // key in mcpServers
  readonly command?: string;             // stdio
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;                 // resolved absolute
  readonly url?: string;                 // Streamable HTTP
  readonly headers?: Readonly<Record<string, string>>;
  readonly prefix?: string;              // tool name prefix, default `${name}__`? (Part A decides the default naming)
  readonly disabled?: boolean;
  readonly scope: McpScope;
  readonly file: string;                 // the config file it came from
  /** command / args / url as the file has them, `${VAR}`s not expanded: what `zot mcp list` shows (no secret from the environment). */
  readonly asWritten?: { readonly command?: string; readonly args?: readonly string[]; readonly url?: string };
}
export interface McpConfigProblem { readonly file: string; readonly server?: string; readonly message: string }
export interface LoadMcpOptions { readonly home: string; readonly cwd: string; readonly flagFiles: readonly string[]; readonly includeProject: boolean }

/** Largest config file read, in bytes; a larger one is a problem and is ignored. */
export const MAX_MCP_FILE_BYTES = 1024 * 1024;
/** Most servers taken from one file; the rest are a problem. */
export const MAX_MCP_SERVERS_PER_FILE = 256;
/** Server names: what `<server>__<tool>` tool names can carry. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

export { hasAnyMcpConfig, mcpConfigPaths } from "./config-paths.ts";

const stringRecord = v.record(v.string(), v.string("expected a string"), "expected an object of strings");

/** One `mcpServers` entry as written (unknown keys such as other agents' `timeout` or `alwaysAllow` are ignored). */
export const ServerEntrySchema = v.looseObject({
  type: v.optional(v.string("expected a string")),
  command: v.optional(v.pipe(v.string("expected a string"), v.nonEmpty("expected a non-empty string"))),
  args: v.optional(v.array(v.string("expected a string"), "expected an array of strings")),
  env: v.optional(stringRecord),
  cwd: v.optional(v.pipe(v.string("expected a string"), v.nonEmpty("expected a non-empty string"))),
  url: v.optional(v.pipe(v.string("expected a string"), v.nonEmpty("expected a non-empty string"))),
  headers: v.optional(stringRecord),
  prefix: v.optional(v.pipe(v.string("expected a string"), v.regex(/^[A-Za-z0-9_.-]{0,64}$/, "expected at most 64 letters, digits, _ . -"))),
  disabled: v.optional(v.boolean("expected true or false")),
}, "expected an object");

type ServerEntry = v.InferOutput<typeof ServerEntrySchema>;

const STDIO_TYPES = new Set(["stdio"]);
const HTTP_TYPES = new Set(["http", "streamable-http", "streamableHttp"]);

/** Thrown inside this module only: becomes one problem for the server. */
class EntryProblem extends Error {}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands `${VAR}` and `${VAR:-default}` (default also for an empty VAR); an unset VAR without a default throws naming `field`. */
export function expandVariables(text: string, env: Readonly<Record<string, string | undefined>>, field: string): string {
  return text.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && (value !== "" || fallback === undefined)) return value;
    if (fallback !== undefined) return fallback;
    throw new EntryProblem(`field "${field}": environment variable ${name} is not set (write \${${name}:-default} for a default)`);
  });
}

function expandRecord(record: Readonly<Record<string, string>> | undefined, env: Readonly<Record<string, string | undefined>>, field: string): Record<string, string> | undefined {
  if (record === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record)) out[key] = expandVariables(value, env, `${field}.${key}`);
  return out;
}

/** Validates and expands one entry; throws EntryProblem with the field at fault. */
function toServer(name: string, raw: unknown, file: string, scope: McpScope, env: Readonly<Record<string, string | undefined>>): McpServerConfig {
  if (!MCP_SERVER_NAME.test(name)) throw new EntryProblem("server name must be 1-64 letters, digits, _ . - (starting with a letter, digit or _)");
  const parsed = v.safeParse(ServerEntrySchema, raw);
  if (!parsed.success) throw new EntryProblem(describeProblem(firstProblem(parsed.issues)));
  const entry: ServerEntry = parsed.output;
  const type = entry.type;
  if (type === "sse") throw new EntryProblem('field "type": legacy SSE transport is not supported (use the server\'s Streamable HTTP endpoint)');
  if (type !== undefined && !STDIO_TYPES.has(type) && !HTTP_TYPES.has(type)) {
    throw new EntryProblem(`field "type": expected "stdio", "http" or "streamable-http" (got "${type}")`);
  }
  const wantsHttp = type !== undefined ? HTTP_TYPES.has(type) : entry.url !== undefined;
  const common = { name, scope, file, ...(entry.prefix !== undefined ? { prefix: entry.prefix } : {}), ...(entry.disabled === true ? { disabled: true } : {}) };
  if (wantsHttp) {
    if (entry.url === undefined) throw new EntryProblem('field "url": required for a Streamable HTTP server');
    if (entry.command !== undefined) throw new EntryProblem('field "command": a server has either "command" (stdio) or "url" (HTTP), not both');
    const url = expandVariables(entry.url, env, "url");
    let parsedUrl: URL;
    try {
      parsedUrl = new URL(url);
    } catch {
      throw new EntryProblem('field "url": not a valid URL');
    }
    if (parsedUrl.protocol !== "http:" && parsedUrl.protocol !== "https:") throw new EntryProblem(`field "url": expected an http:// or https:// URL (got ${parsedUrl.protocol})`);
    const headers = expandRecord(entry.headers, env, "headers");
    return { ...common, url, ...(headers ? { headers } : {}), asWritten: { url: entry.url } };
  }
  if (entry.command === undefined) throw new EntryProblem('field "command": required (or "url" for a Streamable HTTP server)');
  if (entry.url !== undefined) throw new EntryProblem('field "url": a server has either "command" (stdio) or "url" (HTTP), not both');
  const command = expandVariables(entry.command, env, "command");
  const args = entry.args?.map((arg, index) => expandVariables(arg, env, `args.${index}`));
  const serverEnv = expandRecord(entry.env, env, "env");
  const cwd = entry.cwd === undefined ? undefined : isAbsolute(entry.cwd) ? entry.cwd : resolve(dirname(file), entry.cwd);
  return {
    ...common, command, ...(args ? { args } : {}), ...(serverEnv ? { env: serverEnv } : {}), ...(cwd ? { cwd } : {}),
    asWritten: { command: entry.command, ...(entry.args ? { args: entry.args } : {}) },
  };
}

export interface McpFileRead {
  /** Parsed entries by name (validated), in file order. */
  readonly servers: McpServerConfig[];
  readonly problems: McpConfigProblem[];
  /** False when the file does not exist. */
  readonly exists: boolean;
}

/** Reads one config file; never throws. */
export function readMcpFile(file: string, scope: McpScope, env: Readonly<Record<string, string | undefined>> = process.env): McpFileRead {
  const problems: McpConfigProblem[] = [];
  const servers: McpServerConfig[] = [];
  const fail = (message: string): McpFileRead => ({ servers, problems: [{ file, message: `${file}: ${message}` }], exists: true });
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_MCP_FILE_BYTES) return fail(`larger than ${MAX_MCP_FILE_BYTES / 1024 / 1024} MiB (${size} bytes); ignored`);
    text = readRegularText(file);
  } catch (err) {
    if (systemErrorCode(err) === "ENOENT") {
      return scope === "flag" ? fail("no such file") : { servers, problems, exists: false };
    }
    return fail(`cannot be read (${errorMessage(err)})`);
  }
  if (text.trim() === "") return { servers, problems, exists: true };
  const parsed = parseJson(text, MAX_JSON_DEPTH);
  if (!parsed.ok) return fail(`not valid JSON (${describeJsonProblem(parsed.problem)}); ignored`);
  const top = parsed.value;
  if (typeof top !== "object" || top === null || Array.isArray(top)) return fail("expected a JSON object with an \"mcpServers\" field; ignored");
  const table = (top as Record<string, unknown>).mcpServers;
  if (table === undefined) return { servers, problems, exists: true };
  if (typeof table !== "object" || table === null || Array.isArray(table)) return fail('field "mcpServers": expected an object of servers by name; ignored');
  const names = Object.keys(table);
  if (names.length > MAX_MCP_SERVERS_PER_FILE) {
    problems.push({ file, message: `${file}: more than ${MAX_MCP_SERVERS_PER_FILE} servers; only the first ${MAX_MCP_SERVERS_PER_FILE} are read` });
  }
  for (const name of names.slice(0, MAX_MCP_SERVERS_PER_FILE)) {
    try {
      servers.push(toServer(name, (table as Record<string, unknown>)[name], file, scope, env));
    } catch (err) {
      if (!(err instanceof EntryProblem)) throw err;
      problems.push({ file, server: name, message: `${file}: server "${name}": ${err.message}` });
    }
  }
  return { servers, problems, exists: true };
}

/** The files to read, lowest precedence first. */
export function mcpConfigSources(opts: LoadMcpOptions): { file: string; scope: McpScope }[] {
  const paths = mcpConfigPaths(opts.home, opts.cwd);
  return [
    { file: paths.global, scope: "global" },
    ...(opts.includeProject ? [{ file: paths.project, scope: "project" as const }] : []),
    ...opts.flagFiles.map((file) => ({ file: resolve(opts.cwd, file), scope: "flag" as const })),
  ];
}

export async function loadMcpServers(opts: LoadMcpOptions): Promise<{ servers: McpServerConfig[]; problems: McpConfigProblem[] }> {
  const byName = new Map<string, McpServerConfig>();
  const problems: McpConfigProblem[] = [];
  for (const source of mcpConfigSources(opts)) {
    const read = readMcpFile(source.file, source.scope);
    problems.push(...read.problems);
    for (const server of read.servers) {
      byName.delete(server.name); // a winner takes the place of its own file order
      byName.set(server.name, server);
    }
  }
  return { servers: [...byName.values()], problems };
}


/** "stdio" or "http". */
export function mcpTransportKind(server: Pick<McpServerConfig, "url">): "stdio" | "http" {
  return server.url !== undefined ? "http" : "stdio";
}
