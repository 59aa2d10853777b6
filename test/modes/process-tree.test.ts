/**
 * Nothing zot starts outlives it (issue 7, class 4), through dist/zot:
 * background jobs of the bash tool (`&`, nohup, setsid), an extension's
 * setsid grandchild (also one that ignores SIGTERM) after a normal end and
 * after SIGTERM / SIGHUP / SIGINT, the running bash command on SIGHUP in
 * print, JSON and RPC mode (exit 129), a second signal exiting from the
 * handler during cleanup, RPC's end on stdin EOF, a closed
 * terminal (real PTY, interactive mode), no zombies
 * piling up under zot while it runs, and a stderr pipe nobody reads not
 * blocking SIGTERM. Every process a test starts is killed in `finally`
 * (matched by its command line, so a reused pid is never hit).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { childrenOf } from "../../src/common/proc-fs.ts";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { FIXTURES, behaveExtension, waitFor } from "../support/extensions.ts";
import { stalledFifo } from "../support/fifo.ts";
import { commandLine, exitWithin, isAlive, processState } from "../support/processes.ts";
import { createModeEnv, toolResultsSent, type ModeEnv } from "./helpers.ts";

const linux = process.platform === "linux";
const PROCESS_TREE = join(FIXTURES, "process-tree.py");
const PTY_RUN = join(FIXTURES, "..", "pty-run.py");

let env: ModeEnv;
/** pid → the command line it had when the test learned it (for the cleanup). */
let started: Map<number, string>;

beforeEach(() => {
  env = createModeEnv();
  started = new Map();
});
afterEach(async () => {
  for (const [pid, cmdline] of started) if (commandLine(pid) === cmdline) killQuietly(pid);
  await env.dispose();
});

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Records `pid` for the cleanup and returns it. */
function remember(pid: number): number {
  expect(Number.isInteger(pid) && pid > 0).toBe(true);
  const cmdline = commandLine(pid);
  if (cmdline !== undefined) started.set(pid, cmdline);
  return pid;
}

async function readPidFile(path: string): Promise<number> {
  expect(await waitFor(() => existsSync(path) && readFileSync(path, "utf8").trim() !== "", 10_000)).toBe(true);
  return remember(Number(readFileSync(path, "utf8").trim()));
}

/** Waits until `pid` runs `sleep` (a setsid job has left the shell's group by then). */
async function runsSleep(pid: number): Promise<void> {
  const runs = await waitFor(() => commandLine(pid)?.startsWith("sleep\0") === true, 5_000);
  // The cleanup matches the command line: record the one after exec.
  remember(pid);
  expect(runs).toBe(true);
}

/** Waits for the pid files a test's bash command writes (`background.pid` and `running.pid`, both running `sleep`). */
async function commandAndJobRunning(): Promise<{ background: number; foreground: number }> {
  const background = await readPidFile(join(env.cwd, "background.pid"));
  await runsSleep(background);
  const foreground = await readPidFile(join(env.cwd, "running.pid"));
  await runsSleep(foreground);
  return { background, foreground };
}

async function allGone(pids: readonly number[]): Promise<boolean> {
  return waitFor(() => pids.every((pid) => !isAlive(pid)), 5_000);
}

function extensionDir(name: string, modes: readonly string[]): string {
  const dir = join(env.base, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name, version: "1.0.0", exec: PROCESS_TREE, args: [name, ...modes], language: "python" }));
  return dir;
}

function zotSpawnOptions(): { cwd: string; env: Record<string, string>; stdin: "ignore"; stdout: "pipe" } {
  return { cwd: env.cwd, env: cleanEnv(env.home), stdin: "ignore", stdout: "pipe" };
}

function spawnZot(args: readonly string[]): Bun.Subprocess<"ignore", "pipe", "pipe"> {
  return Bun.spawn([zotBinaryPath, ...args, ...env.providerArgs()], { ...zotSpawnOptions(), stderr: "pipe" });
}

