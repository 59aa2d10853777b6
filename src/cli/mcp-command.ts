/**
 * `zot mcp …`: list, add, remove|rm, enable, disable, doctor (docs/mcp.md
 * "zot mcp"), in the style of `zot ext`. Command definitions are citty's
 * (their usage text comes from renderUsage); argv is parsed strictly here
 * (node:util parseArgs; unknown flags, missing values, extra or missing
 * positionals are usage errors: one `zot: …` line plus a hint, exit 2).
 * `add` takes the server's command after `--`. Other failures are ZotErrors
 * naming the file (and server, and field) for main.ts to print, exit 1;
 * config problems make `list` and `doctor` exit 1 after their output.
 * SIGINT/SIGTERM/SIGHUP during `doctor` close every server it started,
 * print what was found, and exit 128 + the signal's number. `doctor` starts
 * the servers of ./.zot/mcp.json only in a trusted project (or --trust /
 * ZOT_TRUST=1: mcp-doctor-trust.ts), as `zot ext doctor` does.
 * Results go to stdout, notes and hints to stderr; header and env values are
 * never printed (they hold tokens). `--cwd <dir>` picks the project whose
 * .zot/mcp.json is read (default: the process cwd).
 */
import { currentDirectory, resolveFromCwd } from "../common/cwd.ts";
import { type ArgsDef, type CommandDef, defineCommand } from "citty";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { didYouMean } from "../common/did-you-mean.ts";
import { UsageError, ZotError } from "../common/errors.ts";
import { resolveZotHome, zotPaths } from "../common/home.ts";
import { projectServersBlocked, withRunFallbacks } from "./mcp-doctor-trust.ts";
import { loadMcpServers, mcpConfigPaths, mcpTransportKind, MCP_SERVER_NAME, type McpServerConfig } from "../mcp/config.ts";
import { stdoutInterrupted } from "../common/stdout.ts";
import { type HandledSignal, SIGNAL_EXIT_CODES } from "../common/signal-exit.ts";
import { describeFailure, writeStderr, writeStdout } from "./output.ts";
import { renderTable } from "./table.ts";
import { timeoutFlagMs } from "./timeout-flag.ts";
import { usageText } from "./usage-text.ts";

const MCP_USAGE_HINT = "run 'zot mcp --help' for usage";
const DEFAULT_DOCTOR_TIMEOUT_MS = 10_000;
const STOP_SIGNALS: readonly HandledSignal[] = ["SIGINT", "SIGTERM", "SIGHUP"];

const cwdArg = { type: "string", valueHint: "dir", description: "project directory whose .zot/mcp.json is used (default: current)" } as const;
const nameArg = { type: "positional", required: true, description: "server name (the key in mcpServers)" } as const;
const projectArg = { type: "boolean", description: "use ./.zot/mcp.json instead of $ZOT_HOME/mcp.json" } as const;
const mcpFileArg = { type: "string", valueHint: "file", description: "also read this mcp.json, as 'zot --mcp' does (repeatable)" } as const;
const jsonArg = { type: "boolean", description: "print one JSON document instead of text" } as const;

/** Flags that may be given more than once. */
const REPEATABLE = new Set(["header", "env", "mcp"]);

type Values = Record<string, string | boolean | string[] | undefined>;
interface Parsed {
  readonly values: Values;
  readonly positionals: string[];
  /** What followed `--` (add only). */
  readonly rest: string[];
}

function place(cwd: unknown): { home: string; cwd: string } {
  return { home: resolveZotHome(), cwd: typeof cwd === "string" ? resolveFromCwd(cwd) : currentDirectory() };
}

