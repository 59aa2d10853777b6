/**
 * stdout that stops being read (issue 7, class 4, for stdout), through
 * dist/zot: a stalled stdout never blocks signal handling (--json into an
 * unread FIFO, `zot rpc` into an unread socket: SIGTERM → 143 with the
 * normal cleanup: extensions shut down, no descendant left; -p waiting to
 * print its answer: SIGINT → 130; `zot ext logs -f`: SIGINT ends it);
 * while it is stalled zot stops reading the model stream and a running bash
 * command's output (backpressure, bounded memory); a slow reader gets every event in order; the shared
 * stdout description is never left non-blocking; print mode into
 * `head -c 10` (EPIPE) ends cleanly with 141 (stdout-gone.test.ts has the rest). Every process a test starts is killed
 * in afterEach (matched by its command line, so a reused pid is never hit).
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, removeTempDirs, zotBinary } from "../support/binary.ts";
import { BEHAVE, FIXTURES, waitFor } from "../support/extensions.ts";
import { stalledFifo, statusFlags, unreadBytes, type StalledFifo } from "../support/fifo.ts";
import { commandLine, exitWithin, isAlive } from "../support/processes.ts";
import { createModeEnv, parseJsonLines, type ModeEnv } from "./helpers.ts";

afterAll(removeTempDirs);

const linux = process.platform === "linux";
const PROCESS_TREE = join(FIXTURES, "process-tree.py");
const SOCKET_STDOUT = join(FIXTURES, "..", "socket-stdout.py");

let env: ModeEnv;
let zot = "";
let spawned: Bun.Subprocess[];
let fifos: StalledFifo[];
/** pid → its command line when learned: SIGKILLed after the test if it still runs that. */
let pids: Map<number, string>;

beforeEach(async () => {
  env = createModeEnv();
  zot = await zotBinary();
  spawned = [];
  fifos = [];
  pids = new Map();
});
afterEach(async () => {
  for (const [pid, cmdline] of pids) {
    try {
      if (commandLine(pid) === cmdline) process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  for (const proc of spawned) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    await proc.exited;
  }
  for (const fifo of fifos) fifo.close();
  await env.dispose();
});

/** Records `pid` for the cleanup (a zot that never exits leaves its extensions and their orphans behind). */
function remember(pid: number): void {
  const cmdline = commandLine(pid);
  if (cmdline !== undefined) pids.set(pid, cmdline);
}

function fifo(): StalledFifo {
  const made = stalledFifo(env.base, `stdout-${fifos.length}.fifo`);
  fifos.push(made);
  return made;
}

/** dist/zot with the stand-in model, stdout on `stdout`. */
function spawnZot(
  args: readonly string[],
  stdout: number | "pipe",
  stderr: "pipe" | "ignore" = "pipe",
  extraEnv: Record<string, string> = {},
): Bun.Subprocess<"ignore", "pipe", "pipe"> {
  const proc = Bun.spawn([zot, ...args, ...env.providerArgs()], { cwd: env.cwd, env: cleanEnv(env.home, extraEnv), stdin: "ignore", stdout, stderr });
  spawned.push(proc);
  return proc as Bun.Subprocess<"ignore", "pipe", "pipe">;
}

interface Fixtures {
  readonly args: string[];
  /** Frames the behave extension received (one JSON per line). */
  readonly framesFile: string;
  /** behave.py's pid and its child's. */
  readonly pidFile: string;
  /** The setsid orphan's pid (process-tree.py grandchild=). */
  readonly orphanFile: string;
}

function extensionDir(name: string, exec: string, args: readonly string[]): string {
  const dir = join(env.base, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name, version: "1.0.0", exec, args: [name, ...args], language: "python" }));
  return dir;
}

