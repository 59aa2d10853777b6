/**
 * The top-level flag table and its strict parser. Flags are order-free and
 * may interleave with the prompt words (reference notes §1.2). Unknown flags,
 * missing values, a value flag followed by another of zot's flags (`--model
 * -p`: such a value is written `--model=-p`; any other word, `-1` or
 * `- be brief`, is taken as the value, as the original does) and values given to
 * boolean flags are UsageErrors naming the flag; so are two modes at once
 * (checkModes: -p, --json, --rpc / `zot rpc`). An unknown flag close to a
 * known one says "did you mean" (common/did-you-mean.ts); a long name
 * written with one dash (`-model`) is an unknown flag pointing to `--model`.
 * `checkSubcommandTypo` rejects a lone first word that is a near miss of a
 * subcommand (`zot upgade`). Nothing else is validated here (modes validate
 * values such as --reasoning and --tools themselves). The help texts
 * (`zot --help`, `zot rpc --help`) are generated here too.
 */
import { didYouMean } from "../common/did-you-mean.ts";
import { UsageError } from "../common/errors.ts";

interface FlagDef {
  readonly name: string;
  readonly short?: string;
  readonly kind: "boolean" | "string";
  readonly multiple?: boolean;
  readonly value?: string;
  readonly description: string;
  /** Other spellings accepted for the same flag. */
  readonly aliases?: readonly string[];
  readonly hidden?: boolean;
}

export const FLAGS: readonly FlagDef[] = [
  { name: "help", short: "h", kind: "boolean", description: "show this help" },
  { name: "version", short: "v", kind: "boolean", description: "print the version" },
  { name: "print", short: "p", kind: "boolean", description: "print mode: run the prompt, print the final answer" },
  { name: "json", kind: "boolean", description: "JSON mode: one JSON object per event on stdout (docs/json.md)" },
  { name: "continue", short: "c", kind: "boolean", description: "continue the most recent session in this directory" },
  { name: "resume", short: "r", kind: "boolean", description: "pick a session to resume" },
  { name: "session", kind: "string", value: "path", description: "open this session file" },
  { name: "fork", kind: "string", value: "path", description: "start a new session holding a copy of this one" },
  { name: "no-session", kind: "boolean", description: "do not read or write a session" },
  { name: "provider", kind: "string", value: "name", description: "anthropic | openai | kimi | ollama" },
  { name: "model", short: "m", kind: "string", value: "id", description: "model id (see --list-models)" },
  { name: "api-key", kind: "string", value: "key", description: "API key (else the provider's env var, else auth.json)" },
  { name: "base-url", kind: "string", value: "url", description: "override the provider's base URL" },
  { name: "reasoning", kind: "string", value: "level", description: "low | medium | high" },
  { name: "list-models", kind: "boolean", description: "list known models and exit" },
  { name: "system-prompt", kind: "string", value: "text", description: "replace the default system prompt" },
  { name: "append-system-prompt", kind: "string", multiple: true, value: "text", description: "append to the system prompt (repeatable)" },
  { name: "cwd", kind: "string", value: "dir", description: "working directory (default: current)" },
  { name: "max-steps", kind: "string", value: "n", description: "maximum model steps per prompt (default 50; 0: no limit)" },
  { name: "auto-compact", kind: "string", value: "share|off", description: "compact when context use passes this share of the window (default 0.85)" },
  { name: "tools", kind: "string", value: "a,b", description: "only these built-in tools (read, write, edit, bash, agent)" },
  { name: "no-tools", kind: "boolean", description: "no built-in tools" },
  { name: "jail", kind: "boolean", description: "confine tools to the working directory (bash in an OS sandbox)" },
  { name: "no-yolo", kind: "boolean", description: "ask before each tool call (interactive only)" },
  { name: "ext", short: "e", kind: "string", multiple: true, value: "dir", description: "load this extension for one run (repeatable)" },
  { name: "no-ext", kind: "boolean", aliases: ["no-extensions"], description: "skip extension discovery (--ext still loads)" },
  { name: "mcp", kind: "string", multiple: true, value: "file", description: "also load the MCP servers of this mcp.json for one run (repeatable)" },
  { name: "no-skill", kind: "boolean", aliases: ["no-skills"], description: "no skills and no skill tool" },
  { name: "trust", kind: "boolean", description: "start this project's own extensions (./.zot) for this run (see 'zot trust --help')" },
  { name: "with-skills", kind: "boolean", aliases: ["with-skill"], description: "also load user SKILL.md directories" },
  { name: "rpc", kind: "boolean", hidden: true, description: "RPC mode" },
  { name: "experimental-oauth", kind: "boolean", hidden: true, description: "accepted, no effect" },
];