function list(values: Values, key: string): string[] {
  const value = values[key];
  return Array.isArray(value) ? value : [];
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The command or URL as the file has it (`${VAR}` not expanded: a token from the environment is never printed). */
function target(server: McpServerConfig): string {
  const shown = server.asWritten ?? server;
  return shown.url ?? [shown.command ?? "", ...(shown.args ?? [])].map(shellWord).join(" ");
}

async function loadFor(values: Values): Promise<{ servers: McpServerConfig[]; problems: string[] }> {
  const { home, cwd } = place(values.cwd);
  const loaded = await loadMcpServers({ home, cwd, flagFiles: list(values, "mcp"), includeProject: true });
  return { servers: loaded.servers, problems: loaded.problems.map((problem) => problem.message) };
}

/** What `list --json` and `doctor --json` say about a server: never header or env values, nor what a `${VAR}` expanded to. */
function describeServer(server: McpServerConfig): Record<string, unknown> {
  const shown = server.asWritten ?? server;
  return {
    name: server.name, scope: server.scope, file: server.file, transport: mcpTransportKind(server), enabled: server.disabled !== true,
    ...(server.url !== undefined ? { url: shown.url, headers: Object.keys(server.headers ?? {}) } : { command: shown.command, args: shown.args ?? [], env: Object.keys(server.env ?? {}) }),
    ...(server.cwd !== undefined ? { cwd: server.cwd } : {}), ...(server.prefix !== undefined ? { prefix: server.prefix } : {}),
  };
}

const listCommand = defineCommand({
  meta: { name: "list", description: "list configured MCP servers: name, scope, transport, enabled, command or url" },
  args: { json: jsonArg, mcp: mcpFileArg, cwd: cwdArg },
});

async function runList({ values }: Parsed): Promise<number> {
  const { servers, problems } = await loadFor(values);
  if (values.json === true) {
    await writeStdout(`${JSON.stringify({ servers: servers.map(describeServer), problems }, null, 2)}\n`);
  } else if (servers.length > 0) {
    const rows = servers.map((server) => [server.name, server.scope, mcpTransportKind(server), server.disabled ? "no" : "yes", target(server)]);
    await writeStdout(renderTable([["NAME", "SCOPE", "TRANSPORT", "ENABLED", "COMMAND / URL"], ...rows]));
  } else if (problems.length === 0) {
    await writeStderr("no MCP servers configured\nadd one with 'zot mcp add <name> -- <command> [args…]' or 'zot mcp add <name> --url <url>'\n");
  }
  if (problems.length > 0 && values.json !== true) await writeStderr(problems.map((problem) => `zot: ${problem}\n`).join(""));
  return problems.length > 0 ? 1 : 0;
}

const addCommand = defineCommand({
  meta: { name: "add", description: "add a server: 'add <name> -- <command> [args…]' (stdio) or 'add <name> --url <url>' (Streamable HTTP)" },
  args: {
    name: nameArg,
    url: { type: "string", valueHint: "url", description: "Streamable HTTP endpoint (http:// or https://)" },
    header: { type: "string", valueHint: "K=V", description: "HTTP header sent on every request, e.g. 'Authorization=Bearer ${TOKEN}' (repeatable)" },
    env: { type: "string", valueHint: "K=V", description: "environment variable for a stdio server (repeatable)" },
    prefix: { type: "string", valueHint: "text", description: "prefix of the server's tool names" },
    project: { type: "boolean", description: "write ./.zot/mcp.json instead of $ZOT_HOME/mcp.json" },
    cwd: cwdArg,
  },
});

function pairs(values: Values, flag: "header" | "env"): Record<string, string> | undefined {
  const entries = list(values, flag);
  if (entries.length === 0) return undefined;
  const out: Record<string, string> = {};
  const keyPattern = flag === "env" ? /^[A-Za-z_][A-Za-z0-9_]*$/ : /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
  for (const entry of entries) {
    const eq = entry.indexOf("=");
    const key = eq === -1 ? entry : entry.slice(0, eq);
    if (eq === -1 || !keyPattern.test(key)) {
      throw new UsageError(`--${flag} needs K=V with a valid ${flag === "env" ? "variable" : "header"} name (got "${key}")`, { flag: `--${flag}` });
    }
    const value = entry.slice(eq + 1);
    // A line break or NUL can never be sent (the transport refuses it at every start): refused now, not in a later run.
    if (/[\0\r\n]/.test(value)) throw new UsageError(`--${flag} ${key}: the value holds a line break or NUL`, { flag: `--${flag}` });
    out[key] = value;
  }
  return out;
}

function newEntry({ values, rest }: Parsed): Record<string, unknown> {
  const url = typeof values.url === "string" ? values.url : undefined;
  if (url !== undefined && rest.length > 0) throw new UsageError("give either --url <url> or -- <command> [args…], not both");
  if (url === undefined && rest.length === 0) throw new UsageError("'zot mcp add' needs -- <command> [args…] (stdio) or --url <url> (Streamable HTTP)");
  const prefix = typeof values.prefix === "string" ? { prefix: values.prefix } : {};
  if (prefix.prefix !== undefined && !/^[A-Za-z0-9_.-]{0,64}$/.test(prefix.prefix)) throw new UsageError("--prefix must be at most 64 letters, digits, _ . -", { flag: "--prefix" });
  if (url !== undefined) {
    if (list(values, "env").length > 0) throw new UsageError("--env is for stdio servers; an HTTP server takes --header");
    if (!url.includes("${")) {
      let protocol = "";
      try {
        protocol = new URL(url).protocol;
      } catch {
        throw new UsageError(`--url: "${url}" is not a valid URL`, { flag: "--url" });
      }
      if (protocol !== "http:" && protocol !== "https:") throw new UsageError(`--url: expected an http:// or https:// URL (got ${protocol})`, { flag: "--url" });
    }
    const headers = pairs(values, "header");
    return { type: "http", url, ...(headers ? { headers } : {}), ...prefix };
  }
  if (list(values, "header").length > 0) throw new UsageError("--header is for HTTP servers (--url); a stdio server takes --env");
  const env = pairs(values, "env");
  return { command: rest[0], args: rest.slice(1), ...(env ? { env } : {}), ...prefix };
}

async function runAdd(parsed: Parsed): Promise<number> {
  const name = parsed.positionals[0]!;
  if (!MCP_SERVER_NAME.test(name)) throw new UsageError(`server name "${name}" must be 1-64 letters, digits, _ . - (starting with a letter, digit or _)`);
  const entry = newEntry(parsed);
  const { home, cwd } = place(parsed.values.cwd);
  const paths = mcpConfigPaths(home, cwd);
  const project = parsed.values.project === true;
  const file = project ? paths.project : paths.global;
  const { editMcpFile, readMcpDocument } = await import("../mcp/config-write.ts");
  await editMcpFile(file, { scope: project ? "project" : "global" }, (servers) => {
    if (Object.hasOwn(servers, name)) throw new ZotError("mcp.server_exists", `${file}: server "${name}" already exists (remove it first: zot mcp remove ${name}${project ? " --project" : ""})`, { file, server: name });
    servers[name] = entry;
    return true;
  });
  await writeStdout(`added ${name} (${entry.url === undefined ? "stdio" : "http"}) to ${file}\n`);
  if (!project && Object.hasOwn(readMcpServersQuietly(readMcpDocument, paths.project), name)) {
    await writeStderr(`note: ${paths.project} also defines "${name}", and the project's entry wins\n`);
  }
  return 0;
}

function readMcpServersQuietly(read: (path: string) => { servers: Record<string, unknown> }, path: string): Record<string, unknown> {
  try {
    return read(path).servers;
  } catch {
    return {};
  }
}

function scopedCommand(name: string, description: string): CommandDef<ArgsDef> {
  return defineCommand({
    meta: { name, description },
    args: { name: nameArg, project: projectArg, cwd: cwdArg },
  }) as CommandDef<ArgsDef>;
}

/** The file `remove` / `enable` / `disable` edit, and whether the server is in it. */
async function chooseFile(parsed: Parsed, verb: "remove" | "toggle"): Promise<{ file: string; scope: "global" | "project" }> {
  const name = parsed.positionals[0]!;
  const { home, cwd } = place(parsed.values.cwd);
  const paths = mcpConfigPaths(home, cwd);
  const { readMcpDocument } = await import("../mcp/config-write.ts");
  if (parsed.values.project === true) return { file: paths.project, scope: "project" };
  // Without --project: remove works on the global file; enable/disable on the entry in effect (the project's when it has one).
  // A broken project file is an error here: it may define the name, and then its entry is the one in effect.
  if (verb === "toggle" && Object.hasOwn(readMcpDocument(paths.project).servers, name)) return { file: paths.project, scope: "project" };
  if (verb === "remove" && !Object.hasOwn(readMcpDocument(paths.global).servers, name) && Object.hasOwn(readMcpServersQuietly(readMcpDocument, paths.project), name)) {
    throw new ZotError("mcp.not_found", `${paths.global}: no server "${name}" (it is in ${paths.project}: pass --project)`, { file: paths.global, server: name });
  }
  return { file: paths.global, scope: "global" };
}

async function runRemove(parsed: Parsed): Promise<number> {
  const name = parsed.positionals[0]!;
  const { file, scope } = await chooseFile(parsed, "remove");
  const { editMcpFile } = await import("../mcp/config-write.ts");
  await editMcpFile(file, { scope }, (servers) => {
    if (!Object.hasOwn(servers, name)) throw new ZotError("mcp.not_found", `${file}: no server "${name}"`, { file, server: name });
    delete servers[name];
    return true;
  });
  await writeStdout(`removed ${name} from ${file}\n`);
  return 0;
}

async function runToggle(parsed: Parsed, enabled: boolean): Promise<number> {
  const name = parsed.positionals[0]!;
  const { file, scope } = await chooseFile(parsed, "toggle");
  const { editMcpFile } = await import("../mcp/config-write.ts");
  let changed = false;
  await editMcpFile(file, { scope }, (servers) => {
    if (!Object.hasOwn(servers, name)) throw new ZotError("mcp.not_found", `${file}: no server "${name}"`, { file, server: name });
    const entry = servers[name];
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw new ZotError("mcp.config_unwritable", `${file}: server "${name}": expected an object; not changed`, { file, server: name });
    }
    const record = entry as Record<string, unknown>;
    changed = (record.disabled === true) === enabled;
    if (enabled) delete record.disabled;
    else record.disabled = true;
    return changed;
  });
  const verb = enabled ? "enabled" : "disabled";
  await writeStdout(changed ? `${verb} ${name} (${file})\n` : `${name} is already ${verb} (${file})\n`);
  return 0;
}

