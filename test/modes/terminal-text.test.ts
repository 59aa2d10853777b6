/**
 * Outside text on a terminal, end to end: dist/zot in a real pseudo-terminal
 * (Bun.Terminal) against the stand-in model server, whose answer (and an
 * extension's note and display reply, and a provider error body) carries
 * title sets, OSC 52 clipboard writes, OSC 8 links, screen clears, cursor
 * moves, the alternate screen, 8-bit CSI and a carriage return. On the
 * terminal none of them arrive but SGR colours do; through pipes the raw
 * text is unchanged. Print, JSON and interactive mode, stdout and stderr;
 * `zot ext logs` (a sequence split across its 64 KiB read chunks),
 * `zot ext doctor` and the --resume picker.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { waitFor } from "../support/extensions.ts";
import { MODES_FIXTURES, createModeEnv, type ModeEnv } from "./helpers.ts";

const WAIT_MS = 10_000;

/** A model answer that tries to drive the terminal; only the SGR and the words may show. */
const HOSTILE =
  "start \x1b]0;PWNED-TITLE\x07\x1b]52;c;Y2xpcGJvYXJk\x07\x1b[2J\x1b[H\x1b[?1049h" +
  "\x1b[31mRED\x1b[0m\x9b6n \x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\ \x1b[5;5Hsafe\rEVIL\x1bc end";
const HOSTILE_SHOWN = "start \x1b[31mRED\x1b[0m link safeEVIL end";

/** Sequences that must never reach the terminal (zot itself never writes these). */
const FORBIDDEN: readonly string[] = [
  "PWNED-TITLE", "Y2xpcGJvYXJk", "evil.example", "\x1b]", "\x1b[2J", "\x1b[?1049h", "\x1b[5;5H", "\x1bc", "\x9b", "\x1b[6n",
  "NOTE-TITLE", "bm90ZQ==", "DISPLAY-TITLE", "ZGlzcGxheQ==",
];

function expectNoForbidden(output: string, options: { readonly carriageReturns?: boolean } = {}): void {
  for (const sequence of FORBIDDEN) expect(output).not.toContain(sequence);
  // A carriage return not followed by a newline could overwrite the line (the PTY turns "\n" into "\r\n").
  // The interactive screen writes its own to redraw the live region.
  if (options.carriageReturns !== true) expect(output).not.toMatch(/\r(?!\n)/);
}

interface PtyRun {
  readonly proc: Bun.Subprocess;
  /** Everything the terminal received so far. */
  output(): string;
  waitFor(text: string): Promise<void>;
  type(text: string): void;
  exited(): Promise<number>;
  close(): void;
}

let env: ModeEnv;
let runs: PtyRun[] = [];

beforeEach(() => {
  env = createModeEnv();
  runs = [];
});

afterEach(async () => {
  for (const run of runs) run.close();
  for (const run of runs) await run.proc.exited;
  await env.dispose();
});

async function inTerminal(args: readonly string[]): Promise<PtyRun> {
  const binary = await zotBinary();
  const decoder = new TextDecoder();
  let output = "";
  const terminal = new Bun.Terminal({
    cols: 200,
    rows: 40,
    data: (_terminal, bytes) => {
      output += decoder.decode(bytes, { stream: true });
    },
  });
  const proc = Bun.spawn([binary, ...args], { cwd: env.cwd, env: cleanEnv(env.home, { TERM: "xterm-256color" }), terminal });
  const run: PtyRun = {
    proc,
    output: () => output,
    waitFor: async (text) => {
      await waitFor(() => output.includes(text), WAIT_MS).catch(() => undefined);
      if (!output.includes(text)) throw new Error(`no ${JSON.stringify(text)} in the terminal output:\n${JSON.stringify(output)}`);
    },
    type: (text) => void terminal.write(text),
    exited: async () => {
      const timer = setTimeout(() => proc.kill("SIGKILL"), WAIT_MS);
      const code = await proc.exited;
      clearTimeout(timer);
      return code;
    },
    close: () => {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      terminal.close();
    },
  };
  runs.push(run);
  return run;
}

