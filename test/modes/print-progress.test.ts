/**
 * Print mode's progress line (src/modes/print-progress.ts), through dist/zot
 * with stderr on a real PTY (Bun.Terminal) and stdout redirected to a file:
 * a model that holds its reply until the test releases it shows
 * `zot: waiting for the model… Ns` on the terminal, a running bash command
 * `zot: running bash… Ns`; the line is erased before zot exits and stdout
 * holds the answer alone (and a failure's `zot: …` line starts on a clean
 * line). With stderr on a pipe, or with CI set, nothing is
 * shown (the run is held past the 3 s threshold before it may end).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROGRESS_AFTER_MS } from "../../src/modes/print-progress.ts";
import { inCi } from "../../src/common/ci.ts";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { WAIT_MS } from "../support/tui-pty.ts";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

const ERASE_LINE = "\r\x1b[2K";

let env: ModeEnv;
useModeEnv((created) => (env = created));

interface PtyRun {
  /** Every byte written to the terminal (stderr) so far. */
  raw(): string;
  waitFor(pattern: RegExp, what: string): Promise<void>;
  /** zot's exit code, once it ended and all it wrote to the terminal was received. */
  exited(): Promise<number>;
  /** What zot wrote to stdout (a file). */
  stdout(): string;
  stop(): Promise<void>;
}

const SENTINEL = /\[zot exited (\d+)\]/;
let ptyRuns = 0;
const PID = /\[zot pid (\d+)\]/;

/**
 * dist/zot with stdin and stderr on a PTY and stdout redirected to a file.
 * A shell starts it, says `[zot pid N]`, waits for it and then writes
 * `[zot exited N]` to the terminal: once that arrived, so did every byte
 * zot wrote (one terminal, in order).
 */
