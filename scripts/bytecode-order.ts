/**
 * `npm run bytecode-order [-- --binary <zot>] [--out <file>]`: records which
 * bytecode zot's common routes use and writes scripts/bytecode-order.txt,
 * which scripts/compile.ts hands to `bun build --bytecode-order` (the
 * functions listed are laid out together at the front of the binary, so a
 * run touches fewer of its pages).
 *
 * Recording: a build without an order (compiled into a temp dir, or
 * `--binary`) runs each route once with BUN_BYTECODE_ORDER_OUT set (Bun
 * writes the functions the run used on exit) against the stand-in model
 * server (test/support/model-server.ts), in a fresh temp HOME, ZOT_HOME
 * and project dir, with only PATH, HOME and ZOT_HOME set (as
 * scripts/bench/session.ts runs it). Routes, most common first:
 *   print        `-p go`: 3 rounds of bash, read, write and edit, then "done"
 *   json         the same with `--json`
 *   ext-tool     `-p go --ext test/fixtures/extensions/py-hello`: 3 rounds
 *                of its Python tool `weather` (skipped without python3)
 *   commands     `--version`, `--help`, `ext list`
 *   interactive  the chat screen in a PTY (test/support/tui-pty.ts, whose
 *                cleanEnv adds TERM and the update-check switch): a
 *                prompt, its answer, the turn's end, `/quit`
 * Merging: one file, `v2` and then each route's lines in route order, a
 * line already listed by an earlier route left out (Bun's own reading of
 * several files: the first file that lists a function places it).
 * Check: a build with the new file runs the print route with
 * ZOT_TRACE_STARTUP=1 and the script prints its `trace bytecode` line.
 * Exit 1 when a route fails (its output shown); every temp dir and process
 * is removed either way. Run it again after large changes: a stale profile
 * still works, it only covers less.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BYTECODE_ORDER_FILE, buildStamp, compileZot } from "./compile.ts";
import { startModelServer, type ModelServer, type ScriptedReply } from "../test/support/model-server.ts";

const HEADER = "v2";
const FILE_TEXT = "alpha beta gamma\ndelta epsilon zeta\neta theta iota\n";
const ROUND_TOOLS = 3;
const RUN_TIMEOUT_MS = 60_000;
/** The chat screen's status-bar spinner while a turn runs (test/modes/tui-chat.ts). */
const SPINNER = /[\u2801-\u28ff]/;
const PY_HELLO = join(import.meta.dir, "..", "test", "fixtures", "extensions", "py-hello");

interface Options {
  readonly binary: string | undefined;
  readonly out: string;
}

function parseArgs(argv: readonly string[]): Options {
  let binary: string | undefined;
  let out = BYTECODE_ORDER_FILE;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = argv[i + 1];
    if ((arg === "--binary" || arg === "--out") && next !== undefined) {
      if (arg === "--binary") binary = resolve(next);
      else out = resolve(next);
      i++;
    } else {
      console.error(`bytecode-order: unknown argument ${JSON.stringify(arg)}\nusage: bun scripts/bytecode-order.ts [--binary <zot>] [--out <file>]`);
      process.exit(2);
    }
  }
  return { binary, out };
}

/** The print and JSON routes' script: every built-in file and shell tool, a few rounds, then the answer. */
function toolRounds(): ScriptedReply[] {
  const replies: ScriptedReply[] = [];
  for (let round = 1; round <= ROUND_TOOLS; round++) {
    const file = `new-${round}.txt`;
    const calls: [string, Record<string, unknown>][] = [
      ["bash", { command: "echo hi" }],
      ["read", { path: "notes.txt" }],
      ["write", { path: file, content: "one\ntwo\nthree\n" }],
      ["edit", { path: file, edits: [{ oldText: "two", newText: "zwei" }] }],
    ];
    for (const [name, args] of calls) replies.push({ type: "tool_calls", calls: [{ id: `toolu_${round}_${name}`, name, arguments: args }] });
  }
  replies.push({ type: "text", text: "done" });
  return replies;
}

/** The extension route's script: the Python fixture's tool a few rounds, then the answer. */
function extensionRounds(): ScriptedReply[] {
  const replies: ScriptedReply[] = [];
  for (let round = 1; round <= ROUND_TOOLS; round++) {
    replies.push({ type: "tool_calls", calls: [{ id: `toolu_${round}_weather`, name: "weather", arguments: { city: "Oslo" } }] });
  }
  replies.push({ type: "text", text: "done" });
  return replies;
}

interface Sandbox {
  readonly home: string;
  readonly cwd: string;
  readonly env: Record<string, string>;
}

class Recorder {
  readonly profiles: { readonly route: string; readonly file: string }[] = [];
  #count = 0;

  constructor(readonly root: string, readonly binary: string, readonly server: ModelServer) {}

