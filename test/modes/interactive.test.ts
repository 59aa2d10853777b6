/**
 * The interactive mode end to end: dist/zot in a real pseudo-terminal
 * (Bun.Terminal) against the stand-in model server. Every step waits for an
 * output pattern (ANSI stripped) with a timeout; nothing sleeps. Covers a
 * streamed prompt with a tool call ending in the status line (and a
 * pre-filled editor), Ctrl+C aborting a stalled stream, a provider retry
 * shown and Ctrl+C ending its backoff wait, extension commands
 * (display, insert, open_panel, submit) and notes, the --no-yolo
 * confirmation, /exit restoring the terminal with no extension left, and
 * /reload-ext picking up a renamed command. (The key decoder and the editor
 * are tested with src/tui, test/tui.)
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSession } from "../../src/session/index.ts";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { isAlive, waitFor } from "../support/extensions.ts";
import { MODES_FIXTURES, createModeEnv, requestTexts, toolResultsSent, type ModeEnv } from "./helpers.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

/** termios c_lflag bits (Linux and macOS agree on these two). */
const ICANON = process.platform === "darwin" ? 0x100 : 0x2;
const ECHO = 0x8;
const WAIT_MS = 10_000;

interface PtyRun {
  readonly terminal: Bun.Terminal;
  readonly proc: Bun.Subprocess;
  /** Everything written so far, escape sequences included. */
  raw(): string;
  /** Current length of the ANSI-stripped output, to wait for output after this point. */
  mark(): number;
  waitFor(pattern: RegExp | string, since?: number): Promise<string>;
  type(text: string): void;
  exitCode(): Promise<number>;
}

async function startZot(env: ModeEnv, args: readonly string[], extraEnv: Record<string, string> = {}): Promise<PtyRun> {
  const binary = await zotBinary();
  const decoder = new TextDecoder();
  let output = "";
  const terminal = new Bun.Terminal({
    cols: 100,
    rows: 30,
    data: (_terminal, bytes) => {
      output += decoder.decode(bytes, { stream: true });
    },
  });
  const proc = Bun.spawn([binary, ...args, ...env.providerArgs()], {
    cwd: env.cwd,
    env: cleanEnv(env.home, { TERM: "xterm-256color", ...extraEnv }),
    terminal,
  });
  const stripped = (): string => Bun.stripANSI(output);
  const run: PtyRun = {
    terminal,
    proc,
    raw: () => output,
    mark: () => stripped().length,
    waitFor: async (pattern, since = 0) => {
      const found = (): string | undefined => {
        const text = stripped().slice(since);
        if (typeof pattern === "string") return text.includes(pattern) ? pattern : undefined;
        return pattern.exec(text)?.[0];
      };
      const deadline = Date.now() + WAIT_MS;
      while (Date.now() < deadline) {
        const match = found();
        if (match !== undefined) return match;
        if (proc.exitCode !== null) break;
        await Bun.sleep(10);
      }
      const match = found();
      if (match !== undefined) return match;
      throw new Error(`no ${String(pattern)} in the output:\n${stripped().slice(since)}`);
    },
    type: (text) => void terminal.write(text),
    exitCode: async () => {
      const timer = setTimeout(() => proc.kill("SIGKILL"), WAIT_MS);
      const code = await proc.exited;
      clearTimeout(timer);
      return code;
    },
  };
  // Raw mode and bracketed paste are on once the editor is up.
  await waitFor(() => output.includes("\x1b[?2004h") || proc.exitCode !== null, WAIT_MS);
  if (!output.includes("\x1b[?2004h")) throw new Error(`zot did not start:\n${stripped()}`);
  return run;
}

let env: ModeEnv;
let runs: PtyRun[] = [];
let extension: string;

beforeEach(() => {
  env = createModeEnv();
  runs = [];
  extension = join(env.base, "interactive-ext");
  cpSync(join(MODES_FIXTURES, "interactive-ext"), extension, { recursive: true });
});