export interface MainFlags {
  readonly help: boolean;
  readonly version: boolean;
  readonly print: boolean;
  readonly json: boolean;
  readonly continue: boolean;
  readonly resume: boolean;
  readonly session?: string;
  readonly fork?: string;
  readonly noSession: boolean;
  readonly provider?: string;
  readonly model?: string;
  readonly apiKey?: string;
  readonly baseUrl?: string;
  readonly reasoning?: string;
  readonly listModels: boolean;
  readonly systemPrompt?: string;
  readonly appendSystemPrompt: readonly string[];
  readonly cwd?: string;
  readonly maxSteps?: string;
  readonly autoCompact?: string;
  readonly tools?: string;
  readonly noTools: boolean;
  readonly jail: boolean;
  readonly noYolo: boolean;
  readonly ext: readonly string[];
  readonly noExt: boolean;
  /** `--mcp <file>` config files, in order (docs/mcp.md). */
  readonly mcp: readonly string[];
  readonly noSkill: boolean;
  readonly withSkills: boolean;
  /** --trust: the project's own extensions start this run (not recorded). */
  readonly trust: boolean;
  readonly rpc: boolean;
  /** Positional words joined with single spaces. */
  readonly prompt: string;
}

type ParsedValue = string | boolean | string[];

/** " (did you mean --x?)" for an unknown long flag name, or "" (hidden flags are never suggested). */
function suggestFlag(name: string): string {
  const names = FLAGS.filter((flag) => !flag.hidden).flatMap((flag) => [flag.name, ...(flag.aliases ?? [])]);
  return didYouMean(name, names, (candidate) => `--${candidate}`);
}

/** Flag name (and alias) → its definition; built once per process on first parse. */
let byName: Map<string, FlagDef> | undefined;
let byShort: Map<string, FlagDef> | undefined;

function lookupTables(): { long: Map<string, FlagDef>; short: Map<string, FlagDef> } {
  if (!byName || !byShort) {
    byName = new Map();
    byShort = new Map();
    for (const flag of FLAGS) {
      byName.set(flag.name, flag);
      for (const alias of flag.aliases ?? []) byName.set(alias, flag);
      if (flag.short) byShort.set(flag.short, flag);
    }
  }
  return { long: byName, short: byShort };
}

/** True for an argument the parser reads as a flag (a lone "-" is a word). */
function looksLikeFlag(token: string): boolean {
  return token.length > 1 && token.startsWith("-");
}

/**
 * True when `token` spells one of zot's flags (`--model`, `--model=x`, `-p`,
 * `-pc`, `-model`). Any other word starting with "-" (`- be brief`, `-1`,
 * `--x`) can be a flag's value, as the original zot takes it.
 */
function isKnownFlagToken(token: string): boolean {
  if (!looksLikeFlag(token)) return false;
  const { long, short } = lookupTables();
  if (token.startsWith("--")) return long.has(token.slice(2).split("=")[0] ?? "");
  const letters = token.slice(1);
  if (long.has(letters.split("=")[0] ?? "")) return true;
  return /^[A-Za-z]+$/.test(letters) && short.has(letters[0]!);
}

/** The value given as the next argument; missing or one of zot's flags is a UsageError. */
function separateValue(flag: FlagDef, spelled: string, next: string | undefined): string {
  if (next === undefined) throw new UsageError(`flag ${spelled} needs a value`, { flag: spelled });
  if (isKnownFlagToken(next)) {
    throw new UsageError(
      `flag ${spelled} needs a value, but the next argument "${next}" is a flag (for a value that starts with "-", write --${flag.name}=${next})`,
      { flag: spelled },
    );
  }
  return next;
}

/**
 * Strict, order-free parsing over FLAGS (hand-written: node:util's parseArgs
 * costs ~3 ms and ~3 MB at startup). Accepts `--name`, `--name=value`,
 * `--name value`, `-x`, `-x value`, grouped boolean shorts (`-pc`), a lone
 * `-` as a word, and `--` to end flags.
 */
