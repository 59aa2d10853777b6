/**
 * The few places where Windows and POSIX differ, behind small helpers
 * (docs/windows.md says what differs and what is not tested):
 *
 * - ownGroupSpawnOptions(): POSIX children that must be ended as a tree
 *   are spawned `detached` (own process group, pgid = pid); Windows has no
 *   process groups (a detached child there gets no console instead), so
 *   it gets `windowsHide` and nothing else.
 * - signalWindowsTree(): Windows has no POSIX signals: any ending signal
 *   becomes `taskkill /T /F /PID <pid>` (the process and the children
 *   Windows records for it), signal 0 a liveness check, SIGCONT nothing.
 *   Only a pid the caller still knows as its own running child is touched
 *   (Windows reuses pids quickly).
 * - shellInvocation(): how the bash tool runs a command: `/bin/sh -c` on
 *   POSIX (through a wrapper that merges stderr, or, given one pipe for both,
 *   `onePipeArgv` without it); on Windows Git Bash (a `bash.exe` of Git for Windows, or a bash
 *   on PATH that is not the WSL launcher in System32), else `cmd.exe /d /s /c`.
 * - isMuslLibc(): Linux with the musl loader (Alpine), for `zot upgrade`.
 * Pure functions of their inputs where possible (the platform and the
 * environment are parameters), so the Windows branches are unit-tested on
 * Linux; nothing runs at import time.
 */
import { existsSync, readdirSync } from "node:fs";
import { win32 } from "node:path";

export const IS_WINDOWS = process.platform === "win32";

export function ownGroupSpawnOptions(platform: NodeJS.Platform = process.platform): { detached: true } | { windowsHide: true } {
  return platform === "win32" ? { windowsHide: true } : { detached: true };
}

/** True while `pid` names a process (signal 0; a zombie counts). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The taskkill argv that ends `pid` and its recorded descendants. */
export function taskkillArgv(pid: number): string[] {
  return ["taskkill", "/T", "/F", "/PID", String(pid)];
}

/**
 * Windows stand-in for signalling a process group: true when the tree was
 * (still) there. `stillOurs`: the pid is a running child the caller spawned.
 */
export function signalWindowsTree(pid: number, signal: NodeJS.Signals | 0, stillOurs: boolean): boolean {
  if (!stillOurs || !Number.isInteger(pid) || pid <= 0 || !pidExists(pid)) return false;
  if (signal === 0 || signal === "SIGCONT") return true;
  try {
    const result = Bun.spawnSync(taskkillArgv(pid), { stdout: "ignore", stderr: "ignore", windowsHide: true });
    if (!result.success) process.kill(pid, "SIGKILL");
  } catch {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone in between
    }
  }
  return true;
}

export interface ShellInvocation {
  /** argv before the command's own text. */
  readonly argv: readonly string[];
  /** Shown to the model and in errors: "/bin/sh -c", "Git Bash (C:\…\bash.exe) -c", "cmd.exe /C". */
  readonly description: string;
  /** Whether the argv merges stderr into stdout itself (POSIX shells do, cmd.exe does not). */
  readonly mergesStderr: boolean;
  /** Bun.spawn windowsVerbatimArguments: cmd.exe parses its own command line. */
  readonly verbatim: boolean;
}

export interface ShellLookup {
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly exists: (path: string) => boolean;
  readonly which: (name: string) => string | null;
}

const currentLookup = (): ShellLookup => ({ platform: process.platform, env: process.env, exists: existsSync, which: (name) => Bun.which(name) });

/** Git for Windows' bash.exe, or a bash on PATH other than the WSL launcher; undefined when none. */
export function findWindowsBash(lookup: ShellLookup): string | undefined {
  const { env, exists } = lookup;
  const roots = [env.ProgramFiles, env.ProgramW6432, env["ProgramFiles(x86)"], env.LOCALAPPDATA && win32.join(env.LOCALAPPDATA, "Programs")];
  for (const root of roots) {
    if (!root) continue;
    const candidate = win32.join(root, "Git", "bin", "bash.exe");
    if (exists(candidate)) return candidate;
  }
  const onPath = lookup.which("bash");
  if (!onPath) return undefined;
  const systemRoot = (env.SystemRoot ?? env.windir ?? "C:\\Windows").toLowerCase();
  // System32\bash.exe starts WSL: another OS with other paths, not a shell for this one.
  if (onPath.toLowerCase().startsWith(win32.join(systemRoot, "system32").toLowerCase())) return undefined;
  return onPath;
}

/** Merges stderr into stdout inside the shell, so syntax errors of the command are captured too. */
const POSIX_MERGING_WRAPPER = 'exec 2>&1; exec /bin/sh -c "$1"';
/** The same for bash on Windows ($BASH: the running bash's own path, in its own path syntax). */
const BASH_MERGING_WRAPPER = 'exec 2>&1; exec "$BASH" -c "$1"';

/** The argv that runs `command` as the bash tool does on this platform. */
export function shellInvocation(command: string, lookup: ShellLookup = currentLookup()): { argv: string[]; shell: ShellInvocation; onePipeArgv?: string[] } {
  const shell = shellFor(lookup);
  if (shell.verbatim) return { argv: [...shell.argv, `"${command}"`], shell };
  // POSIX: the same shell without the merging wrapper (one exec instead of two), for a caller that gives the
  // shell ONE pipe as both stdout and stderr — what `exec 2>&1` makes of the wrapper's fds.
  const onePipeArgv = lookup.platform === "win32" ? undefined : ["/bin/sh", "-c", command];
  return { argv: [...shell.argv, "zot-bash", command], shell, ...(onePipeArgv ? { onePipeArgv } : {}) };
}

export function shellFor(lookup: ShellLookup = currentLookup()): ShellInvocation {
  if (lookup.platform !== "win32") {
    return { argv: ["/bin/sh", "-c", POSIX_MERGING_WRAPPER], description: "/bin/sh -c", mergesStderr: true, verbatim: false };
  }
  const bash = findWindowsBash(lookup);
  if (bash !== undefined) return { argv: [bash, "-c", BASH_MERGING_WRAPPER], description: `Git Bash (${bash}) -c`, mergesStderr: true, verbatim: false };
  const cmd = lookup.env.ComSpec ?? "cmd.exe";
  return { argv: [cmd, "/d", "/s", "/c"], description: "cmd.exe /C", mergesStderr: false, verbatim: true };
}

/**
 * Linux with musl libc: the runtime reports no glibc version and the musl
 * loader (/lib/ld-musl-<arch>.so.1) exists. A glibc system that merely has
 * the musl package installed counts as glibc.
 */
export function isMuslLibc(platform: NodeJS.Platform = process.platform, libDir = "/lib"): boolean {
  if (platform !== "linux") return false;
  try {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
    if (header?.glibcVersionRuntime) return false;
  } catch {
    // no report: decide by the loader alone
  }
  try {
    return readdirSync(libDir).some((name) => name.startsWith("ld-musl-"));
  } catch {
    return false;
  }
}