/** Two extensions: behave.py (records frames, has a child, writes its pids) and process-tree.py (leaves a setsid orphan). */
function extensions(): Fixtures {
  const framesFile = join(env.base, "frames.jsonl");
  const pidFile = join(env.base, "behave.pid");
  const orphanFile = join(env.base, "orphan.pid");
  const watcher = extensionDir("watcher", BEHAVE, [`record=${framesFile}`, "child", `pid-file=${pidFile}`]);
  const orphaner = extensionDir("orphaner", PROCESS_TREE, [`grandchild=${orphanFile}`]);
  return { args: ["--ext", watcher, "--ext", orphaner], framesFile, pidFile, orphanFile };
}

function started(fixtures: Fixtures): number[] {
  const pair = JSON.parse(readFileSync(fixtures.pidFile, "utf8")) as { pid: number; child: number };
  return [pair.pid, pair.child, Number(readFileSync(fixtures.orphanFile, "utf8").trim())];
}

/** Waits until both extensions have started what they start, and records those processes for the cleanup. */
async function extensionsStarted(fixtures: Fixtures): Promise<void> {
  const written = (path: string): boolean => existsSync(path) && readFileSync(path, "utf8").trim() !== "";
  expect(await waitFor(() => written(fixtures.orphanFile) && written(fixtures.pidFile), 15_000)).toBe(true);
  const [, , orphan] = started(fixtures);
  // The orphan's shell execs `sleep`: record the command line after that.
  await waitFor(() => commandLine(orphan as number)?.startsWith("sleep\0") === true, 5_000);
  for (const pid of started(fixtures)) remember(pid);
}

/** After zot has gone: the extensions got `shutdown`, and nothing they started runs. */
async function cleanedUp(fixtures: Fixtures): Promise<void> {
  const pidsStarted = started(fixtures);
  expect(await waitFor(() => !pidsStarted.some(isAlive), 5_000)).toBe(true);
  const frames = readFileSync(fixtures.framesFile, "utf8").split("\n").filter((line) => line !== "");
  expect(frames.map((line) => (JSON.parse(line) as { type: string }).type)).toContain("shutdown");
}

/** Waits until the endless reply has stopped being read: zot no longer takes the model stream. */
async function modelStreamPaused(): Promise<boolean> {
  let last = -1;
  let stableSince = Date.now();
  return waitFor(() => {
    const sent = env.server.endlessCharsSent();
    if (sent !== last) {
      last = sent;
      stableSince = Date.now();
      return false;
    }
    return sent > 0 && Date.now() - stableSince >= 750;
  }, 20_000);
}