export function parseMainFlags(argv: readonly string[]): MainFlags {
  const { long, short } = lookupTables();
  const values = new Map<string, ParsedValue>();
  const positionals: string[] = [];
  const set = (flag: FlagDef, value: string | boolean): void => {
    if (flag.multiple) {
      const list = values.get(flag.name);
      values.set(flag.name, [...(Array.isArray(list) ? list : []), String(value)]);
    } else values.set(flag.name, value);
  };
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (token === "-" || !token.startsWith("-")) {
      positionals.push(token);
      continue;
    }
    if (token.startsWith("--")) {
      const eq = token.indexOf("=");
      const name = token.slice(2, eq === -1 ? undefined : eq);
      const flag = long.get(name);
      if (!flag) throw new UsageError(`unknown flag "--${name}"${suggestFlag(name)}`, { flag: `--${name}` });
      if (flag.kind === "boolean") {
        if (eq !== -1) throw new UsageError(`flag --${name} does not take a value`, { flag: `--${name}` });
        set(flag, true);
        continue;
      }
      const value = eq !== -1 ? token.slice(eq + 1) : separateValue(flag, `--${name}`, argv[++i]);
      set(flag, value);
      continue;
    }
    const letters = token.slice(1);
    const spelledLong = letters.split("=")[0] ?? "";
    if (spelledLong.length > 1 && long.has(spelledLong)) {
      throw new UsageError(`unknown flag "-${spelledLong}" (did you mean --${long.get(spelledLong)!.name}?)`, { flag: `-${spelledLong}` });
    }
    for (let j = 0; j < letters.length; j++) {
      const flag = short.get(letters[j]!);
      if (!flag) throw new UsageError(`unknown flag "-${letters[j]}"`, { flag: `-${letters[j]}` });
      if (flag.kind === "boolean") {
        set(flag, true);
        continue;
      }
      const rest = letters.slice(j + 1);
      const value = rest !== "" ? rest : separateValue(flag, `-${flag.short}`, argv[++i]);
      set(flag, value);
      break;
    }
  }
  const bool = (name: string): boolean => values.get(name) === true;
  const str = (name: string): string | undefined => {
    const value = values.get(name);
    return typeof value === "string" ? value : undefined;
  };
  const list = (name: string): string[] => {
    const value = values.get(name);
    return Array.isArray(value) ? value : [];
  };
  return {
    help: bool("help"),
    version: bool("version"),
    print: bool("print"),
    json: bool("json"),
    continue: bool("continue"),
    resume: bool("resume"),
    session: str("session"),
    fork: str("fork"),
    noSession: bool("no-session"),
    provider: str("provider"),
    model: str("model"),
    apiKey: str("api-key"),
    baseUrl: str("base-url"),
    reasoning: str("reasoning"),
    listModels: bool("list-models"),
    systemPrompt: str("system-prompt"),
    appendSystemPrompt: list("append-system-prompt"),
    cwd: str("cwd"),
    maxSteps: str("max-steps"),
    autoCompact: str("auto-compact"),
    tools: str("tools"),
    noTools: bool("no-tools"),
    jail: bool("jail"),
    noYolo: bool("no-yolo"),
    ext: list("ext"),
    noExt: bool("no-ext"),
    mcp: list("mcp"),
    noSkill: bool("no-skill"),
    withSkills: bool("with-skills"),
    trust: bool("trust"),
    rpc: bool("rpc"),
    prompt: positionals.join(" "),
  };
}

/** The flags that choose a mode; at most one may be given. */
const MODE_FLAGS = [
  ["print", "-p/--print"],
  ["json", "--json"],
  ["rpc", "rpc/--rpc"],
] as const satisfies readonly (readonly [keyof MainFlags, string])[];

/** Two modes at once (`--json -p`, `zot rpc -p`) are a UsageError naming both. */
export function checkModes(flags: MainFlags): void {
  const chosen = MODE_FLAGS.filter(([key]) => flags[key] === true).map(([, spelled]) => spelled);
  if (chosen.length > 1) {
    throw new UsageError(`${chosen[0]} and ${chosen[1]} cannot be combined: they choose different modes`, { flag: chosen[1] });
  }
}

/** The subcommands `zot --help` lists (the hidden `swarm-child` is not one a user types). */
export const SUBCOMMANDS: readonly { readonly name: string; readonly usage: string; readonly description: string }[] = [
  { name: "rpc", usage: "zot rpc [flags]", description: "NDJSON commands on stdin, events on stdout (zot rpc --help)" },
  { name: "ext", usage: "zot ext <command>", description: "manage extensions: list, install, new, test, … (zot ext --help)" },
  { name: "mcp", usage: "zot mcp <command>", description: "manage MCP servers (zot mcp --help)" },
  { name: "login", usage: "zot login <provider>", description: "store an API key in $ZOT_HOME/auth.json (zot login --help)" },
  { name: "logout", usage: "zot logout [provider|all]", description: "remove a stored API key (zot logout --help)" },
  { name: "agents", usage: "zot agents [--json]", description: "list the recorded subagent runs (zot agents --help)" },
  { name: "trust", usage: "zot trust [dir]", description: "let this project's own extensions run (zot trust --help)" },
  { name: "untrust", usage: "zot untrust [dir]", description: "forget it; zot trust --list shows every decision" },
  { name: "upgrade", usage: "zot upgrade [--check] [--version V]", description: "replace this zot with the latest release (zot upgrade --help)" },
];