  /** A fresh HOME/ZOT_HOME and project dir; env limited to PATH, HOME, ZOT_HOME (plus `extra`). */
  sandbox(extra: Record<string, string> = {}): Sandbox {
    const dir = join(this.root, `run-${++this.#count}`);
    const home = join(dir, "home");
    const cwd = join(dir, "project");
    mkdirSync(home, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, "notes.txt"), FILE_TEXT);
    return { home, cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZOT_HOME: home, ...extra } };
  }

  providerArgs(steps: number): string[] {
    return [
      "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--api-key", "x",
      "--base-url", this.server.anthropicBaseUrl, "--max-steps", String(steps),
    ];
  }

  profilePath(route: string): string {
    const file = join(this.root, `${route}-${this.profiles.length + 1}.order`);
    this.profiles.push({ route, file });
    return file;
  }

  /** Runs the binary to its end; throws with its output unless it exits 0 having used every scripted reply. */
  async run(route: string, args: readonly string[], replies: readonly ScriptedReply[] = [], extraEnv: Record<string, string> = {}): Promise<string> {
    this.server.enqueue(...replies);
    const box = this.sandbox({ BUN_BYTECODE_ORDER_OUT: this.profilePath(route), ...extraEnv });
    const proc = Bun.spawn([this.binary, ...args], { cwd: box.cwd, env: box.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), RUN_TIMEOUT_MS);
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    if (code !== 0 || this.server.pending() !== 0) {
      throw new Error(`route ${route} (zot ${args.join(" ")}) exited ${code} with ${this.server.pending()} replies unused\n${stdout}${stderr}`);
    }
    return stderr;
  }
}

async function recordInteractive(recorder: Recorder): Promise<void> {
  // tui-pty.ts starts the binary zotBinary() names, which ZOT_TEST_BINARY sets when the module loads.
  process.env.ZOT_TEST_BINARY = recorder.binary;
  const { TuiPty } = await import("../test/support/tui-pty.ts");
  recorder.server.enqueue({ type: "text", text: "the answer is forty-two" });
  const box = recorder.sandbox();
  const tui = await TuiPty.start({
    home: box.home,
    cwd: box.cwd,
    args: recorder.providerArgs(4),
    // cleanEnv keeps the caller's HOME, TMPDIR and LANG; this run gets the sandbox's HOME.
    env: { HOME: box.home, TMPDIR: undefined, LANG: undefined, BUN_BYTECODE_ORDER_OUT: recorder.profilePath("interactive") },
  });
  try {
    tui.type("go");
    tui.press("enter");
    await tui.waitForText("forty-two");
    // Then the turn's end: the status bar's spinner (braille) gone.
    await tui.waitFor(() => !tui.screen.screen().some((row) => SPINNER.test(row)), "the turn to end (no spinner)");
    tui.type("/quit");
    tui.press("enter");
    const code = await tui.exitCode();
    if (code !== 0) throw new Error(`route interactive: zot exited ${code}\n${tui.dump()}`);
  } finally {
    await tui.stop();
  }
}

/** `v2`, then every route's lines in order, each line once (the first route that lists it places it). */
export function mergeProfiles(texts: readonly string[]): string {
  const seen = new Set<string>();
  const lines = [HEADER];
  for (const [index, text] of texts.entries()) {
    const [header, ...rest] = text.split("\n");
    if (header !== HEADER) throw new Error(`profile ${index + 1} starts with ${JSON.stringify(header)}, not ${HEADER}`);
    for (const line of rest) {
      if (line === "" || seen.has(line)) continue;
      seen.add(line);
      lines.push(line);
    }
  }
  return `${lines.join("\n")}\n`;
}

function makeRoot(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "zot-bytecode-order-")));
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const root = makeRoot();
  const server = startModelServer();
  try {
    const stamp = await buildStamp();
    let binary = options.binary;
    if (binary === undefined) {
      binary = join(root, "zot-unordered");
      const built = compileZot({ outfile: binary, stamp, inheritOutput: false, bytecodeOrder: false });
      if (!built.ok) throw new Error(`building zot without an order failed (exit ${built.exitCode}):\n${built.output}`);
    }
    const recorder = new Recorder(root, binary, server);
    const rounds = toolRounds();
    await recorder.run("print", ["-p", "go", ...recorder.providerArgs(rounds.length)], rounds);
    await recorder.run("json", ["--json", "go", ...recorder.providerArgs(rounds.length)], rounds);
    if (Bun.which("python3") === null) console.log("ext-tool     skipped: no python3 on PATH");
    else await recorder.run("ext-tool", ["-p", "go", "--ext", PY_HELLO, ...recorder.providerArgs(4)], extensionRounds());
    await recorder.run("version", ["--version"]);
    await recorder.run("help", ["--help"]);
    await recorder.run("ext-list", ["ext", "list"]);
    await recordInteractive(recorder);

    const texts = recorder.profiles.map((profile) => readFileSync(profile.file, "utf8"));
    const merged = mergeProfiles(texts);
    for (const [index, profile] of recorder.profiles.entries()) {
      console.log(`${profile.route.padEnd(12)} ${String((texts[index] ?? "").split("\n").length - 2).padStart(6)} lines`);
    }
    const partial = `${options.out}.${process.pid}.partial`;
    writeFileSync(partial, merged);
    renameSync(partial, options.out);
    console.log(`${"merged".padEnd(12)} ${String(merged.split("\n").length - 2).padStart(6)} lines → ${options.out}`);

    // Check: a build laid out by the new file, on the print route.
    const ordered = join(root, "zot-ordered");
    const built = compileZot({ outfile: ordered, stamp, inheritOutput: false, bytecodeOrder: [options.out] });
    if (!built.ok) throw new Error(`building zot with ${options.out} failed (exit ${built.exitCode}):\n${built.output}`);
    const check = new Recorder(root, ordered, server);
    const stderr = await check.run("check", ["-p", "go", ...check.providerArgs(rounds.length)], rounds, { ZOT_TRACE_STARTUP: "1" });
    const line = stderr.split("\n").find((row) => row.startsWith("zot: trace bytecode "));
    console.log(line === undefined ? "check: no bytecode trace line (the build took no order?)" : `check (print route): ${line.slice("zot: trace bytecode ".length)}`);
    console.log("now `npm run build` to lay dist/zot out by it");
  } finally {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    console.error(`bytecode-order: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
