/**
 * `zot ext …`: list, doctor, install, remove|rm, enable, disable, logs, new, test.
 * Commands are citty definitions (their usage text comes from renderUsage);
 * argv is validated strictly here before citty runs a command, because citty
 * ignores unknown flags and extra arguments. Usage problems print one
 * `zot: …` line plus a hint and exit 2 (an unknown command or flag close
 * to a known one adds "did you mean", common/did-you-mean.ts); other failures are thrown as ZotErrors
 * for main.ts to print. Results go to stdout, prompts and hints to stderr;
 * on a terminal everything that quotes an extension (list, doctor, logs)
 * passes the terminal sanitizer (common/terminal-text.ts). stdout is
 * common/stdout.ts (never blocking; `logs -f` waits for room before it
 * reads on, and SIGINT / SIGTERM bound the last flush).
 * `--cwd <dir>` picks the project scope (default: the process cwd).
 */
import { currentDirectory, resolveFromCwd } from "../common/cwd.ts";
import { type ArgsDef, type CommandDef, defineCommand, runCommand } from "citty";
import { resolve } from "node:path";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { didYouMean } from "../common/did-you-mean.ts";
import { UsageError } from "../common/errors.ts";
import { stdoutInterrupted, stdoutRoom, writeStdoutText } from "../common/stdout.ts";
import { createByteStreamSanitizer, forStdout, stdoutIsTerminal } from "../common/terminal-text.ts";
import { type ZotPaths, zotPaths } from "../common/home.ts";
import { findInstalled, listInstalled, manifestName, refuseLinkedProjectRoot, type InstalledExtension, type ValidInstall } from "../ext/installed.ts";
import { describeFailure, writeStderr, writeStdout } from "./output.ts";
import { timeoutFlagMs } from "./timeout-flag.ts";
import { usageText } from "./usage-text.ts";

const EXT_USAGE_HINT = "run 'zot ext --help' for usage";

interface Scope {
  readonly cwd: string;
  readonly paths: ZotPaths;
}

function scopeFrom(cwd: string | undefined): Scope {
  return { cwd: cwd === undefined ? currentDirectory() : resolveFromCwd(cwd), paths: zotPaths() };
}

const INTERRUPT_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** Runs `task` with an AbortSignal that fires on SIGINT/SIGTERM/SIGHUP. */
async function withInterrupt<T>(task: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const abort = (): void => {
    stdoutInterrupted();
    controller.abort();
  };
  // SIGHUP too (a closed terminal): an install it ended used to leave its staging copy and its git clone behind.
  for (const name of INTERRUPT_SIGNALS) process.on(name, abort);
  try {
    return await task(controller.signal);
  } finally {
    for (const name of INTERRUPT_SIGNALS) process.off(name, abort);
  }
}

const cwdArg = { type: "string", valueHint: "dir", description: "project directory whose .zot/extensions is searched (default: current)" } as const;
const nameArg = { type: "positional", required: true, description: "manifest name or installed directory name" } as const;

function displayName(entry: InstalledExtension): string {
  return manifestName(entry) ?? entry.dirName;
}

/** The manifest's description as it ends a list row: one line, at most LIST_DESCRIPTION_CHARS. */
const LIST_DESCRIPTION_CHARS = 100;

function listDescription(description: string | undefined): string {
  const flat = (description ?? "").replace(/\s+/g, " ").trim();
  return flat.length > LIST_DESCRIPTION_CHARS ? `${flat.slice(0, LIST_DESCRIPTION_CHARS - 1)}…` : flat;
}

/**
 * One `zot ext list` row in the original's layout (`%-12s  %-20s  %-10s
 * %-8s  %-10s  %s`: scope, name, version, enabled, language, dir; "-" for
 * an empty version or language), so scripts written for it keep working;
 * zot adds the trust state ("-" where nothing is gated) and then the
 * manifest's description (extensions.md: "shown in zot ext list"), when it
 * has one, as the last columns.
 */