/** zot with its stderr on the given descriptor. */
function spawnZotWithStderr(args: readonly string[], stderrFd: number): Bun.Subprocess {
  return Bun.spawn([zotBinaryPath, ...args, ...env.providerArgs()], { ...zotSpawnOptions(), stderr: stderrFd });
}

let zotBinaryPath = "";
beforeEach(async () => {
  zotBinaryPath = await zotBinary();
});

describe.if(linux)("the bash tool's background jobs", () => {
  test("`cmd &`, nohup and setsid jobs are gone once zot has exited", async () => {
    env.server.enqueue(
      {
        type: "tool_calls",
        calls: [
          { id: "plain", name: "bash", arguments: { command: "sleep 1001 & echo $!" } },
          { id: "nohup", name: "bash", arguments: { command: "nohup sleep 1002 >/dev/null 2>&1 & echo $!" } },
          { id: "setsid", name: "bash", arguments: { command: "setsid sleep 1003 >/dev/null 2>&1 & echo $!" } },
        ],
      },
      { type: "text", text: "started three" },
    );
    const result = await env.run(["-p", "start jobs", ...env.providerArgs()]);
    const results = toolResultsSent(env.server.requests[1]);
    const pids = ["plain", "nohup", "setsid"].map((id) => Number(/^(\d+)$/m.exec(results.get(id) ?? "")?.[1]));
    for (const pid of pids) if (pid > 0 && isAlive(pid)) remember(pid);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("started three\n");
    expect(pids.every((pid) => pid > 0)).toBe(true);
    expect(await allGone(pids)).toBe(true);
  });

  test("orphans that exit while zot runs are reaped: no zombies pile up under zot", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "jobs", name: "bash", arguments: { command: "sleep 2 & sleep 2 & echo started" } }] },
      { type: "stall", text: "waiting" },
    );
    const proc = spawnZot(["-p", "orphans"]);
    try {
      expect(await waitFor(() => env.server.requests.length === 2, 10_000)).toBe(true);
      const sleepChildren = (): number => childrenOf(proc.pid).filter((pid) => commandLine(pid)?.startsWith("sleep\0")).length;
      const zombieChildren = (): number => childrenOf(proc.pid).filter((pid) => processState(pid) === "Z").length;
      // The shell has exited: its two jobs are zot's children now (zot is their subreaper)...
      expect(await waitFor(() => sleepChildren() === 2, 5_000)).toBe(true);
      // ...and once they exit they do not linger as zombies.
      expect(await waitFor(() => sleepChildren() === 0 && zombieChildren() === 0, 10_000)).toBe(true);
    } finally {
      proc.kill("SIGTERM");
      expect(await exitWithin(proc, 10_000)).toBe(143);
    }
  });
});

describe.if(linux)("an extension's setsid grandchild", () => {
  test("is gone after a normal end, also when it ignores SIGTERM", async () => {
    const grandchildFile = join(env.base, "grandchild.pid");
    const stubbornFile = join(env.base, "stubborn.pid");
    const dir = extensionDir("tree", [`grandchild=${grandchildFile}`, `stubborn=${stubbornFile}`]);
    env.server.enqueue({ type: "text", text: "bye" });
    const proc = spawnZot(["-p", "hi", "--ext", dir]);
    const [grandchild, stubborn] = [await readPidFile(grandchildFile), await readPidFile(stubbornFile)];
    const stubbornSleep = await waitFor(() => childrenOf(stubborn).length > 0, 5_000).then(() => childrenOf(stubborn)[0]);
    if (stubbornSleep !== undefined) remember(stubbornSleep);
    const code = await exitWithin(proc, 15_000);
    expect(await new Response(proc.stdout).text()).toBe("bye\n");
    expect(code).toBe(0);
    expect(stubbornSleep).toBeNumber();
    expect(await allGone([grandchild, stubborn, stubbornSleep as number])).toBe(true);
  });

  test.each([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
    ["SIGINT", 130],
  ] as const)("is gone after %s to zot (exit %d)", async (signal, expectedCode) => {
    const grandchildFile = join(env.base, "grandchild.pid");
    const dir = extensionDir("tree", [`grandchild=${grandchildFile}`]);
    env.server.enqueue({ type: "stall", text: "thinking" });
    const proc = spawnZot(["-p", "hi", "--ext", dir]);
    const grandchild = await readPidFile(grandchildFile);
    await runsSleep(grandchild);
    expect(await waitFor(() => env.server.requests.length === 1, 10_000)).toBe(true);
    expect(isAlive(grandchild)).toBe(true);
    proc.kill(signal);
    expect(await exitWithin(proc, 15_000)).toBe(expectedCode);
    expect(await new Response(proc.stderr).text()).toBe("zot: interrupted\n");
    expect(await allGone([grandchild])).toBe(true);
  });
});

