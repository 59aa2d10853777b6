/**
 * Reading the process table from Linux /proc: one process's identity
 * (state, parent, group, session, start time), its children (through
 * /proc/<pid>/task/<tid>/children, or a scan of every /proc/<pid>/stat on
 * kernels without that file), every live descendant of a process, and the
 * pids this process holds a pidfd for (the children Bun waits for). Every
 * reader returns undefined or an empty list for a process that is gone;
 * nothing here throws. Other platforms have no /proc: callers check
 * `procFsAvailable()` first.
 */
import { existsSync, readFileSync, readdirSync, readlinkSync } from "node:fs";

export interface ProcessIdentity {
  readonly pid: number;
  /** One letter: R, S, D, T, t, Z (zombie), X (dead), I, ... */
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  /** Clock ticks after boot; together with the pid it names one process (pids are reused). */
  readonly startTime: number;
}

let available: boolean | undefined;

export function procFsAvailable(): boolean {
  available ??= process.platform === "linux" && existsSync("/proc/self/stat");
  return available;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The names in a /proc directory; none when it is gone. */
function listDir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** Parses /proc/<pid>/stat; the command name in parentheses may itself contain spaces and parentheses. */
export function parseStat(text: string): ProcessIdentity | undefined {
  const open = text.indexOf(" (");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open));
  const fields = text.slice(close + 2).split(" ");
  // fields[0] is stat field 3 (state); field N is fields[N - 3].
  const [state, ppid, pgid, sid, startTime] = [fields[0], fields[1], fields[2], fields[3], fields[19]];
  if (state === undefined || startTime === undefined || !Number.isInteger(pid)) return undefined;
  return { pid, state, ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid), startTime: Number(startTime) };
}

export function readIdentity(pid: number): ProcessIdentity | undefined {
  const text = readText(`/proc/${pid}/stat`);
  return text === undefined ? undefined : parseStat(text);
}

function isZombieOrDead(identity: ProcessIdentity): boolean {
  return identity.state === "Z" || identity.state === "X" || identity.state === "x";
}

function parsePids(text: string): number[] {
  return text
    .split(" ")
    .filter((part) => part.trim() !== "")
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

let childrenFiles: boolean | undefined;

/** Direct children of `pid` (of every thread of it), zombies included. */
export function childrenOf(pid: number): number[] {
  childrenFiles ??= existsSync("/proc/self/task/" + process.pid + "/children");
  if (!childrenFiles) return scanParents().get(pid) ?? [];
  const children: number[] = [];
  for (const task of listDir(`/proc/${pid}/task`)) {
    const text = readText(`/proc/${pid}/task/${task}/children`);
    if (text !== undefined) children.push(...parsePids(text));
  }
  return children;
}

/** Fallback for kernels without the children files: parent → children for every visible process. */
function scanParents(): Map<number, number[]> {
  const byParent = new Map<number, number[]>();
  for (const entry of listDir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const identity = readIdentity(Number(entry));
    if (identity === undefined) continue;
    const siblings = byParent.get(identity.ppid);
    if (siblings) siblings.push(identity.pid);
    else byParent.set(identity.ppid, [identity.pid]);
  }
  return byParent;
}

/**
 * Every descendant of `root` that is still running (zombies left out), parents
 * before children. A process seen twice (a pid re-parented while walking) is
 * listed once; the walk is bounded by `limit` processes.
 */
export function liveDescendants(root: number, limit = 10_000): ProcessIdentity[] {
  const found: ProcessIdentity[] = [];
  const inTree = new Set<number>([root]);
  const queue = [root];
  while (queue.length > 0 && found.length < limit) {
    const parent = queue.shift() as number;
    for (const child of childrenOf(parent)) {
      if (inTree.has(child)) continue;
      const identity = readIdentity(child);
      // Gone already, or (pid reused) no longer a child of anything in the tree.
      if (identity === undefined || !inTree.has(identity.ppid)) continue;
      inTree.add(child);
      queue.push(child);
      if (!isZombieOrDead(identity)) found.push(identity);
    }
  }
  return found;
}

/** Zombie children of `parent`. */
export function zombieChildren(parent: number): ProcessIdentity[] {
  const zombies: ProcessIdentity[] = [];
  for (const child of childrenOf(parent)) {
    const identity = readIdentity(child);
    if (identity !== undefined && identity.ppid === parent && identity.state === "Z") zombies.push(identity);
  }
  return zombies;
}

/** Pids this process holds a pidfd for: the children Bun's own Subprocess objects wait on. */
export function pidfdTargets(): Set<number> {
  const pids = new Set<number>();
  for (const fd of listDir("/proc/self/fd")) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (!target.includes("pidfd")) continue;
    const match = /^Pid:\s*(-?\d+)/m.exec(readText(`/proc/self/fdinfo/${fd}`) ?? "");
    if (match) pids.add(Number(match[1]));
  }
  return pids;
}

/** True while `identity` still names the same running process (same pid, same start time, not a zombie). */
export function stillSameProcess(identity: ProcessIdentity): boolean {
  const now = readIdentity(identity.pid);
  return now !== undefined && now.startTime === identity.startTime && !isZombieOrDead(now);
}