function listLine(
  cells: readonly [scope: string, name: string, version: string, enabled: string, language: string, dir: string, trust: string, description: string],
): string {
  const [scope, name, version, enabled, language, dir, trust, description] = cells;
  const tail = description === "" ? "" : `  ${description}`;
  return `${scope.padEnd(12)}  ${name.padEnd(20)}  ${version.padEnd(10)}  ${enabled.padEnd(8)}  ${language.padEnd(10)}  ${dir}  ${trust}${tail}\n`;
}

/** TRUST column: a project extension's trust state (trusted / untrusted / changed / denied); "-" where nothing is gated. */
type TrustOf = (entry: InstalledExtension) => string;

function listRow(entry: ValidInstall, trustOf: TrustOf): string {
  const { manifest, enabled } = entry.loaded;
  return listLine([
    entry.scope, manifest.name, manifest.version ?? "-", enabled ? "yes" : "no", manifest.language ?? "-", entry.dir, trustOf(entry),
    listDescription(manifest.description),
  ]);
}

async function projectTrustColumn(scope: Scope, entries: readonly InstalledExtension[]): Promise<TrustOf> {
  if (!entries.some((entry) => entry.scope === "project" && entry.status !== "invalid")) return () => "-";
  const [{ currentProjectTrust }, { itemTrustState }] = await Promise.all([import("../ext/project-trust.ts"), import("../trust/state.ts")]);
  const { status, warning } = await currentProjectTrust(scope.cwd, scope.paths);
  if (warning !== undefined) await writeStderr(`zot: warning: ${warning}\n`);
  const gated = new Set(status.current.items.map((item) => item.name));
  return (entry) => {
    if (entry.scope !== "project" || entry.status === "invalid" || !gated.has(entry.loaded.manifest.name)) return "-";
    return itemTrustState(status, entry.loaded.manifest.name);
  };
}

const listCommand = defineCommand({
  meta: { name: "list", description: "list installed extensions, their state and (project ones) whether the project is trusted" },
  args: { cwd: cwdArg },
  async run({ args }) {
    const scope = scopeFrom(args.cwd);
    const entries = await listInstalled(scope);
    if (entries.length === 0) {
      await writeStderr("no extensions installed\ninstall one with 'zot ext install <path|git-url>'\n");
      return 0;
    }
    const trustOf = await projectTrustColumn(scope, entries);
    // Like the original, a directory whose manifest cannot be read is not a row; zot says so on stderr.
    const rows = entries.flatMap((entry) => (entry.status === "invalid" ? [] : [listRow(entry, trustOf)]));
    if (rows.length > 0) await writeStdout(rows.join(""));
    for (const entry of entries) if (entry.status === "invalid") await writeStderr(`zot: warning: ${entry.error.message} (not listed)\n`);
    return 0;
  },
});

const doctorCommand = defineCommand({
  meta: { name: "doctor", description: "diagnose load, registration and conflict issues (an untrusted project's own extensions are not started)" },
  args: { cwd: cwdArg, trust: { type: "boolean", description: "also start this project's own extensions when it is not trusted" } },
  async run({ args }) {
    const [{ runDoctor }, { guardProcessTree }] = await Promise.all([import("../ext/doctor.ts"), import("../common/process-tree.ts")]);
    // Doctor starts the extensions: what they leave behind ends with zot.
    guardProcessTree();
    const scope = scopeFrom(args.cwd);
    // The report quotes extensions (names, notes, errors): sanitized on a terminal.
    const write = (text: string): void => writeStdoutText(forStdout(text));
    const { trustedByEnv } = await import("../trust/state.ts");
    return runDoctor({ cwd: scope.cwd, paths: scope.paths, noExt: false, explicit: [], write, trust: args.trust === true || trustedByEnv(process.env) });
  },
});

const installCommand = defineCommand({
  meta: { name: "install", description: "copy a directory or shallow-clone a git URL into the extensions directory" },
  args: {
    source: { type: "positional", required: true, description: "extension directory or git URL" },
    project: { type: "boolean", description: "install into ./.zot/extensions instead of $ZOT_HOME/extensions" },
    name: { type: "string", valueHint: "dir", description: "directory name to install under (default: source basename)" },
    cwd: cwdArg,
  },
  async run({ args }) {
    const scope = scopeFrom(args.cwd);
    const { installExtension } = await import("../ext/install.ts");
    const result = await withInterrupt((signal) =>
      installExtension(args.source, { ...scope, project: args.project === true, name: args.name, signal }),
    );
    const version = result.version ? ` ${result.version}` : "";
    await writeStdout(`installed ${result.name}${version} → ${result.dest}\n`);
    return 0;
  },
});