afterEach(async () => {
  for (const run of runs) {
    if (run.proc.exitCode === null) run.proc.kill("SIGKILL");
    await run.proc.exited;
    run.terminal.close();
  }
  await env.dispose();
});

async function zot(args: readonly string[], extraEnv?: Record<string, string>): Promise<PtyRun> {
  const run = await startZot(env, args, extraEnv);
  runs.push(run);
  return run;
}

function extensionLog(): Record<string, unknown>[] {
  const path = join(extension, "events.log");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The idle status bar (drawn again when a turn ends): key hints, session tokens and cost. */
const STATUS_LINE = /Ctrl\+O tool output · ↑\d+ ↓\d+ · \$\d+\.\d{4}/;

describe("interactive mode", () => {
  test("a positional prompt pre-fills the editor; Enter streams the answer, the tool call and the status line", async () => {
    env.server.enqueue(
      { type: "tool_calls", text: "Let me look.", calls: [{ name: "bash", arguments: { command: "echo hi there" } }] },
      { type: "text", text: "All **good**: the command printed hi.", chunks: 4, delayMs: 5 },
    );
    const run = await zot(["run", "the", "check"]);
    await run.waitFor("› run the check");
    expect(env.server.requests).toHaveLength(0);

    const before = run.mark();
    run.type("\r");
    await run.waitFor("Let me look.", before);
    await run.waitFor("╭─ bash echo hi there", before);
    await run.waitFor(/│ hi there\s+│\s*│ \[exit 0\]/, before);
    await run.waitFor("All good: the command printed hi.", before);
    await run.waitFor(STATUS_LINE, before);
    expect(requestTexts(env.server.requests[0])).toContain("run the check");
    expect([...toolResultsSent(env.server.requests[1]).values()][0]).toContain("hi there");

    // Every message is in the session file as the turn goes.
    const [file] = env.sessionFiles();
    expect(loadSession(file as string).messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);

    run.type("/exit\r");
    expect(await run.exitCode()).toBe(0);
  });

  test("Ctrl+C aborts a stalled stream, the editor comes back, Ctrl+D on an empty line exits (only when idle)", async () => {
    env.server.enqueue({ type: "stall", text: "partial answer" });
    const run = await zot([]);
    run.type("go\r");
    await run.waitFor("partial answer");
    // While the turn runs Ctrl+D on the empty prompt does nothing (the original: "exits on empty idle editor").
    run.type("\x04");
    await Bun.sleep(300);
    expect(run.proc.exitCode).toBeNull();
    const before = run.mark();
    run.type("\x03");
    await run.waitFor("aborted", before);
    await run.waitFor(STATUS_LINE, before);

    env.server.enqueue({ type: "text", text: "second answer" });
    const again = run.mark();
    run.type("again\r");
    await run.waitFor("second answer", again);
    await run.waitFor(STATUS_LINE, again);
    expect(requestTexts(env.server.requests[1])).toContain("again");

    run.type("\x04");
    expect(await run.exitCode()).toBe(0);
  });

  test("a provider retry is shown as it happens; Ctrl+C during the backoff wait aborts at once", async () => {
    env.server.enqueue(
      { type: "http_error", status: 429, message: "slow down", headers: { "retry-after-ms": "30" } },
      { type: "text", text: "answer after the retry" },
    );
    const run = await zot([]);
    const go = run.mark();
    run.type("go\r");
    await run.waitFor("anthropic: retrying in 30 ms (retry 1 of 5): 429 rate limited", go);
    await run.waitFor(new RegExp(`answer after the retry[^]*${STATUS_LINE.source}`), go);

    env.server.enqueue({ type: "http_error", status: 529, message: "busy", headers: { "retry-after": "50" } }, { type: "text", text: "never asked for" });
    const waiting = run.mark();
    run.type("again\r");
    await run.waitFor("anthropic: retrying in 50 s (retry 1 of 5): 529 overloaded", waiting);
    const before = run.mark();
    run.type("\x03");
    // Well before the 50 s wait would end (WAIT_MS is 10 s).
    await run.waitFor("aborted", before);
    await run.waitFor(STATUS_LINE, before);
    expect(env.server.requests).toHaveLength(3);
    expect(env.server.pending()).toBe(1);

    run.type("\x04");
    expect(await run.exitCode()).toBe(0);
  });

  test("typing while busy queues the prompt; a paste and a trailing backslash give new lines; NO_COLOR has no colours", async () => {
    env.server.enqueue(
      { type: "text", text: "a slow first answer that streams for a while", chunks: 20, delayMs: 100 },
      { type: "text", text: "queued answer" },
      { type: "text", text: "two lines answer" },
    );
    const run = await zot(["--ext", extension], { NO_COLOR: "1" });
    await run.waitFor("ready (pid");
    run.type("first\r");
    await run.waitFor(/waiting for the model|streaming/);
    run.type("\x1b[200~line one\nline two\x1b[201~\r");
    await run.waitFor(/↳ queued: +line one line two/);
    await run.waitFor("queued answer");
    expect(requestTexts(env.server.requests[1])).toContain("line one\\nline two");

    const multi = run.mark();
    run.type("a\\\r");
    run.type("b\r");
    await run.waitFor("two lines answer", multi);
    await run.waitFor(STATUS_LINE, multi);
    expect(requestTexts(env.server.requests[2])).toContain("a\\nb");

    const prompts = extensionLog().filter((entry) => entry.event === "user_prompt_submit");
    expect(prompts.map((entry) => [entry.text, entry.queued])).toEqual([
      ["first", null],
      ["line one\nline two", true],
      ["a\nb", null],
    ]);
    expect(run.raw()).not.toMatch(/\x1b\[[0-9;]*m/);
    run.type("/exit\r");
    expect(await run.exitCode()).toBe(0);
  });

  test("extension commands: notes, display, insert, unknown commands, panels and submit", async () => {
    const run = await zot(["--ext", extension]);
    await run.waitFor(/\[interactive-ext\] ready \(pid \d+\)/);

    run.type("/show some args\r");
    await run.waitFor("[interactive-ext] shown: some args");

    const unknown = run.mark();
    run.type("/nope\r");
    await run.waitFor("unknown command /nope — type /help", unknown);

    run.type("/put\r");
    await run.waitFor("› drafted text");
    env.server.enqueue({ type: "text", text: "noted" });
    const sent = run.mark();
    run.type(" more\r");
    await run.waitFor("noted", sent);
    await run.waitFor(STATUS_LINE, sent);
    expect(requestTexts(env.server.requests[0])).toContain("drafted text more");

    run.type("/panel\r");
    await run.waitFor(/╭─ Picker ─+╮/);
    await run.waitFor("│ second");
    run.type("\x1b[B");
    await run.waitFor("│ got down");
    run.type("x");
    await run.waitFor("│ got rune x");
    run.type("\x1b");
    await waitFor(() => extensionLog().some((entry) => entry.panel_close === "p1"), WAIT_MS);

    env.server.enqueue({ type: "text", text: "answer to the extension" });
    const submitted = run.mark();
    run.type("/later\r");
    await run.waitFor("answer to the extension", submitted);
    expect(requestTexts(env.server.requests[1])).toContain("submitted by ext");

    const prompts = extensionLog().filter((entry) => entry.event === "user_prompt_submit").map((entry) => entry.text);
    expect(prompts).toEqual(["drafted text more", "submitted by ext"]);
    expect(extensionLog().filter((entry) => entry.panel_key !== undefined)).toEqual([
      { panel_key: "down", text: null },
      { panel_key: "rune", text: "x" },
    ]);
    run.type("/exit\r");
    expect(await run.exitCode()).toBe(0);
  });

  test("--no-yolo asks before each tool call: y runs it, n refuses it", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ name: "bash", arguments: { command: "echo confirmed" } }] },
      { type: "text", text: "first done" },
      { type: "tool_calls", calls: [{ name: "bash", arguments: { command: "echo refused" } }] },
      { type: "text", text: "second done" },
    );
    const run = await zot(["--no-yolo"]);
    run.type("first\r");
    await run.waitFor("[y] allow once  [a] always this tool  [A] always all  [n] deny");
    await run.waitFor("bash  echo confirmed");
    const yes = run.mark();
    run.type("y");
    await run.waitFor("bash: allowed once", yes);
    await run.waitFor(/│ confirmed\s+│\s*│ \[exit 0\]/, yes);
    await run.waitFor("first done", yes);

    const no = run.mark();
    run.type("second\r");
    await run.waitFor("bash  echo refused", no);
    run.type("n");
    await run.waitFor("bash: denied", no);
    await run.waitFor("second done", no);
    expect([...toolResultsSent(env.server.requests[3]).values()]).toContain("user declined");
    run.type("/exit\r");
    expect(await run.exitCode()).toBe(0);
  });

  test("/exit restores the terminal, ends the session for extensions and leaves no extension process", async () => {
    const run = await zot(["--ext", extension]);
    const ready = await run.waitFor(/ready \(pid \d+\)/);
    const pid = Number(/pid (\d+)/.exec(ready)?.[1]);
    expect(isAlive(pid)).toBe(true);
    expect(run.terminal.localFlags & ICANON).toBe(0);

    run.type("/exit\r");
    expect(await run.exitCode()).toBe(0);
    expect(run.terminal.localFlags & (ICANON | ECHO)).toBe(ICANON | ECHO);
    expect(run.raw()).toContain("\x1b[?2004l");
    expect(await waitFor(() => !isAlive(pid), 3_000)).toBe(true);
    const log = extensionLog();
    expect(log[0]).toMatchObject({ event: "session_start" });
    expect(log).toContainEqual(expect.objectContaining({ event: "session_end", reason: "shutdown" }));
    expect(log.at(-1)).toEqual({ shutdown: true });
  });

  test("/reload-ext restarts the extensions and re-registers their commands; Ctrl+C twice exits", async () => {
    const run = await zot(["--ext", extension]);
    await run.waitFor("ready (pid");
    run.type("/show a\r");
    await run.waitFor("[interactive-ext] shown: a");

    writeFileSync(join(extension, "command.txt"), "reveal\n");
    const reload = run.mark();
    run.type("/reload-ext\r");
    await run.waitFor("reloaded: 1 stopped, 1 loaded (1 ready)", reload);
    run.type("/reveal b\r");
    await run.waitFor("[interactive-ext] shown: b", reload);
    run.type("/show c\r");
    await run.waitFor("unknown command /show", reload);
    // Ctrl+C twice within 2 s exits.
    run.type("\x03\x03");
    expect(await run.exitCode()).toBe(0);
  });

  test("SIGTERM mid-turn aborts it, restores the terminal, shuts extensions down and exits 143", async () => {
    env.server.enqueue({ type: "stall", text: "still thinking" });
    const run = await zot(["--ext", extension]);
    const ready = await run.waitFor(/ready \(pid \d+\)/);
    const pid = Number(/pid (\d+)/.exec(ready)?.[1]);
    run.type("go\r");
    await run.waitFor("still thinking");
    run.proc.kill("SIGTERM");
    expect(await run.exitCode()).toBe(143);
    expect(run.terminal.localFlags & (ICANON | ECHO)).toBe(ICANON | ECHO);
    expect(await waitFor(() => !isAlive(pid), 3_000)).toBe(true);
    expect(extensionLog()).toContainEqual(expect.objectContaining({ event: "session_end", reason: "shutdown" }));
  });
});