const doctorCommand = defineCommand({
  meta: { name: "doctor", description: "start each enabled server (or the one named) as a run would, report what loads; exit 1 on any failure or skipped tool" },
  args: {
    name: { type: "positional", required: false, description: "only this server (probed even when disabled)" },
    timeout: { type: "string", valueHint: "ms", description: `bound on each server's start, initialize and tools/list (default ${DEFAULT_DOCTOR_TIMEOUT_MS})` },
    json: jsonArg,
    mcp: mcpFileArg,
    cwd: cwdArg,
    trust: { type: "boolean", description: "also start the servers of ./.zot/mcp.json when the project is not trusted (as 'zot ext doctor --trust')" },
  },
});

async function runDoctorCommand({ values, positionals }: Parsed): Promise<number> {
  const timeout = timeoutFlagMs(typeof values.timeout === "string" ? values.timeout : undefined) ?? DEFAULT_DOCTOR_TIMEOUT_MS;
  const { servers, problems } = await loadFor(values);
  const only = positionals[0];
  const chosen = only === undefined ? servers : servers.filter((server) => server.name === only);
  if (only !== undefined && chosen.length === 0) {
    throw new ZotError("mcp.not_found", `no MCP server named "${only}"${problems.length > 0 ? ` (config problems: ${problems.join("; ")})` : ""}`, { server: only });
  }
  const [{ diagnoseServers }, { guardProcessTree }, { renderDoctor }] = await Promise.all([
    import("../mcp/doctor.ts"), import("../common/process-tree.ts"), import("./mcp-doctor-output.ts"),
  ]);
  // Doctor starts the servers: what they leave behind ends with zot.
  guardProcessTree();
  const { home, cwd } = place(values.cwd);
  const blocked = await projectServersBlocked(chosen, { cwd, paths: zotPaths(home), trustFlag: values.trust === true });
  // A run that skips the project's file starts the global entries it shadowed: doctor checks those.
  const { servers: listed, fallbackFor } = blocked === undefined
    ? { servers: chosen, fallbackFor: new Set<string>() }
    : withRunFallbacks(chosen, (await loadMcpServers({ home, cwd, flagFiles: list(values, "mcp"), includeProject: false })).servers);
  const notStarted = (server: McpServerConfig): string | undefined => {
    if (server.scope === "project" && blocked !== undefined) return fallbackFor.has(server.name) ? `${blocked}; a run starts the global "${server.name}" below instead` : blocked;
    return only === undefined && server.disabled === true ? "disabled" : undefined;
  };
  const toCheck = listed.filter((server) => notStarted(server) === undefined);
  // A signal closes every server before zot exits (they run in their own process groups: Ctrl+C does not reach them).
  const interrupt = new AbortController();
  let stoppedBy: HandledSignal | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    stoppedBy ??= signal as HandledSignal; // only STOP_SIGNALS are listened to
    stdoutInterrupted();
    interrupt.abort();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  let reports: Awaited<ReturnType<typeof diagnoseServers>>;
  try {
    reports = await diagnoseServers(toCheck, { logsDir: zotPaths(home).logs, cwd, timeoutMs: timeout, signal: interrupt.signal });
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  }
  const entries = listed.map((server) => {
    const reason = notStarted(server);
    return { server: describeServer(server), report: reason === undefined ? reports.get(server.name) : undefined, notStarted: reason };
  });
  await writeStdout(values.json === true ? `${JSON.stringify({ servers: entries, problems }, null, 2)}\n` : renderDoctor(entries, problems));
  if (stoppedBy !== undefined) return SIGNAL_EXIT_CODES[stoppedBy];
  const failed = [...reports.values()].some((report) => !report.ok);
  return failed || problems.length > 0 ? 1 : 0;
}

