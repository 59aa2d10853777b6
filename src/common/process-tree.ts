/**
 * Nothing zot starts outlives it. A mode calls guardProcessTree() once at
 * start (never at import time):
 *
 * - Linux: zot becomes the child subreaper of its tree, so every orphaned
 *   descendant (a `cmd &` of the bash tool, `nohup`, `setsid`, an
 *   extension's double-forked helper) is re-parented to zot instead of init.
 *   At process exit (any exit that runs "exit" handlers: normal end,
 *   process.exit from a signal handler) every live descendant found by
 *   walking /proc from zot gets SIGTERM and SIGCONT, up to TERM_GRACE_MS to
 *   exit, then SIGKILL until none is left (at most KILL_WAIT_MS more). Each
 *   process is re-identified (pid + start time) just before it is signalled,
 *   so a reused pid is never hit.
 *   While zot runs, orphans that exit become zombies under zot; a quarter
 *   second after a SIGCHLD they are reaped with waitpid(<that pid>) — never
 *   waitpid(-1), and never a child Bun itself waits for (trackSpawned() registry, plus the pidfds Bun
 *   holds), since stealing such a status crashes Bun with ECHILD.
 * - Elsewhere (macOS, or Linux when prctl fails): the process groups
 *   registered through trackSpawned(…, { ownGroup: true }) get the same
 *   SIGTERM / grace / SIGKILL at exit. A process that left its group
 *   (setsid) or whose group was never registered survives.
 *
 * - Windows (no process groups, no POSIX signals: common/platform.ts):
 *   "group" means the child and the descendants Windows records for it;
 *   every ending signal is `taskkill /T /F`, sent only while the child is
 *   still a running child of zot (never to an exited pid, which Windows
 *   reuses quickly). A descendant whose parent already exited survives.
 *
 * SIGKILL of zot itself runs no handler: its descendants survive it
 * (re-parented to the next subreaper or init).
 */
import { becomeChildSubreaper, reapChild } from "./libc.ts";
import { IS_WINDOWS, pidExists, signalWindowsTree } from "./platform.ts";
import { liveDescendants, pidfdTargets, procFsAvailable, stillSameProcess, zombieChildren, type ProcessIdentity } from "./proc-fs.ts";

/** How long descendants get to exit after SIGTERM at zot's exit. */
export const TERM_GRACE_MS = 500;
/** After the SIGKILLs, how long zot keeps re-checking for survivors (new orphans, slow deaths). */
export const KILL_WAIT_MS = 300;
const POLL_MS = 10;
/** How long after a SIGCHLD the orphan zombies are collected (see scheduleOrphanReap). */
const ORPHAN_REAP_DELAY_MS = 250;

export type TreeGuard = "subreaper" | "groups";

export interface SpawnedChild {
  readonly pid: number;
  readonly exited: Promise<unknown>;
}

/** Children Bun spawned and waits for: never reaped here. */
const bunChildren = new Set<number>();
/** Process groups zot created (leader pid = group id), for platforms without a subreaper. */
const ownGroups = new Set<number>();
let guard: TreeGuard | undefined;
let reapScheduled = false;

/**
 * Records a child started with Bun.spawn (call right after spawning). Its
 * exit status stays Bun's; with `ownGroup` (spawned `detached: true`) its
 * process group is also ended at zot's exit where there is no subreaper.
 */
export function trackSpawned(child: SpawnedChild, options: { readonly ownGroup?: boolean } = {}): void {
  const { pid } = child;
  if (!Number.isInteger(pid) || pid <= 0) return;
  bunChildren.add(pid);
  if (options.ownGroup) {
    pruneGoneGroups();
    ownGroups.add(pid);
  }
  void child.exited.then(
    () => bunChildren.delete(pid),
    () => bunChildren.delete(pid),
  );
}

/** Leaders of their own process group (extensions, MCP servers) whose groups are SIGKILLed at zot's exit. */
const leaderGroups = new Set<number>();
let leaderExitHookInstalled = false;

/**
 * For a child spawned as the leader of its own group (ownGroupSpawnOptions):
 * tracks it (trackSpawned with ownGroup), kills what it left in its group
 * once it exits, and SIGKILLs the group at zot's exit if it is still there
 * (with or without guardProcessTree). Call right after spawning, before
 * adding other `exited` handlers (they then run after the group is ended).
 */
export function superviseGroupLeader(child: SpawnedChild): void {
  if (!leaderExitHookInstalled) {
    leaderExitHookInstalled = true;
    process.on("exit", () => {
      for (const pid of leaderGroups) signalGroup(pid, "SIGKILL");
    });
  }
  leaderGroups.add(child.pid);
  trackSpawned(child, { ownGroup: true });
  void child.exited.then(() => {
    signalGroup(child.pid, "SIGKILL");
    leaderGroups.delete(child.pid);
  });
}

