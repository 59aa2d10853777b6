/**
 * Spawning one extension subprocess: exec resolution (absolute as is; paths
 * with a separator or a leading "." relative to the manifest directory; bare
 * names through PATH), cwd = the extension directory, stdin/stdout/stderr
 * pipes (the caller copies stderr into the extension's log), and its own
 * process group so the whole tree can be signalled. Also the signalling
 * helpers; the process-exit safety net that SIGKILLs every live group is
 * common/process-tree.ts superviseGroupLeader (shared with MCP servers).
 * Helpers that left the group (setsid, double fork) are ended by the
 * process-tree guard (common/process-tree.ts) on Linux. Windows has no
 * process groups: the extension is spawned without `detached` (which there
 * would mean "no console") and its tree is ended with taskkill
 * (common/platform.ts).
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Subprocess } from "bun";
import { ownGroupSpawnOptions } from "../common/platform.ts";
import { signalGroup, superviseGroupLeader } from "../common/process-tree.ts";
import type { LoadFailure } from "./errors.ts";

export type ExtensionSubprocess = Subprocess<"pipe", "pipe", "pipe">;

export type ExecResolution = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly failure: LoadFailure };

export function resolveExec(exec: string, dir: string): ExecResolution {
  let path: string;
  if (isAbsolute(exec)) path = exec;
  else if (exec.includes("/") || exec.includes("\\") || exec.startsWith(".")) path = join(dir, exec);
  else {
    const found = Bun.which(exec);
    if (!found) return { ok: false, failure: { kind: "exec_not_found", detail: `exec "${exec}" was not found on PATH` } };
    return { ok: true, path: found };
  }
  if (!existsSync(path)) return { ok: false, failure: { kind: "exec_not_found", detail: `exec "${exec}" does not exist (${path})` } };
  try {
    if (statSync(path).isDirectory()) return { ok: false, failure: { kind: "spawn_failed", detail: `exec "${exec}" is a directory (${path})` } };
    accessSync(path, constants.X_OK);
  } catch {
    return { ok: false, failure: { kind: "spawn_failed", detail: `exec "${exec}" is not executable (${path}); try chmod +x` } };
  }
  return { ok: true, path };
}


export function spawnExtension(
  execPath: string,
  args: readonly string[],
  dir: string,
): { ok: true; proc: ExtensionSubprocess } | { ok: false; failure: LoadFailure } {
  try {
    const proc = Bun.spawn([execPath, ...args], {
      cwd: dir,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      ...ownGroupSpawnOptions(),
      env: process.env,
    });
    // Its group is ended once it exits, and at zot's exit in any case.
    superviseGroupLeader(proc);
    return { ok: true, proc };
  } catch (err) {
    return { ok: false, failure: { kind: "spawn_failed", detail: `could not start: ${err instanceof Error ? err.message : String(err)}` } };
  }
}

/** Signals the group of a still-running leader, falling back to the leader alone. */
export function signalProcessTree(proc: ExtensionSubprocess, signal: NodeJS.Signals): void {
  if (proc.exitCode !== null || proc.signalCode !== null) {
    signalGroup(proc.pid, signal);
    return;
  }
  if (!signalGroup(proc.pid, signal)) proc.kill(signal);
}