describe("a terminal gets sanitized text, a pipe the raw text", () => {
  test("print mode: the answer on a terminal keeps its colours and nothing else; through a pipe it is unchanged", async () => {
    env.server.enqueue({ type: "text", text: HOSTILE, chunks: 9 });
    const run = await inTerminal(["-p", "hi", "--no-session", ...env.providerArgs()]);
    expect(await run.exited()).toBe(0);
    await run.waitFor("end");
    const output = run.output();
    expect(output.replace(/\r\n/g, "\n")).toContain(`${HOSTILE_SHOWN}\n`);
    expectNoForbidden(output);

    env.server.enqueue({ type: "text", text: HOSTILE, chunks: 9 });
    const piped = await env.run(["-p", "hi", "--no-session", ...env.providerArgs()]);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe(`${HOSTILE}\n`);
  });

  test("JSON mode: on a terminal C1 characters are \\u-escaped (same JSON values); through a pipe they stay raw", async () => {
    env.server.enqueue({ type: "text", text: HOSTILE });
    const run = await inTerminal(["--json", "hi", "--no-session", ...env.providerArgs()]);
    expect(await run.exited()).toBe(0);
    await run.waitFor('{"type":"done"}');
    const output = run.output();
    expect(output).not.toContain("\x9b");
    expect(output).not.toContain("\x1b");
    const lines = output.split("\r\n").filter((line) => line.startsWith("{"));
    const message = lines.map((line) => JSON.parse(line) as { type: string; content?: { text?: string }[] }).find((event) => event.type === "assistant_message");
    expect(message?.content?.[0]?.text).toBe(HOSTILE);

    env.server.enqueue({ type: "text", text: HOSTILE });
    const piped = await env.run(["--json", "hi", "--no-session", ...env.providerArgs()]);
    expect(piped.stdout).toContain("\x9b");
  });

  test("stderr: a provider error quoting the server's body is sanitized on a terminal, raw through a pipe", async () => {
    env.server.enqueue({ type: "http_error", status: 400, message: `bad request ${HOSTILE}` });
    const run = await inTerminal(["-p", "hi", "--no-session", ...env.providerArgs()]);
    expect(await run.exited()).toBe(1);
    await run.waitFor("end");
    expect(run.output()).toContain("zot: ");
    expectNoForbidden(run.output());

    env.server.enqueue({ type: "http_error", status: 400, message: `bad request ${HOSTILE}` });
    const piped = await env.run(["-p", "hi", "--no-session", ...env.providerArgs()]);
    expect(piped.code).toBe(1);
    expect(piped.stderr).toContain("\x1b]0;PWNED-TITLE\x07");
  });

  test("an extension's note (stderr) and its command's display reply (stdout) are sanitized on a terminal", async () => {
    const extension = join(env.base, "hostile-text");
    cpSync(join(MODES_FIXTURES, "hostile-text"), extension, { recursive: true });
    const run = await inTerminal(["-p", "/show", "--no-session", "--ext", extension, ...env.providerArgs()]);
    expect(await run.exited()).toBe(0);
    await run.waitFor("display-text");
    await run.waitFor("note-text");
    const output = run.output();
    expect(output).toContain("[hostile-text] info: note-text");
    expect(output).toContain("\x1b[31mdisplay-text\x1b[0m");
    expectNoForbidden(output);

    const piped = await env.run(["-p", "/show", "--no-session", "--ext", extension, ...env.providerArgs()]);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain("\x1b]2;DISPLAY-TITLE\x1b\\");
    expect(piped.stderr).toContain("\x1b]0;NOTE-TITLE\x07");
  });

  test("interactive mode: a streamed answer whose sequences are split across deltas never reaches the terminal", async () => {
    const extension = join(env.base, "hostile-text");
    cpSync(join(MODES_FIXTURES, "hostile-text"), extension, { recursive: true });
    // 40 small deltas, slow enough that the live region is drawn while the answer streams.
    env.server.enqueue({ type: "text", text: HOSTILE, chunks: 40, delayMs: 30 });
    const run = await inTerminal(["--no-session", "--ext", extension, ...env.providerArgs()]);
    await run.waitFor("note-text");
    run.type("go\r");
    await run.waitFor("end");
    await run.waitFor("ctx "); // the status bar once the turn's usage arrived
    // zot's own background-colour query (OSC 11, docs/themes.md) is not outside text.
    expectNoForbidden(run.output().replace("\x1b]11;?\x1b\\", ""), { carriageReturns: true });
    run.type("/exit\r");
    expect(await run.exited()).toBe(0);
  });
});

describe("zot ext and the session picker on a terminal", () => {
  test("ext logs: an extension's log is sanitized on a terminal, also across read chunks; raw through a pipe", async () => {
    mkdirSync(join(env.home, "logs"), { recursive: true });
    const log = join(env.home, "logs", "ext-noisy.log");
    // The title sequence straddles the 64 KiB boundary at which the log is read.
    const content = `${"x".repeat(64 * 1024 - 5)}\x1b]0;PWNED-TITLE\x07 after the chunk ${HOSTILE}\nlog-end\n`;
    writeFileSync(log, content);
    const run = await inTerminal(["ext", "logs", "noisy"]);
    expect(await run.exited()).toBe(0);
    await run.waitFor("log-end");
    expect(run.output()).toContain(" after the chunk start \x1b[31mRED\x1b[0m link safeEVIL end");
    expectNoForbidden(run.output());

    const piped = await env.run(["ext", "logs", "noisy"]);
    expect(piped.stdout).toBe(readFileSync(log, "utf8"));
  });

  test("ext doctor: notes and names an extension sent are sanitized on a terminal", async () => {
    cpSync(join(MODES_FIXTURES, "hostile-text"), join(env.home, "extensions", "hostile-text"), { recursive: true });
    const run = await inTerminal(["ext", "doctor", "--cwd", env.cwd]);
    expect(await run.exited()).toBe(0);
    await run.waitFor("no problems found");
    expect(run.output()).toContain("note-text");
    expectNoForbidden(run.output());
  });

  test("--resume: a session's first prompt is sanitized in the picker", async () => {
    env.server.enqueue({ type: "text", text: "ok" });
    const first = await env.run(["-p", HOSTILE, ...env.providerArgs()]);
    expect(first.code).toBe(0);
    const run = await inTerminal(["-p", "again", "--resume", ...env.providerArgs()]);
    await run.waitFor("resume which session?");
    run.type("\r");
    expect(await run.exited()).toBe(1);
    // The label is cut at 70 characters (counting the raw text), so only its start shows.
    expect(run.output()).toContain("2 msgs    start \x1b[31mRED");
    expectNoForbidden(run.output());
  });
});