/** The first line piped to stdin (`echo y | zot ext remove x`, as the original zot reads it), or undefined at EOF before any line. */
async function pipedAnswer(): Promise<string | undefined> {
  const { createInterface } = await import("node:readline");
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  try {
    for await (const line of lines) return line;
    return undefined;
  } finally {
    lines.close();
  }
}

async function confirmRemoval(dir: string): Promise<boolean> {
  if (!process.stdin.isTTY) {
    // A piped answer counts like a typed one; no answer at all (EOF, /dev/null) still needs --yes.
    await writeStderr(`remove ${dir}? [y/N] `);
    const answer = await pipedAnswer();
    if (answer === undefined) {
      throw new UsageError(`refusing to remove ${dir} without confirmation (stdin is not a terminal and gave no answer); pass --yes`, { dir });
    }
    return /^y(es)?$/i.test(answer.trim());
  }
  const { createInterface } = await import("node:readline/promises");
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`remove ${dir}? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

const removeCommand = defineCommand({
  meta: { name: "remove", alias: "rm", description: "delete an installed extension directory (state included)" },
  args: {
    name: nameArg,
    yes: { type: "boolean", alias: ["y"], description: "do not ask for confirmation" },
    cwd: cwdArg,
  },
  async run({ args }) {
    const scope = scopeFrom(args.cwd);
    const entry = await findInstalled(args.name, scope);
    if (entry.scope === "project") await refuseLinkedProjectRoot(scope.cwd);
    if (args.yes !== true && !(await confirmRemoval(entry.dir))) {
      await writeStderr("aborted; nothing removed\n");
      return 1;
    }
    const { removeInstalled } = await import("../ext/manage.ts");
    await removeInstalled(entry.dir);
    await writeStdout(`removed ${entry.dir}\n`);
    return 0;
  },
});

function toggleCommand(enabled: boolean): CommandDef<{ name: typeof nameArg; cwd: typeof cwdArg }> {
  const verb = enabled ? "enabled" : "disabled";
  return defineCommand({
    meta: {
      name: enabled ? "enable" : "disable",
      description: enabled ? "re-enable a disabled extension" : "disable an extension without removing it",
    },
    args: { name: nameArg, cwd: cwdArg },
    async run({ args }) {
      const scope = scopeFrom(args.cwd);
      const entry = await findInstalled(args.name, scope);
      if (entry.scope === "project") await refuseLinkedProjectRoot(scope.cwd);
      const { setEnabled } = await import("../ext/manage.ts");
      const outcome = await setEnabled(entry.dir, enabled);
      const label = displayName(entry);
      await writeStdout(outcome === "changed" ? `${verb} ${label}\n` : `${label} is already ${verb}\n`);
      return 0;
    },
  });
}

const logsCommand = defineCommand({
  meta: { name: "logs", description: "print an extension's stderr log (-f to keep following it)" },
  args: {
    name: { type: "positional", required: true, description: "extension name (or installed directory name)" },
    follow: { type: "boolean", alias: ["f"], description: "keep printing appended lines until interrupted" },
    cwd: cwdArg,
  },
  async run({ args }) {
    const { followLog, printLog, resolveLogTarget } = await import("../ext/logs.ts");
    const target = await resolveLogTarget(args.name, scopeFrom(args.cwd));
    // On a terminal the log (an extension's own stderr) goes through the sanitizer, chunk boundaries included.
    const sanitize = stdoutIsTerminal() ? createByteStreamSanitizer() : undefined;
    const write = async (chunk: Uint8Array): Promise<void> => {
      writeStdoutText(sanitize === undefined ? chunk : sanitize(chunk));
      await stdoutRoom();
    };
    if (args.follow === true) await withInterrupt((signal) => followLog(target, write, signal));
    else await printLog(target, write);
    return 0;
  },
});

const newCommand = defineCommand({
  meta: {
    name: "new",
    description: "scaffold a working extension (extension.json, program, README) that 'zot --ext' loads and 'zot ext test' passes",
  },
  args: {
    name: { type: "positional", required: true, description: "extension name (letters, digits, _ - . @ +)" },
    lang: { type: "string", valueHint: "ts|python|sh", description: "language of the program (default: ts, run with bun)" },
    dir: { type: "string", valueHint: "dir", description: "directory to create (default: ./<name>); never overwritten" },
  },
  async run({ args }) {
    const [{ scaffoldExtension }, { SCAFFOLD_LANGUAGES }] = await Promise.all([import("../ext/scaffold.ts"), import("../ext/scaffold-templates.ts")]);
    // The names people type for them: --lang py, --lang typescript, --lang shell.
    const aliases: Readonly<Record<string, string>> = { py: "python", python3: "python", typescript: "ts", javascript: "ts", js: "ts", shell: "sh", bash: "sh" };
    const given = (args.lang ?? "ts").toLowerCase();
    const language = aliases[given] ?? given;
    if (!(SCAFFOLD_LANGUAGES as readonly string[]).includes(language)) {
      throw new UsageError(`--lang must be one of ${SCAFFOLD_LANGUAGES.join(", ")} (got "${args.lang ?? ""}")`, { flag: "--lang", helpFor: "new" });
    }
    const result = scaffoldExtension({ name: args.name, language: language as (typeof SCAFFOLD_LANGUAGES)[number], dir: args.dir, cwd: process.cwd() });
    await writeStdout(`created ${result.names.name} (${language}) in ${result.dir}: ${result.files.filter((file) => !file.includes("/")).join(", ")}\n`);
    await writeStderr(`try it: zot --ext ${result.dir}   (/${result.command}, tool ${result.tool})\ncheck it: zot ext test ${result.dir}\n`);
    return 0;
  },
});

const testCommand = defineCommand({
  meta: {
    name: "test",
    description:
      "conformance-test an extension directory: handshake, every frame against the schemas, tools, commands, panels, events, interception, cancellation, shutdown and EOF; exit 1 on any failure",
  },
  args: {
    dir: { type: "positional", required: true, description: "extension directory (holding extension.json)" },
    json: { type: "boolean", description: "print the report as one JSON object (for CI)" },
    timeout: { type: "string", valueHint: "ms", description: "bound on each tool, command and ready wait (default 10000; zot allows tools 60000)" },
  },
  async run({ args }) {
    const timeout = timeoutFlagMs(args.timeout);
    const [{ runConformance }, { reportJson, reportText }, { guardProcessTree }, { ZOT_SEMVER }] = await Promise.all([
      import("../ext/conformance/run.ts"), import("../ext/conformance/report.ts"), import("../common/process-tree.ts"), import("../common/version.ts"),
    ]);
    // The extension's own helpers end with the run.
    guardProcessTree();
    const report = await runConformance({ dir: resolve(args.dir), replyTimeoutMs: timeout, zotVersion: ZOT_SEMVER });
    if (args.json === true) writeStdoutText(`${JSON.stringify(reportJson(report), null, 2)}\n`);
    else writeStdoutText(forStdout(reportText(report)));
    return report.ok ? 0 : 1;
  },
});

const subCommands: Readonly<Record<string, CommandDef<ArgsDef>>> = {
  list: listCommand as CommandDef<ArgsDef>,
  doctor: doctorCommand as CommandDef<ArgsDef>,
  install: installCommand as CommandDef<ArgsDef>,
  remove: removeCommand as CommandDef<ArgsDef>,
  enable: toggleCommand(true) as CommandDef<ArgsDef>,
  disable: toggleCommand(false) as CommandDef<ArgsDef>,
  logs: logsCommand as CommandDef<ArgsDef>,
  new: newCommand as CommandDef<ArgsDef>,
  test: testCommand as CommandDef<ArgsDef>,
};

const ALIASES: Readonly<Record<string, string>> = { rm: "remove" };

const extCommand = defineCommand({
  meta: { name: "zot ext", description: "manage zot extensions" },
  subCommands,
});

/** The UsageError of an unknown `zot ext <name>`, with a "did you mean" when a command is close. */
function unknownExtCommand(name: string): UsageError {
  const hint = didYouMean(name, [...Object.keys(subCommands), ...Object.keys(ALIASES)], (candidate) => `'zot ext ${candidate}'`);
  return new UsageError(`unknown ext command "${name}"${hint}`, { command: name });
}

function findSubcommand(name: string): CommandDef<ArgsDef> | undefined {
  const key = ALIASES[name] ?? name;
  return Object.hasOwn(subCommands, key) ? subCommands[key] : undefined;
}

type ArgvCheck = "run" | "help";

/**
 * Strict validation of a subcommand's argv against its citty args: unknown
 * flags, values on boolean flags, missing values, extra or missing
 * positionals are UsageErrors. `-h`/`--help` anywhere asks for usage.
 */
function checkArgv(command: string, args: ArgsDef, argv: readonly string[]): ArgvCheck {
  const options: ParseArgsOptionsConfig = { help: { type: "boolean", short: "h" } };
  const positionals: { name: string; required: boolean }[] = [];
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") {
      positionals.push({ name, required: def.required !== false && def.default === undefined });
      continue;
    }
    const aliases = "alias" in def ? [def.alias ?? []].flat() : [];
    const short = aliases.find((alias) => alias.length === 1);
    options[name] = { type: def.type === "boolean" ? "boolean" : "string", ...(short ? { short } : {}) };
  }
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  if (tokens.some((token) => token.kind === "option" && token.name === "help")) return "help";
  let seen = 0;
  for (const token of tokens) {
    if (token.kind === "positional") {
      if (seen >= positionals.length) throw new UsageError(`unexpected argument "${token.value}" for 'zot ext ${command}'`);
      seen++;
    } else if (token.kind === "option") {
      const option = options[token.name];
      if (!option) {
        const hint = token.rawName.startsWith("--") ? didYouMean(token.name, Object.keys(options), (name) => `--${name}`) : "";
        throw new UsageError(`unknown flag "${token.rawName}"${hint}`, { flag: token.rawName });
      }
      if (option.type === "boolean" && token.inlineValue) throw new UsageError(`flag "${token.rawName}" takes no value`);
      if (option.type === "string" && token.value === undefined) throw new UsageError(`flag "${token.rawName}" needs a value`);
    }
  }
  const missing = positionals.slice(seen).find((positional) => positional.required);
  if (missing) throw new UsageError(`'zot ext ${command}' needs a <${missing.name}> argument`);
  return "run";
}

async function dispatch(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h" || (first === "help" && rest.length === 0)) {
    await writeStdout(await usageText(extCommand));
    return 0;
  }
  if (first === "help") {
    const topic = rest[0] ?? "";
    const command = findSubcommand(topic);
    if (!command) throw unknownExtCommand(topic);
    await writeStdout(await usageText(command, extCommand));
    return 0;
  }
  if (first.startsWith("-")) throw new UsageError(`unknown flag "${first}"`, { flag: first });
  const command = findSubcommand(first);
  if (!command) throw unknownExtCommand(first);
  const commandArgs = (command.args ?? {}) as ArgsDef;
  if (checkArgv(first, commandArgs, rest) === "help") {
    await writeStdout(await usageText(command, extCommand));
    return 0;
  }
  const { result } = await runCommand(command, { rawArgs: [...rest] });
  return typeof result === "number" ? result : 0;
}

/** Entry for `zot ext <argv…>`; resolves to the exit code. */
export async function runExtCli(argv: readonly string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    // A subcommand's own mistake points to that subcommand's help.
    const command = typeof err.context.helpFor === "string" ? err.context.helpFor : undefined;
    await writeStderr(describeFailure(err, command === undefined ? EXT_USAGE_HINT : `run 'zot ext ${command} --help' for usage`).text);
    return 2;
  }
}