async function runOnPty(args: readonly string[], extraEnv: Record<string, string> = {}, prelude = ":"): Promise<PtyRun> {
  const binary = await zotBinary();
  // One file per run: a test may have two at once.
  const outFile = join(env.base, `stdout-${++ptyRuns}.txt`);
  let received = "";
  const decoder = new TextDecoder();
  const terminal = new Bun.Terminal({ cols: 100, rows: 20, name: "xterm-256color", data: (_t, bytes) => void (received += decoder.decode(bytes, { stream: true })) });
  // zot runs in the background (stdin /dev/null; print mode has its prompt) so that the shell can say its pid.
  const script = prelude + '; out=$1; shift; "$@" > "$out" & pid=$!; echo "[zot pid $pid]" >&2; wait "$pid"; echo "[zot exited $?]" >&2';
  const proc = Bun.spawn(["/bin/sh", "-c", script, "sh", outFile, binary, ...args], {
    cwd: env.cwd,
    env: cleanEnv(env.home, { TERM: "xterm-256color", CI: undefined, ...extraEnv }),
    terminal,
  });
  /** What zot wrote (the shell's lines left out). */
  const raw = (): string => received.replace(/\[zot pid \d+\]\r?\n/, "").replace(/\[zot exited \d+\][\s\S]*$/, "");
  const waitFor = async (pattern: RegExp, what: string): Promise<void> => {
    const until = Date.now() + WAIT_MS;
    while (!pattern.test(received)) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}; the terminal got ${JSON.stringify(received)}`);
      await Bun.sleep(20);
    }
  };
  const signalZot = async (name: "SIGTERM" | "SIGKILL"): Promise<void> => {
    await waitFor(PID, "the shell to say zot's pid");
    try {
      process.kill(Number(PID.exec(received)?.[1]), name);
    } catch {
      // already gone
    }
  };
  return {
    raw,
    waitFor,
    async exited() {
      await waitFor(SENTINEL, "zot to exit");
      return Number(SENTINEL.exec(received)?.[1]);
    },
    stdout: () => readFileSync(outFile, "utf8"),
    async stop() {
      // SIGTERM first: zot ends what it started (a running bash command) before it exits.
      if (!SENTINEL.test(received)) {
        await signalZot("SIGTERM");
        await waitFor(SENTINEL, "zot to exit after SIGTERM").catch(() => signalZot("SIGKILL"));
      }
      await proc.exited;
      terminal.close();
    },
  };
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe("print mode on a terminal", () => {
  test("a slow model: the waiting line appears on stderr, is erased at the end, stdout is the answer alone", async () => {
    const reply = gate();
    env.server.enqueue({ type: "text", text: "the slow answer", holdUntil: reply.promise });
    const run = await runOnPty(["-p", "hello", ...env.providerArgs()]);
    try {
      await run.waitFor(/zot: waiting for the model… \d+s/, "the waiting line");
      // Redrawn in place: each drawing starts by erasing the line.
      expect(run.raw()).toContain(`${ERASE_LINE}zot: waiting for the model… `);
      reply.open();
      expect(await run.exited()).toBe(0);
      expect(run.stdout()).toBe("the slow answer\n");
      const raw = run.raw();
      // The last thing zot wrote to the terminal is the erasure.
      expect(raw).toMatch(/zot: waiting for the model… \d+s\r\x1b\[2K$/);
      // Nothing but progress drawings and their erasures reached the terminal.
      expect(raw.replaceAll(/\r\x1b\[2K(zot: waiting for the model… \d+s)?/g, "")).toBe("");
    } finally {
      reply.open();
      await run.stop();
    }
  }, 60_000);

  test("a terminal that reports 0 columns (a PTY nobody sized) counts as 80 wide: the line is not cut to 20", async () => {
    const reply = gate();
    env.server.enqueue({ type: "text", text: "unsized", holdUntil: reply.promise });
    const run = await runOnPty(["-p", "hello", ...env.providerArgs()], {}, "stty cols 0 rows 0");
    try {
      await run.waitFor(/zot: waiting for the model… \d+s/, "the whole waiting line");
      reply.open();
      expect(await run.exited()).toBe(0);
      expect(run.stdout()).toBe("unsized\n");
    } finally {
      reply.open();
      await run.stop();
    }
  }, 60_000);

  test("a running tool is named on the line; the answer after it is all of stdout", async () => {
    const command = "while [ ! -e go.flag ]; do sleep 0.05; done; echo tool-finished";
    env.server.enqueue({ type: "tool_calls", calls: [{ name: "bash", arguments: { command } }] }, { type: "text", text: "after the tool" });
    const run = await runOnPty(["-p", "run it", ...env.providerArgs()]);
    try {
      await run.waitFor(/zot: running bash… \d+s/, "the running-bash line");
      writeFileSync(join(env.cwd, "go.flag"), "");
      expect(await run.exited()).toBe(0);
      expect(run.stdout()).toBe("after the tool\n");
      expect(run.raw()).toMatch(/zot: (running bash|waiting for the model)… \d+s\r\x1b\[2K$/);
    } finally {
      writeFileSync(join(env.cwd, "go.flag"), "");
      await run.stop();
    }
  }, 60_000);
});

describe("a failing slow run", () => {
  test("the line is erased before the error line, which starts a clean line; stdout stays empty", async () => {
    const reply = gate();
    env.server.enqueue({ type: "drop", text: "half", holdUntil: reply.promise });
    const run = await runOnPty(["-p", "hello", ...env.providerArgs()]);
    try {
      await run.waitFor(/zot: waiting for the model… \d+s/, "the waiting line");
      reply.open();
      expect(await run.exited()).toBe(1);
      expect(run.stdout()).toBe("");
      const raw = run.raw();
      const error = raw.indexOf("zot: anthropic: connection dropped mid-stream");
      // The last drawing was erased, and nothing else came between the erasure and the error line.
      expect(raw.slice(0, error)).toMatch(/zot: waiting for the model… \d+s\r\x1b\[2K$/);
    } finally {
      reply.open();
      await run.stop();
    }
  }, 60_000);
});

describe("inCi", () => {
  test("CI set to anything but empty, 0 or false", () => {
    expect([undefined, "", "0", "false", "FALSE", "true", "1", "yes"].map((CI) => inCi({ CI }))).toEqual([false, false, false, false, false, true, true, true]);
    // The other CI systems' variables count too (the same rule as the update check's).
    expect([inCi({ GITHUB_ACTIONS: "true" }), inCi({ JENKINS_URL: "http://ci" }), inCi({ GITLAB_CI: "false" })]).toEqual([true, true, false]);
  });
});

describe("no progress line", () => {
  test("when TERM is dumb or unset (no known cursor control: the line's \\r and erase sequences would show as text)", async () => {
    const dumbReply = gate();
    const unsetReply = gate();
    env.server.enqueueFor((body) => JSON.stringify(body).includes("dumb-term"), { type: "text", text: "dumb answer", holdUntil: dumbReply.promise });
    env.server.enqueueFor((body) => JSON.stringify(body).includes("no-term"), { type: "text", text: "unset answer", holdUntil: unsetReply.promise });
    const dumb = await runOnPty(["-p", "dumb-term", ...env.providerArgs()], { TERM: "dumb" });
    // The shell drops TERM just before zot starts (Bun.spawn's env keeps what the helper sets).
    const unset = await runOnPty(["-p", "no-term", ...env.providerArgs()], {}, "unset TERM");
    try {
      await Bun.sleep(PROGRESS_AFTER_MS + 2_000);
      dumbReply.open();
      unsetReply.open();
      expect(await dumb.exited()).toBe(0);
      expect(await unset.exited()).toBe(0);
      expect(dumb.stdout()).toBe("dumb answer\n");
      expect(unset.stdout()).toBe("unset answer\n");
      expect(dumb.raw()).toBe("");
      expect(unset.raw()).toBe("");
    } finally {
      dumbReply.open();
      unsetReply.open();
      await dumb.stop();
      await unset.stop();
    }
  }, 60_000);

  test("when stderr is a pipe, or when CI is set", async () => {
    const pipeReply = gate();
    const ciReply = gate();
    env.server.enqueueFor((body) => JSON.stringify(body).includes("via-pipe"), { type: "text", text: "piped answer", holdUntil: pipeReply.promise });
    env.server.enqueueFor((body) => JSON.stringify(body).includes("in-ci"), { type: "text", text: "ci answer", holdUntil: ciReply.promise });
    const piped = env.run(["-p", "via-pipe", ...env.providerArgs()], { timeoutMs: 40_000 });
    const ci = await runOnPty(["-p", "in-ci", ...env.providerArgs()], { CI: "true" });
    try {
      // Past the threshold (and a redraw) for both runs: a line would be on screen by now.
      await Bun.sleep(PROGRESS_AFTER_MS + 2_000);
      pipeReply.open();
      ciReply.open();
      const result = await piped;
      expect(result.code).toBe(0);
      expect(result.stdout).toBe("piped answer\n");
      expect(result.stderr).toBe("");
      expect(await ci.exited()).toBe(0);
      expect(ci.stdout()).toBe("ci answer\n");
      expect(ci.raw()).toBe("");
    } finally {
      pipeReply.open();
      ciReply.open();
      await ci.stop();
    }
  }, 60_000);
});
