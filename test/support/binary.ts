/**
 * End-to-end helpers: the compiled dist/zot (rebuilt once per test run when
 * any source file, or scripts/bytecode-order.txt, is newer than it) and a
 * runner that executes it in an isolated environment (own ZOT_HOME, no
 * inherited API keys) with a hard timeout so a hanging binary fails the
 * test instead of the suite.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./temp.ts";

export const REPO_ROOT = join(import.meta.dir, "..", "..");
const BINARY = process.env.ZOT_TEST_BINARY ?? join(REPO_ROOT, "dist", "zot");

/** Newest modification time of any file under `dir` (recursive). */
export function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

let building: Promise<string> | undefined;

/** Path to a dist/zot that is at least as new as the sources. */
export function zotBinary(): Promise<string> {
  building ??= (async () => {
    if (process.env.ZOT_TEST_BINARY) return BINARY;
    // The bytecode layout (scripts/bytecode-order.txt) is part of the build too.
    const order = join(REPO_ROOT, "scripts", "bytecode-order.txt");
    const newest = Math.max(newestMtime(join(REPO_ROOT, "src")), existsSync(order) ? statSync(order).mtimeMs : 0);
    const fresh = existsSync(BINARY) && statSync(BINARY).mtimeMs >= newest;
    if (!fresh) {
      const proc = Bun.spawn([process.execPath, join(REPO_ROOT, "scripts", "build.ts")], {
        cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe",
      });
      const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
      if (code !== 0) throw new Error(`building dist/zot failed:\n${err}`);
    }
    return BINARY;
  })();
  return building;
}

export { removeTempDirs, tempDir } from "./temp.ts";

export interface RunResult {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd?: string;
  readonly env?: Record<string, string | undefined>;
  readonly stdin?: string;
  readonly timeoutMs?: number;
  /** ZOT_HOME for the run; a fresh temp dir when omitted. */
  readonly home?: string;
}

/** A clean environment: PATH and HOME kept, provider keys dropped, the chat screen's update check off. */
export function cleanEnv(home: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ["PATH", "HOME", "TMPDIR", "LANG", "TERM"]) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  // Fixture extensions written in TypeScript run with `bun`.
  const bunDir = process.execPath.slice(0, process.execPath.lastIndexOf("/"));
  env.PATH = `${bunDir}:${process.env.PATH ?? "/usr/bin:/bin"}`;
  env.ZOT_HOME = home;
  // The chat screen's background update check never reaches out from a test (test/upgrade/ turns it back on).
  env.ZOT_NO_UPDATE_CHECK = "1";
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export async function runZot(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const binary = await zotBinary();
  const home = options.home ?? tempDir("zot-home-");
  const proc = Bun.spawn([binary, ...args], {
    cwd: options.cwd ?? home,
    env: cleanEnv(home, options.env),
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timeout = setTimeout(() => proc.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  clearTimeout(timeout);
  return { code: proc.exitCode, signal: proc.signalCode === null ? null : String(proc.signalCode), stdout, stderr };
}