describe.if(linux)("SIGHUP while a bash command runs", () => {
  test.each(["-p", "--json"])("%s: the command and its background job are killed, zot exits 129", async (modeFlag) => {
    const command = "sleep 1004 & echo $! > background.pid; echo $$ > running.pid; exec sleep 1005";
    env.server.enqueue({ type: "tool_calls", calls: [{ id: "run", name: "bash", arguments: { command } }] }, { type: "text", text: "never" });
    const proc = spawnZot([modeFlag, "run it"]);
    const { background, foreground } = await commandAndJobRunning();
    proc.kill("SIGHUP");
    expect(await exitWithin(proc, 15_000)).toBe(129);
    expect(await new Response(proc.stderr).text()).toBe("zot: interrupted\n");
    expect(await allGone([foreground, background])).toBe(true);
  });
});

describe.if(linux)("a second signal during cleanup", () => {
  test("exits at once from the signal handler and still ends the tree (a stubborn extension, a setsid job)", async () => {
    const extensionPidFile = join(env.base, "stubborn.json");
    const extension = behaveExtension(env.base, "stubborn", ["ignore-shutdown", `pid-file=${extensionPidFile}`]);
    const command = "setsid sleep 1011 >/dev/null 2>&1 & echo $! > background.pid; echo $$ > running.pid; exec sleep 1012";
    env.server.enqueue({ type: "tool_calls", calls: [{ id: "run", name: "bash", arguments: { command } }] }, { type: "text", text: "never" });
    const proc = spawnZot(["-p", "run it", "--ext", extension]);
    const { background } = await commandAndJobRunning();
    const extensionPid = remember((JSON.parse(readFileSync(extensionPidFile, "utf8")) as { pid: number }).pid);
    proc.kill("SIGTERM");
    // The extension ignores shutdown and SIGTERM, so cleanup is still waiting for it.
    await Bun.sleep(300);
    expect(isAlive(extensionPid)).toBe(true);
    proc.kill("SIGTERM");
    expect(await exitWithin(proc, 15_000)).toBe(143);
    expect(await allGone([background, extensionPid])).toBe(true);
  });
});

describe.if(linux)("rpc mode", () => {
  function startRpc(): Bun.Subprocess<"pipe", "pipe", "pipe"> {
    return Bun.spawn([zotBinaryPath, "rpc", ...env.providerArgs()], {
      cwd: env.cwd,
      env: cleanEnv(env.home),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
  }

  test("SIGHUP while a bash command runs: the command and a setsid job are killed, exit 129", async () => {
    const command = "setsid sleep 1008 >/dev/null 2>&1 & echo $! > background.pid; echo $$ > running.pid; exec sleep 1009";
    env.server.enqueue({ type: "tool_calls", calls: [{ id: "run", name: "bash", arguments: { command } }] }, { type: "text", text: "never" });
    const proc = startRpc();
    try {
      proc.stdin.write(`${JSON.stringify({ type: "prompt", id: "p", message: "run it" })}\n`);
      proc.stdin.flush();
      const { background, foreground } = await commandAndJobRunning();
      proc.kill("SIGHUP");
      expect(await exitWithin(proc, 15_000)).toBe(129);
      expect(await new Response(proc.stderr).text()).toContain("zot: interrupted");
      expect(await allGone([foreground, background])).toBe(true);
    } finally {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await proc.exited;
    }
  });

  test("stdin closing ends the session and the jobs its bash commands left behind", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "job", name: "bash", arguments: { command: "setsid sleep 1010 >/dev/null 2>&1 & echo $!" } }] },
      { type: "text", text: "started" },
    );
    const proc = startRpc();
    proc.stdin.write(`${JSON.stringify({ type: "prompt", id: "p", message: "start a job" })}\n`);
    proc.stdin.flush();
    expect(await waitFor(() => env.server.requests.length === 2, 10_000)).toBe(true);
    const job = Number(/^(\d+)$/m.exec(toolResultsSent(env.server.requests[1]).get("job") ?? "")?.[1]);
    if (job > 0 && isAlive(job)) remember(job);
    proc.stdin.end();
    expect(await exitWithin(proc, 15_000)).toBe(0);
    expect(job).toBeGreaterThan(0);
    expect(await allGone([job])).toBe(true);
  });
});