interface Subcommand {
  readonly def: CommandDef<ArgsDef>;
  readonly run: (parsed: Parsed) => Promise<number>;
  readonly takesCommand?: boolean;
}

const subCommands: Readonly<Record<string, Subcommand>> = {
  list: { def: listCommand as CommandDef<ArgsDef>, run: runList },
  add: { def: addCommand as CommandDef<ArgsDef>, run: runAdd, takesCommand: true },
  remove: { def: scopedCommand("remove", "remove a server from $ZOT_HOME/mcp.json (or ./.zot/mcp.json with --project); other entries are kept"), run: runRemove },
  enable: { def: scopedCommand("enable", "re-enable a disabled server (in the file whose entry is in effect, or --project)"), run: (parsed) => runToggle(parsed, true) },
  disable: { def: scopedCommand("disable", "disable a server without removing it (\"disabled\": true)"), run: (parsed) => runToggle(parsed, false) },
  doctor: { def: doctorCommand as CommandDef<ArgsDef>, run: runDoctorCommand },
};

const ALIASES: Readonly<Record<string, string>> = { rm: "remove" };

const mcpCommand = defineCommand({
  meta: { name: "zot mcp", description: "manage MCP servers ($ZOT_HOME/mcp.json, ./.zot/mcp.json)" },
  subCommands: Object.fromEntries(Object.entries(subCommands).map(([name, sub]) => [name, sub.def])),
});

