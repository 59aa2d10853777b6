/**
 * The top-level flag table and its strict parser. Flags are order-free and
 * may interleave with the prompt words (reference notes §1.2). Unknown flags
 * and missing values are UsageErrors naming the flag; nothing else is
 * validated here (modes validate values such as --reasoning themselves).
 */
import { parseArgs } from "node:util";
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
  { name: "no-session", kind: "boolean", description: "do not read or write a session" },
  { name: "provider", kind: "string", value: "name", description: "anthropic | openai | ollama" },
  { name: "model", kind: "string", value: "id", description: "model id (see --list-models)" },
  { name: "api-key", kind: "string", value: "key", description: "API key (else the provider's env var, else auth.json)" },
  { name: "base-url", kind: "string", value: "url", description: "override the provider's base URL" },
  { name: "reasoning", kind: "string", value: "level", description: "low | medium | high" },
  { name: "list-models", kind: "boolean", description: "list known models and exit" },
  { name: "system-prompt", kind: "string", value: "text", description: "replace the default system prompt" },
  { name: "append-system-prompt", kind: "string", multiple: true, value: "text", description: "append to the system prompt (repeatable)" },
  { name: "cwd", kind: "string", value: "dir", description: "working directory (default: current)" },
  { name: "max-steps", kind: "string", value: "n", description: "maximum model steps per prompt (default 50)" },
  { name: "auto-compact", kind: "string", value: "share|off", description: "compact when context use passes this share of the window (default 0.85)" },
  { name: "tools", kind: "string", value: "a,b", description: "only these built-in tools" },
  { name: "no-tools", kind: "boolean", description: "no built-in tools" },
  { name: "jail", kind: "boolean", description: "confine file tools to the working directory" },
  { name: "no-yolo", kind: "boolean", description: "ask before each tool call (interactive only)" },
  { name: "ext", short: "e", kind: "string", multiple: true, value: "dir", description: "load this extension for one run (repeatable)" },
  { name: "no-ext", kind: "boolean", aliases: ["no-extensions"], description: "skip extension discovery (--ext still loads)" },
  { name: "no-skill", kind: "boolean", aliases: ["no-skills"], description: "no skills and no skill tool" },
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
  readonly noSkill: boolean;
  readonly withSkills: boolean;
  readonly rpc: boolean;
  /** Positional words joined with single spaces. */
  readonly prompt: string;
}

type ParsedValue = string | boolean | (string | boolean)[] | undefined;

function optionTable(): Record<string, { type: "boolean" | "string"; short?: string; multiple?: boolean }> {
  const options: Record<string, { type: "boolean" | "string"; short?: string; multiple?: boolean }> = {};
  for (const flag of FLAGS) {
    for (const name of [flag.name, ...(flag.aliases ?? [])]) {
      options[name] = { type: flag.kind, multiple: flag.multiple ?? false };
      if (flag.short && name === flag.name) options[name].short = flag.short;
    }
  }
  return options;
}

function flagName(token: string): string {
  return token.replace(/=.*$/, "");
}

export function parseMainFlags(argv: readonly string[]): MainFlags {
  let values: Record<string, ParsedValue>;
  let positionals: string[];
  try {
    const parsed = parseArgs({ args: [...argv], options: optionTable(), strict: true, allowPositionals: true });
    values = parsed.values as Record<string, ParsedValue>;
    positionals = parsed.positionals;
  } catch (err) {
    throw toUsageError(err, argv);
  }
  const bool = (name: string): boolean => {
    const flag = FLAGS.find((f) => f.name === name);
    return [name, ...(flag?.aliases ?? [])].some((n) => values[n] === true);
  };
  const str = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === "string" ? value : undefined;
  };
  const list = (name: string): string[] => {
    const value = values[name];
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  };
  return {
    help: bool("help"),
    version: bool("version"),
    print: bool("print"),
    json: bool("json"),
    continue: bool("continue"),
    resume: bool("resume"),
    session: str("session"),
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
    noSkill: bool("no-skill"),
    withSkills: bool("with-skills"),
    rpc: bool("rpc"),
    prompt: positionals.join(" "),
  };
}

function toUsageError(err: unknown, argv: readonly string[]): UsageError {
  const code = err && typeof err === "object" && "code" in err ? String((err as { code: unknown }).code) : "";
  const message = err instanceof Error ? err.message : String(err);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const token = argv.find((a) => a.startsWith("-") && a !== "-" && !(flagName(a).replace(/^-+/, "") in optionTable()));
    return new UsageError(`unknown flag "${token ? flagName(token) : "?"}"`, { flag: token });
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const match = /'(-[^']*)'/.exec(message);
    const flag = match?.[1]?.split(",")[0]?.trim() ?? "?";
    return new UsageError(`flag ${flag} needs a value`, { flag });
  }
  return new UsageError(message);
}

/** The main help text, generated from FLAGS. */
export function mainHelp(): string {
  const rows = FLAGS.filter((f) => !f.hidden).map((f) => {
    const names = `${f.short ? `-${f.short}, ` : "    "}--${f.name}${f.value ? ` <${f.value}>` : ""}`;
    return [names, f.description] as const;
  });
  const width = Math.max(...rows.map(([names]) => names.length));
  const lines = rows.map(([names, description]) => `  ${names.padEnd(width)}  ${description}`);
  return [
    "zot — a terminal coding agent, extensible in any language",
    "",
    "Usage:",
    "  zot [flags] [prompt]           interactive (needs a terminal)",
    "  zot -p [flags] \"prompt\"        print the final answer (prompt may come on stdin)",
    "  zot --json [flags] \"prompt\"    stream JSON events",
    "  zot ext <command>              manage extensions (zot ext --help)",
    "",
    "Flags:",
    ...lines,
    "",
  ].join("\n");
}
