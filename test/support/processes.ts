/**
 * Process facts for tests, zombie-aware: the test run is a child subreaper
 * (leak-guard.ts), so a test's dead descendants linger as zombies of the test
 * process until it exits, and `kill(pid, 0)` still succeeds on them. A
 * process counts as alive only while it exists and is not a zombie.
 * `commandLine` lets a cleanup check that a pid still names the process it
 * recorded before signalling it; `exitWithin` bounds how long a test waits
 * for a process to exit.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";

/** The NUL-separated command line from /proc/<pid>/cmdline, undefined when there is no such process. */
export function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return undefined;
  }
}

/** The one-letter state from /proc/<pid>/stat ("R", "S", "Z", ...), undefined when there is no such process or no /proc. */
export function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const end = stat.lastIndexOf(")");
    return stat.slice(end + 2, end + 3);
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  if (existsSync("/proc/self")) {
    const state = processState(pid);
    return state !== undefined && state !== "Z" && state !== "X";
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for `proc` to exit, SIGKILLing it after `ms`: its exit code, or null when it had to be killed. */
export async function exitWithin(proc: Bun.Subprocess, ms: number): Promise<number | null> {
  const timer = setTimeout(() => proc.kill("SIGKILL"), ms);
  await proc.exited;
  clearTimeout(timer);
  return proc.signalCode === "SIGKILL" ? null : proc.exitCode;
}

export interface LiveProcess {
  readonly pid: number;
  readonly command: string;
}

/** Live (non-zombie) children of this process, read from /proc (empty without /proc). */
export function liveChildren(): LiveProcess[] {
  const pids = new Set<number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync("/proc/self/task");
  } catch {
    return [];
  }
  for (const task of tasks) {
    try {
      for (const pid of readFileSync(`/proc/self/task/${task}/children`, "utf8").trim().split(/\s+/)) {
        if (pid) pids.add(Number(pid));
      }
    } catch {
      // the thread ended meanwhile
    }
  }
  const live: LiveProcess[] = [];
  for (const pid of pids) {
    if (!isAlive(pid)) continue;
    try {
      live.push({ pid, command: readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ") });
    } catch {
      // exited meanwhile
    }
  }
  return live;
}
