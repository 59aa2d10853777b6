/**
 * `zot trust [dir]`, `zot untrust [dir]` and `zot trust --list`: the
 * headless side of the project-trust dialog (docs/extensions.md "Project
 * trust"). trust fingerprints what the project would run now (its
 * ./.zot/extensions as discovery sees them, ./.zot/mcp.json) and records it
 * as trusted in $ZOT_HOME/trust.json, printing each item; a project with
 * nothing of its own to run records nothing (exit 0, said on stderr).
 * untrust removes the project's entry (it is then asked about again;
 * removing one that is not there is not a failure). --list prints every
 * entry: directory, decision, date, and whether what the project would run
 * now still matches (matches / changed / gone). Results go to stdout,
 * warnings to stderr. Exit codes: 0 done, 1 failure (a directory that does
 * not exist, an unwritable store), 2 usage.
 */
import { currentDirectory, resolveFromCwd } from "../common/cwd.ts";
import { existsSync, statSync } from "node:fs";
import { UsageError, ZotError } from "../common/errors.ts";
import { zotPaths } from "../common/home.ts";
import { forStdout } from "../common/terminal-text.ts";
import { describeFailure, writeStderr, writeStdout } from "./output.ts";
import { renderTable } from "./table.ts";

const TRUST_HELP = `usage: zot trust [dir]
       zot trust --list
       zot untrust [dir]

A project's own extensions (./.zot/extensions/*) and MCP servers
(./.zot/mcp.json) run only in projects you trust: cloning a repository and
starting zot in it must not run its programs. zot trust records the project
directory (default: the current one) as trusted for what it holds now: a
fingerprint of each project extension's extension.json, its exec target and
the script files named in its args, and of .zot/mcp.json. When any of them
changes, zot asks again (interactive) or leaves them out with a warning
(-p, --json, rpc). Global extensions ($ZOT_HOME/extensions) and --ext paths
are yours and are never gated.

  zot trust              trust the current directory's extensions as they are now
  zot trust ~/src/app    trust another project
  zot trust --list       every recorded project: decision, date, still matching?
  zot untrust            forget the decision (asked again next time)

For one run only: zot --trust ... ; for CI images that build their own
checkout: ZOT_TRUST=1. The store is $ZOT_HOME/trust.json (0600).
`;

const HINT = "run 'zot trust --help' for usage";

function parseArgs(command: "trust" | "untrust", argv: readonly string[]): { help: boolean; list: boolean; dir: string | undefined } {
  let help = false;
  let list = false;
  const positionals: string[] = [];
  for (const arg of argv) {
    if (arg === "--help" || arg === "-h") help = true;
    else if (arg === "--list" && command === "trust") list = true;
    else if (arg.startsWith("-") && arg !== "-") throw new UsageError(`unknown flag "${arg}" for 'zot ${command}'`, { flag: arg });
    else positionals.push(arg);
  }
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}" for 'zot ${command}'`);
  if (list && positionals.length > 0) throw new UsageError("'zot trust --list' takes no directory");
  return { help, list, dir: positionals[0] };
}

function projectDir(dir: string | undefined): string {
  const path = dir === undefined ? currentDirectory("give the directory as an argument") : resolveFromCwd(dir);
  if (!existsSync(path) || !statSync(path).isDirectory()) throw new ZotError("trust", `${path} is not a directory`, { dir: path });
  return path;
}

async function currentFingerprint(dir: string) {
  const { discoverProject, reportFingerprint } = await import("../ext/project-trust.ts");
  const report = await discoverProject(dir, zotPaths());
  for (const error of report.manifestErrors) if (error.dir.startsWith(`${dir}/`)) await writeStderr(`zot: warning: ${error.message} (not covered: it does not load)\n`);
  return reportFingerprint(dir, report);
}

async function trust(dir: string): Promise<number> {
  const { recordDecision, trustStorePath, projectKey } = await import("../trust/index.ts");
  const current = await currentFingerprint(dir);
  const key = projectKey(dir);
  if (current.items.length === 0) {
    await writeStderr(`nothing to trust in ${key}: no project extensions (.zot/extensions) and no .zot/mcp.json; nothing recorded\n`);
    return 0;
  }
  const warnings = await recordDecision(trustStorePath(zotPaths().home), dir, "trusted", current.fingerprint, current.items);
  for (const warning of warnings) await writeStderr(`zot: warning: ${warning}\n`);
  const lines = [`trusted ${key} (fingerprint ${current.fingerprint.slice(0, 12)}):`];
  for (const item of current.items) {
    lines.push(`  ${item.name}  ${item.exec}  (${item.language})`);
    lines.push(`      hashed: ${item.files.join(", ")}`);
  }
  await writeStdout(`${lines.join("\n")}\n`);
  return 0;
}

async function untrust(dir: string): Promise<number> {
  const { forgetProject, trustStorePath, projectKey } = await import("../trust/index.ts");
  const { removed, warnings } = await forgetProject(trustStorePath(zotPaths().home), dir);
  for (const warning of warnings) await writeStderr(`zot: warning: ${warning}\n`);
  if (removed) await writeStdout(`untrusted ${projectKey(dir)}\n`);
  else await writeStderr(forStdout(`${projectKey(dir)} was not recorded; nothing to do\n`));
  return 0;
}

async function list(): Promise<number> {
  const { readTrustStore, trustStorePath } = await import("../trust/index.ts");
  const store = readTrustStore(trustStorePath(zotPaths().home));
  if (store.warning !== undefined) await writeStderr(`zot: warning: ${store.warning}\n`);
  const entries = Object.entries(store.projects).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) {
    await writeStderr("no projects recorded\ntrust one with 'zot trust [dir]'\n");
    return 0;
  }
  const rows: string[][] = [["DIRECTORY", "DECISION", "DATE", "NOW"]];
  for (const [dir, entry] of entries) {
    const exists = existsSync(dir);
    const now = exists ? ((await currentFingerprint(dir)).fingerprint === entry.fingerprint ? "matches" : "changed") : "gone";
    rows.push([dir, entry.decision, entry.at.slice(0, 19).replace("T", " "), now]);
  }
  await writeStdout(renderTable(rows));
  return 0;
}

/** Entry for `zot trust …` / `zot untrust …`; resolves to the exit code. */
export async function runTrustCli(command: "trust" | "untrust", argv: readonly string[]): Promise<number> {
  try {
    const args = parseArgs(command, argv);
    if (args.help) {
      await writeStdout(TRUST_HELP);
      return 0;
    }
    if (args.list) return await list();
    const dir = projectDir(args.dir);
    return command === "trust" ? await trust(dir) : await untrust(dir);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    await writeStderr(describeFailure(err, HINT).text);
    return 2;
  }
}