describe.if(linux)("a closed terminal", () => {
  test("interactive zot whose PTY is hung up kills the running command and a setsid job and exits 129", async () => {
    // The setsid job leaves the command's process group, so killing that group does not reach it.
    const command = "setsid sleep 1006 >/dev/null 2>&1 & echo $! > background.pid; echo $$ > running.pid; exec sleep 1007";
    env.server.enqueue({ type: "tool_calls", calls: [{ id: "run", name: "bash", arguments: { command } }] }, { type: "text", text: "never" });
    // zot is the controlling process of a real PTY (as under a terminal emulator).
    const harness = Bun.spawn(["python3", PTY_RUN, zotBinaryPath, ...env.providerArgs()], {
      cwd: env.cwd,
      env: { ...cleanEnv(env.home, { TERM: "xterm-256color" }), PATH: process.env.PATH ?? "" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    let screen = "";
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of harness.stdout) screen += decoder.decode(chunk, { stream: true });
    })();
    let zotPid: number | undefined;
    try {
      expect(await waitFor(() => screen.includes("\x1b[?2004h"), 10_000)).toBe(true);
      zotPid = remember(Number(/^PID (\d+)/.exec(screen)?.[1]));
      harness.stdin.write("go\n");
      harness.stdin.flush();
      const { background, foreground } = await commandAndJobRunning();
      harness.stdin.write("CLOSE\n");
      harness.stdin.flush();
      expect(await waitFor(() => /\n(EXIT|SIGNAL) \d+\n$/.test(screen), 15_000)).toBe(true);
      expect(/\n(EXIT|SIGNAL) \d+\n$/.exec(screen)?.[0]).toBe("\nEXIT 129\n");
      expect(await allGone([foreground, background])).toBe(true);
    } finally {
      if (harness.exitCode === null) harness.kill("SIGKILL");
      await harness.exited;
      await reading;
      if (zotPid !== undefined && isAlive(zotPid)) killQuietly(zotPid);
    }
  });
});

describe.if(linux)("a stderr pipe nobody reads", () => {
  test(
    "an extension flooding notes into it does not stop SIGTERM from ending zot",
    async () => {
      // Nothing ever reads it.
      const stderr = stalledFifo(env.base, "stderr.fifo");
      const countFile = join(env.base, "notes.count");
      const dir = extensionDir("noisy", [`spam-notify=${countFile}`]);
      env.server.enqueue({ type: "stall", text: "thinking" });
      const proc = spawnZotWithStderr(["-p", "hi", "--ext", dir], stderr.writeEnd);
      try {
        const notesSent = (): number => (existsSync(countFile) ? Number(readFileSync(countFile, "utf8")) : 0);
        // 300 notes of 1 KB are far more than a pipe holds: zot's stderr is stalled by now.
        const flooded = await waitFor(() => env.server.requests.length === 1 && notesSent() >= 300, 8_000);
        proc.kill("SIGTERM");
        expect(await exitWithin(proc, 10_000)).toBe(143);
        expect(flooded).toBe(true);
      } finally {
        if (proc.exitCode === null) proc.kill("SIGKILL");
        await proc.exited;
        stderr.close();
      }
    },
    40_000,
  );
});