describe.if(linux)("a stdout nobody reads", () => {
  test(
    "--json into an unread FIFO: SIGTERM still exits 143 promptly, after shutting the extensions down; nothing is left running",
    async () => {
      const out = fifo();
      const fixtures = extensions();
      env.server.enqueue({ type: "endless" });
      const proc = spawnZot(["--json", "go on forever", ...fixtures.args], out.writeEnd);
      await extensionsStarted(fixtures);
      // zot has stopped reading the model: its stdout is full (64 KiB in the FIFO) and more waits.
      expect(await modelStreamPaused()).toBe(true);
      proc.kill("SIGTERM");
      expect(await exitWithin(proc, 10_000)).toBe(143);
      expect(await new Response(proc.stderr).text()).toContain("zot: interrupted");
      await cleanedUp(fixtures);
      // zot wrote through a private non-blocking description: the shared one is as it was.
      expect(statusFlags(out.writeEnd) & constants.O_NONBLOCK).toBe(0);
    },
    60_000,
  );

  test(
    "`zot rpc` into an unread socket: SIGTERM still exits 143 promptly, after shutting the extensions down; nothing is left running",
    async () => {
      const fixtures = extensions();
      env.server.enqueue({ type: "endless" });
      const proc = Bun.spawn(["python3", SOCKET_STDOUT, zot, "rpc", ...fixtures.args, ...env.providerArgs()], {
        cwd: env.cwd,
        env: cleanEnv(env.home),
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      spawned.push(proc);
      const lines = proc.stdout.getReader();
      const zotPid = Number(/^PID (\d+)/.exec(new TextDecoder().decode((await lines.read()).value))?.[1]);
      expect(zotPid).toBeGreaterThan(0);
      remember(zotPid);
      proc.stdin.write(`${JSON.stringify({ type: "prompt", id: "p1", message: "go on forever" })}\n`);
      proc.stdin.flush();
      await extensionsStarted(fixtures);
      expect(await modelStreamPaused()).toBe(true);
      process.kill(zotPid, "SIGTERM");
      const rest = async (): Promise<string> => {
        let text = "";
        for (let chunk = await lines.read(); !chunk.done; chunk = await lines.read()) text += new TextDecoder().decode(chunk.value);
        return text;
      };
      const ended = await Promise.race([rest(), Bun.sleep(10_000).then(() => "still running after 10 s")]);
      expect(ended.trim()).toBe("EXIT 143");
      expect(await new Response(proc.stderr).text()).toContain("zot: interrupted");
      await cleanedUp(fixtures);
    },
    60_000,
  );

  test(
    "-p whose answer does not fit the unread FIFO: SIGINT while it waits for the reader exits 130 within the 1 s grace",
    async () => {
      env.server.enqueue({ type: "text", text: "y".repeat(2_000_000), chunks: 20 });
      const proc = spawnZot(["-p", "a long answer"], fifo().writeEnd);
      // The answer is in the session file before it is printed: from then on zot waits for the reader.
      const saved = (): boolean => env.sessionFiles().some((file) => statSync(file).size > 2_000_000);
      expect(await waitFor(saved, 15_000)).toBe(true);
      proc.kill("SIGINT");
      expect(await exitWithin(proc, 10_000)).toBe(130);
      expect(await new Response(proc.stderr).text()).toBe("zot: interrupted\n");
    },
    60_000,
  );

  test("`zot ext logs -f` into an unread FIFO: SIGINT still ends it promptly", async () => {
    const logs = join(env.home, "logs");
    mkdirSync(logs, { recursive: true });
    writeFileSync(join(logs, "ext-noisy.log"), `${"a log line ".repeat(10)}\n`.repeat(20_000));
    const out = fifo();
    const proc = Bun.spawn([zot, "ext", "logs", "noisy", "-f"], { cwd: env.cwd, env: cleanEnv(env.home), stdin: "ignore", stdout: out.writeEnd, stderr: "pipe" });
    spawned.push(proc);
    // The FIFO is full: the rest of the 2 MB log waits in zot.
    expect(await waitFor(() => unreadBytes(out.path) >= 65_536, 10_000)).toBe(true);
    proc.kill("SIGINT");
    expect(await exitWithin(proc, 10_000)).toBe(0);
    expect(await new Response(proc.stderr).text()).toBe("");
  });

  test(
    "while --json stdout is stalled a running bash command is paused too: zot stops reading its output",
    async () => {
      const out = fifo();
      const countFile = join(env.cwd, "count");
      // Each round records how far the command got, then prints 9 KB.
      const command = "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); echo $i > count; seq 1 2000; done";
      env.server.enqueue({ type: "tool_calls", calls: [{ id: "flood", name: "bash", arguments: { command } }] }, { type: "text", text: "never" });
      const proc = spawnZot(["--json", "flood"], out.writeEnd);
      const rounds = (): number => (existsSync(countFile) ? Number(readFileSync(countFile, "utf8").trim()) || 0 : 0);
      let last = -1;
      let stableSince = Date.now();
      // Without backpressure zot reads on (its live output is coalesced, so its queue only grows slowly) and the count never settles.
      const paused = await waitFor(() => {
        const now = rounds();
        if (now !== last) {
          last = now;
          stableSince = Date.now();
          return false;
        }
        return now > 0 && Date.now() - stableSince >= 750;
      }, 30_000);
      expect(paused).toBe(true);
      expect(rounds()).toBeLessThan(100_000);
      proc.kill("SIGTERM");
      expect(await exitWithin(proc, 10_000)).toBe(143);
    },
    60_000,
  );

  test(
    "while stdout is stalled the model stream is paused: zot holds a few MiB, not the whole response",
    async () => {
      env.server.enqueue({ type: "endless" });
      // The model-output cap (16 Mi characters) lifted: only backpressure can stop zot reading now.
      const proc = spawnZot(["--json", "go on forever"], fifo().writeEnd, "ignore", { ZOT_STREAM_MAX_OUTPUT_CHARS: String(1024 * 1024 * 1024) });
      expect(await modelStreamPaused()).toBe(true);
      // Without backpressure zot reads on into memory until the 256 MiB response cap.
      expect(env.server.endlessCharsSent()).toBeLessThan(32 * 1024 * 1024);
      expect(proc.exitCode).toBeNull();
    },
    60_000,
  );
});

describe.if(linux)("a slow stdout reader", () => {
  test(
    "reading 1 KiB every millisecond or so, it gets every --json event of a 5 MiB answer, in order",
    async () => {
      const out = fifo();
      const chunks = 5 * 1024;
      const text = Array.from({ length: chunks }, (_, i) => `${String(i).padStart(6, "0")}${"z".repeat(1018)}`).join("");
      env.server.enqueue({ type: "text", text, chunks });
      const proc = spawnZot(["--json", "long answer"], out.writeEnd);
      const received: Buffer[] = [];
      const buffer = Buffer.alloc(1024);
      const deadline = Date.now() + 60_000;
      for (;;) {
        let read = 0;
        try {
          read = readSync(out.readEnd, buffer, 0, buffer.length, null);
        } catch {
          read = 0; // EAGAIN: nothing there yet
        }
        if (read > 0) received.push(Buffer.from(buffer.subarray(0, read)));
        else if (proc.exitCode !== null || proc.signalCode !== null || Date.now() > deadline) break;
        await Bun.sleep(1);
      }
      await proc.exited;
      expect(proc.exitCode).toBe(0);
      const events = parseJsonLines(Buffer.concat(received).toString("utf8"));
      const deltas = events.filter((event) => event.type === "text_delta").map((event) => String(event.delta));
      expect(deltas.length).toBe(chunks);
      expect(deltas.join("")).toBe(text);
      expect(events.filter((event) => event.type === "assistant_message")).toHaveLength(1);
      expect(events.at(-1)?.type).toBe("done");
    },
    90_000,
  );
});

describe.if(linux)("a stdout that closes early", () => {
  test("print mode into `head -c 10` (EPIPE): zot ends cleanly, exit 141 as the original's SIGPIPE, nothing on stderr", async () => {
    env.server.enqueue({ type: "text", text: "y".repeat(2_000_000), chunks: 200 });
    const path = join(env.base, "head.fifo");
    expect(Bun.spawnSync(["mkfifo", path]).success).toBe(true);
    const head = Bun.spawn(["head", "-c", "10", path], { stdout: "pipe", stderr: "inherit" });
    spawned.push(head);
    // A non-blocking open for writing succeeds once head has opened the FIFO for reading.
    let probe = -1;
    const opened = await waitFor(() => {
      try {
        probe = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
        return true;
      } catch {
        return false;
      }
    }, 10_000);
    expect(opened).toBe(true);
    // zot gets a blocking description of its own, as from a shell pipeline.
    const stdoutFd = openSync(`/proc/self/fd/${probe}`, constants.O_WRONLY);
    closeSync(probe);
    const proc = spawnZot(["-p", "say a lot"], stdoutFd);
    closeSync(stdoutFd);
    const [headOut, stderr] = await Promise.all([new Response(head.stdout).text(), new Response(proc.stderr).text()]);
    expect(await exitWithin(proc, 20_000)).toBe(141);
    expect(headOut).toBe("yyyyyyyyyy");
    expect(stderr).toBe("");
  });
});
