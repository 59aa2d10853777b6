/**
 * Replacing the running zot executable with a verified download, without a
 * moment where `exe` is missing or half-written:
 *
 * - answerVersion(): runs a binary with `--version` (bounded: VERSION_CHECK_MS,
 *   then SIGKILL) and fails with "upgrade.bad_binary" unless it answers
 *   `zot <version>`.
 * - swapExecutable(), POSIX: the old file is kept as `<exe>.old` (a hard
 *   link, or a copy where links are not possible), the candidate is renamed
 *   over `exe` (atomic), and the installed `exe` must answer --version; if it
 *   does not, `<exe>.old` is renamed back over `exe` and the error says so.
 *   `<exe>.old` is removed after success.
 * - Windows (a running .exe cannot be replaced, but can be renamed): `exe`
 *   is renamed to `<exe>.old`, the candidate renamed to `exe`, checked, and
 *   on failure both renames are undone. `<exe>.old` cannot be deleted while
 *   the old zot runs: it is left and removed by the next upgrade.
 */
import { copyFileSync, chmodSync, linkSync, renameSync, rmSync, statSync } from "node:fs";
import { ZotError, errorMessage } from "../common/errors.ts";
import { answersVersion } from "./versions.ts";

/** How long a new binary gets to answer --version. */
export const VERSION_CHECK_MS = 15_000;

export function oldPathOf(exe: string): string {
  return `${exe}.old`;
}

export async function answerVersion(binary: string, version: string, label: string): Promise<void> {
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    proc = Bun.spawn([binary, "--version"], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, ZOT_NO_UPDATE_CHECK: "1" } });
  } catch (err) {
    throw new ZotError("upgrade.bad_binary", `${label} does not start: ${errorMessage(err)}`, { file: binary });
  }
  const timer = setTimeout(() => proc.kill("SIGKILL"), VERSION_CHECK_MS);
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  clearTimeout(timer);
  if (code === 0 && answersVersion(stdout, version)) return;
  const said = `${stdout}${stderr}`.trim().split("\n")[0]?.slice(0, 200) ?? "";
  const how = proc.signalCode === "SIGKILL" ? `did not answer --version within ${VERSION_CHECK_MS / 1000} s` : `answered --version with exit ${code}${said === "" ? " and no output" : `: "${said}"`}`;
  throw new ZotError("upgrade.bad_binary", `${label} ${how}, expected "zot ${version}"`, { file: binary });
}

function keepOld(exe: string, old: string): void {
  rmSync(old, { force: true });
  try {
    linkSync(exe, old);
  } catch {
    copyFileSync(exe, old);
    chmodSync(old, statSync(exe).mode & 0o7777);
  }
}

export interface SwapRequest {
  readonly exe: string;
  /** The verified download, in the same directory as exe. */
  readonly candidate: string;
  readonly version: string;
  readonly platform: NodeJS.Platform;
}

export async function swapExecutable(request: SwapRequest): Promise<void> {
  const { exe, candidate, version } = request;
  const old = oldPathOf(exe);
  if (request.platform === "win32") {
    try {
      rmSync(old, { force: true });
    } catch {
      // still in use by an older zot: renamed over below if possible
    }
    renameSync(exe, old);
    try {
      renameSync(candidate, exe);
    } catch (err) {
      renameSync(old, exe);
      throw err;
    }
  } else {
    keepOld(exe, old);
    try {
      renameSync(candidate, exe);
    } catch (err) {
      rmSync(old, { force: true });
      throw err;
    }
  }
  try {
    await answerVersion(exe, version, `the installed ${exe}`);
  } catch (err) {
    if (request.platform === "win32") {
      renameSync(exe, candidate);
      rmSync(candidate, { force: true });
    }
    renameSync(old, exe);
    throw new ZotError("upgrade.bad_binary", `${errorMessage(err)}; rolled back: the previous zot is back at ${exe}`, { file: exe });
  }
  try {
    rmSync(old, { force: true });
  } catch {
    // Windows: the running old zot holds it; the next upgrade removes it
  }
}