/**
 * `zot upgade` (a lone word, or one followed only by flags) that is a near
 * miss of a subcommand is a UsageError saying which one; any other first
 * word is a prompt as before. `zot -- upgade` sends the word as a prompt.
 */
export function checkSubcommandTypo(argv: readonly string[]): void {
  const first = argv[0];
  if (first === undefined || first.startsWith("-") || /\s/.test(first)) return;
  if (!argv.slice(1).every((arg) => arg.startsWith("-"))) return;
  const names = SUBCOMMANDS.map((command) => command.name);
  if (names.includes(first)) return;
  const hint = didYouMean(first, names, (name) => `'zot ${name}'`);
  if (hint === "") return;
  throw new UsageError(`unknown command "${first}"${hint}; to send it to the model as a prompt, write: zot -- ${first}`, { command: first });
}

/** The few environment variables `zot --help` names (README.md lists them all). */
const HELP_ENV: readonly (readonly [string, string])[] = [
  ["ANTHROPIC_API_KEY, OPENAI_API_KEY", "API keys (before auth.json; --api-key before both)"],
  ["ZOT_HOME", "state directory: sessions, extensions, auth.json, config.json"],
  ["ZOT_STREAM_IDLE_TIMEOUT_MS", "give up on a model stream silent this long (default 120000)"],
  ["ZOT_THEME", "dark | light (else asked from the terminal)"],
  ["NO_COLOR", "no colours"],
];

function table(rows: readonly (readonly [string, string])[], width = Math.max(...rows.map(([left]) => left.length))): string[] {
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`.trimEnd());
}

/** The main help text, generated from FLAGS, SUBCOMMANDS and HELP_ENV. */
export function mainHelp(): string {
  const rows = FLAGS.filter((f) => !f.hidden).map((f) => {
    const names = `${f.short ? `-${f.short}, ` : "    "}--${f.name}${f.value ? ` <${f.value}>` : ""}`;
    return [names, f.description] as const;
  });
  const modes: readonly (readonly [string, string])[] = [
    ["zot [flags] [prompt]", "interactive (needs a terminal)"],
    ["zot -p [flags] \"prompt\"", "print the final answer (prompt may come on stdin)"],
    ["zot --json [flags] \"prompt\"", "stream JSON events (docs/json.md)"],
  ];
  const commands = SUBCOMMANDS.map((command) => [command.usage, command.description] as const);
  const commandWidth = Math.max(...[...modes, ...commands].map(([left]) => left.length));
  return [
    "zot — a terminal coding agent, extensible in any language",
    "",
    "Usage:",
    ...table(modes, commandWidth),
    "",
    "Commands:",
    ...table(commands, commandWidth),
    "",
    "Flags:",
    ...table(rows),
    "",
    "Environment (all of them: README.md, \"Environment\"):",
    ...table(HELP_ENV),
    "",
    "Notes:",
    "  -p, --json and rpc are separate modes: give at most one.",
    "  A value that starts with \"-\" needs \"=\": --append-system-prompt=\"- be brief\".",
    "  No key yet? export ANTHROPIC_API_KEY=…, or run zot login anthropic, or just zot (it asks).",
    "  On a terminal, control sequences in model and extension text are removed (colours kept).",
    "",
  ].join("\n");
}

/** `zot rpc --help`. */
export function rpcHelp(): string {
  return [
    "usage: zot rpc [flags]",
    "",
    "Runs zot as a server for another program: one JSON command per line on",
    "stdin (prompt, abort, get_state, set_model, compact, …), one JSON event or",
    "response per line on stdout; see docs/rpc.md for the protocol. Takes the",
    "same flags as zot (--provider, --model, --cwd, --ext, --tools, …; zot",
    "--help lists them) except -p and --json; it keeps no session. When",
    "ZOTCORE_RPC_TOKEN is set, the first command must be a hello with that token.",
    "",
    "  printf '%s\\n' '{\"type\":\"prompt\",\"message\":\"hi\"}' | zot rpc",
    "",
  ].join("\n");
}