/**
 * Become the subreaper (Linux) and end the tree at exit. Idempotent; returns
 * the mechanism in use. `{ subreaper: false }` forces the group fallback
 * (what other platforms get; for tests).
 */
export function guardProcessTree(options: { readonly subreaper?: boolean } = {}): TreeGuard {
  if (guard !== undefined) return guard;
  const subreaper = options.subreaper !== false && procFsAvailable() && becomeChildSubreaper().ok;
  guard = subreaper ? "subreaper" : "groups";
  if (guard === "subreaper") process.on("SIGCHLD", scheduleOrphanReap);
  process.on("exit", () => {
    endProcessTree();
  });
  return guard;
}

/**
 * One orphan scan per burst of SIGCHLDs, ORPHAN_REAP_DELAY_MS after the first:
 * a scan reads /proc for every thread of zot, and most SIGCHLDs are Bun's own
 * children (each bash call), so scanning at once per signal cost a bash round
 * ≈0.2 ms for nothing. The timer is unref'd: an exit meanwhile leaves the few
 * zombies to init, which reaps them.
 */
function scheduleOrphanReap(): void {
  if (reapScheduled) return;
  reapScheduled = true;
  setTimeout(() => {
    reapScheduled = false;
    reapOrphanZombies();
  }, ORPHAN_REAP_DELAY_MS).unref();
}

/** Collects every zombie child of zot that Bun does not wait for; returns how many. */
export function reapOrphanZombies(): number {
  const candidates = zombieChildren(process.pid).filter((zombie) => !bunChildren.has(zombie.pid));
  if (candidates.length === 0) return 0;
  const watchedByBun = pidfdTargets();
  let reaped = 0;
  for (const zombie of candidates) {
    if (watchedByBun.has(zombie.pid)) continue;
    if (reapChild(zombie.pid).ok) reaped++;
  }
  return reaped;
}

function signalProcess(identity: ProcessIdentity, signal: NodeJS.Signals): void {
  if (!stillSameProcess(identity)) return;
  try {
    process.kill(identity.pid, signal);
  } catch {
    // exited in between
  }
}

/**
 * Signals the process group `pgid`: false when it has no member left. Signal 0 only checks (zombies count as members).
 * Windows: the tree of the child `pgid` while it is still zot's running child (see the contract above).
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (IS_WINDOWS) return signalWindowsTree(pgid, signal, bunChildren.has(pgid));
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Forgets groups with no member left, so a long session's list stays short. */
function pruneGoneGroups(): void {
  for (const pgid of ownGroups) if (!signalGroup(pgid, 0)) ownGroups.delete(pgid);
}

function sleepSync(ms: number): void {
  Bun.sleepSync(ms);
}

export interface TreeEnd {
  /** Descendants (or groups) found running when the end began. */
  readonly found: number;
  /** Survivors of the grace period that were SIGKILLed. */
  readonly killed: number;
}

/**
 * Synchronously ends every descendant (see the contract above). Safe to call
 * from a process "exit" handler; a no-op before guardProcessTree().
 */
export function endProcessTree(): TreeEnd {
  if (guard === "subreaper") return endDescendants();
  if (guard === "groups") return endGroups();
  return { found: 0, killed: 0 };
}

function endDescendants(): TreeEnd {
  let tree = liveDescendants(process.pid);
  const found = tree.length;
  if (found === 0) return { found, killed: 0 };
  for (const identity of tree) signalProcess(identity, "SIGTERM");
  for (const identity of tree) signalProcess(identity, "SIGCONT");
  const graceEnd = Date.now() + TERM_GRACE_MS;
  while (tree.length > 0 && Date.now() < graceEnd) {
    sleepSync(POLL_MS);
    tree = liveDescendants(process.pid);
  }
  let killed = 0;
  const killEnd = Date.now() + KILL_WAIT_MS;
  while (tree.length > 0) {
    killed += tree.length;
    for (const identity of tree) signalProcess(identity, "SIGKILL");
    if (Date.now() >= killEnd) break;
    sleepSync(POLL_MS);
    tree = liveDescendants(process.pid);
  }
  return { found, killed };
}

/** A registered group is signalled unless its id now names a process that is not ours (pid reused). */
function groupsToEnd(): number[] {
  return [...ownGroups].filter((pgid) => bunChildren.has(pgid) || !pidExists(pgid));
}

function endGroups(): TreeEnd {
  let groups = groupsToEnd().filter((pgid) => signalGroup(pgid, "SIGTERM"));
  const found = groups.length;
  if (found === 0) return { found, killed: 0 };
  for (const pgid of groups) signalGroup(pgid, "SIGCONT");
  const graceEnd = Date.now() + TERM_GRACE_MS;
  while (groups.length > 0 && Date.now() < graceEnd) {
    sleepSync(POLL_MS);
    groups = groups.filter((pgid) => signalGroup(pgid, 0));
  }
  for (const pgid of groups) signalGroup(pgid, "SIGKILL");
  return { found, killed: groups.length };
}
