/**
 * The process-tree mechanisms (src/common/process-tree.ts, proc-fs.ts), each
 * scenario in its own helper process (fixtures/tree-helper.ts) because a
 * subreaper must not be the test runner: orphan zombies are reaped while
 * Bun's own children (tracked or only known by their pidfd) keep their exit
 * status; endProcessTree() ends every descendant, SIGKILLing one that
 * ignores SIGTERM, and leaves a process outside the tree alone; the group
 * fallback of other platforms ends the registered group but not a setsid
 * job. Plus the /proc stat parser.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { childrenOf, parseStat } from "../../src/common/proc-fs.ts";
import { commandLine, isAlive } from "../support/processes.ts";

const HELPER = join(import.meta.dir, "fixtures", "tree-helper.ts");
const linux = process.platform === "linux";
const leftovers: { pid: number; cmdline: string }[] = [];

afterEach(() => {
  for (const { pid, cmdline } of leftovers.splice(0)) {
    if (commandLine(pid) !== cmdline) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
});

function remember(pid: number): void {
  const cmdline = commandLine(pid);
  if (cmdline !== undefined) leftovers.push({ pid, cmdline });
}

async function runHelper(scenario: string): Promise<Record<string, unknown>> {
  const proc = Bun.spawn([process.execPath, HELPER, scenario], { stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  clearTimeout(timer);
  if (proc.exitCode !== 0) throw new Error(`helper ${scenario} exited ${proc.exitCode}: ${stderr}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe.if(linux)("process tree (Linux)", () => {
  test("orphan zombies are reaped; Bun's own children, tracked or not, keep their exit status", async () => {
    const result = await runHelper("reap");
    expect(result.guard).toBe("subreaper");
    expect(result.before).toEqual({ orphan: "Z", untracked: "Z", tracked: "Z" });
    expect(result.reaped).toBe(1);
    expect(result.after).toEqual({ orphan: "gone", untracked: "Z", tracked: "Z" });
    expect(result.codes).toEqual([7, 9]);
  });

  test("endProcessTree ends every descendant (SIGKILL after the grace for one ignoring SIGTERM), nothing outside the tree", async () => {
    const outsider = Bun.spawn(["sleep", "1024"]);
    try {
      const result = await runHelper("end");
      const pids = result.pids as number[];
      for (const pid of pids) if (isAlive(pid)) remember(pid);
      expect(result.guard).toBe("subreaper");
      expect(result.before).toEqual([true, true, true]);
      // The three jobs plus the stubborn shell's sleep; the stubborn two needed SIGKILL.
      expect(result.ended).toEqual({ found: 4, killed: 2 });
      expect(pids.filter(isAlive)).toEqual([]);
      expect(isAlive(outsider.pid)).toBe(true);
    } finally {
      outsider.kill("SIGKILL");
      await outsider.exited;
    }
  });

  test("the group fallback ends the registered group; a setsid job outside it survives (the documented gap)", async () => {
    const result = await runHelper("groups");
    const [inGroup, setsidJob, stubborn] = result.pids as number[];
    for (const pid of [setsidJob, stubborn, ...childrenOf(stubborn as number)]) if (pid !== undefined && isAlive(pid)) remember(pid);
    expect(result.guard).toBe("groups");
    expect(isAlive(inGroup as number)).toBe(false);
    expect(isAlive(setsidJob as number)).toBe(true);
    expect(isAlive(stubborn as number)).toBe(true);
  });
});

test("parseStat reads the fields after a command name with spaces and parentheses", () => {
  const line = "4242 (a (b) c) S 17 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1000 10 0 0";
  expect(parseStat(line)).toEqual({ pid: 4242, state: "S", ppid: 17, pgid: 4242, sid: 4242, startTime: 987654 });
  expect(parseStat("garbage")).toBeUndefined();
});