function findSubcommand(name: string): Subcommand | undefined {
  const key = ALIASES[name] ?? name;
  return Object.hasOwn(subCommands, key) ? subCommands[key] : undefined;
}

/** " (did you mean 'zot mcp list'?)" for a near miss of a subcommand or alias; "" otherwise. */
function subcommandHint(name: string): string {
  return didYouMean(name, [...Object.keys(subCommands), ...Object.keys(ALIASES)], (candidate) => `'zot mcp ${candidate}'`);
}

/** A subcommand's usage; add's names the command that follows `--` (citty has no way to say it). */
async function subcommandUsage(sub: Subcommand): Promise<string> {
  const text = await usageText(sub.def, mcpCommand as CommandDef<ArgsDef>);
  return sub.takesCommand ? text.replace("[OPTIONS] <NAME>", "[OPTIONS] <NAME> [-- <COMMAND> [ARGS…]]") : text;
}

/** Strict parse of a subcommand's argv against its citty args; undefined when help was asked for. */
function parseCommandArgv(name: string, sub: Subcommand, argv: readonly string[]): Parsed | undefined {
  const split = sub.takesCommand ? argv.indexOf("--") : -1;
  const own = split === -1 ? argv : argv.slice(0, split);
  const rest = split === -1 ? [] : argv.slice(split + 1);
  const options: ParseArgsOptionsConfig = { help: { type: "boolean", short: "h" } };
  const positionals: { name: string; required: boolean }[] = [];
  for (const [key, def] of Object.entries((sub.def.args ?? {}) as ArgsDef)) {
    if (def.type === "positional") positionals.push({ name: key, required: def.required !== false });
    else options[key] = { type: def.type === "boolean" ? "boolean" : "string", ...(REPEATABLE.has(key) ? { multiple: true } : {}) };
  }
  const { tokens } = parseArgs({ args: [...own], options, strict: false, allowPositionals: true, tokens: true });
  if (tokens.some((token) => token.kind === "option" && token.name === "help")) return undefined;
  const values: Values = {};
  const found: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") {
      if (found.length >= positionals.length) throw new UsageError(`unexpected argument "${token.value}" for 'zot mcp ${name}'${sub.takesCommand ? " (the server's command goes after --)" : ""}`);
      found.push(token.value);
    } else if (token.kind === "option") {
      const option = options[token.name];
      if (!option) {
        const hint = token.rawName.startsWith("--") ? didYouMean(token.name, Object.keys(options), (candidate) => `--${candidate}`) : "";
        throw new UsageError(`unknown flag "${token.rawName}"${hint}`, { flag: token.rawName });
      }
      if (option.type === "boolean") {
        if (token.inlineValue) throw new UsageError(`flag "${token.rawName}" takes no value`);
        values[token.name] = true;
      } else {
        if (token.value === undefined) throw new UsageError(`flag "${token.rawName}" needs a value`);
        values[token.name] = option.multiple ? [...list(values, token.name), token.value] : token.value;
      }
    } else if (token.kind === "option-terminator") {
      throw new UsageError(`'zot mcp ${name}' takes no arguments after --`);
    }
  }
  const missing = positionals.slice(found.length).find((positional) => positional.required);
  if (missing) throw new UsageError(`'zot mcp ${name}' needs a <${missing.name}> argument`);
  return { values, positionals: found, rest };
}

async function dispatch(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h" || (first === "help" && rest.length === 0)) {
    await writeStdout(await usageText(mcpCommand as CommandDef<ArgsDef>));
    return 0;
  }
  if (first === "help") {
    const sub = findSubcommand(rest[0] ?? "");
    if (!sub) throw new UsageError(`unknown mcp command "${rest[0]}"${subcommandHint(rest[0] ?? "")}`, { command: rest[0] });
    await writeStdout(await subcommandUsage(sub));
    return 0;
  }
  if (first.startsWith("-")) throw new UsageError(`unknown flag "${first}"`, { flag: first });
  const sub = findSubcommand(first);
  if (!sub) throw new UsageError(`unknown mcp command "${first}"${subcommandHint(first)}`, { command: first });
  const parsed = parseCommandArgv(ALIASES[first] ?? first, sub, rest);
  if (parsed === undefined) {
    await writeStdout(await subcommandUsage(sub));
    return 0;
  }
  return sub.run(parsed);
}

/** Entry for `zot mcp <argv…>`; resolves to the exit code. */
export async function runMcpCli(argv: readonly string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    await writeStderr(describeFailure(err, MCP_USAGE_HINT).text);
    return 2;
  }
}
