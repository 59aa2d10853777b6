/**
 * What a run loads, for the tests that keep code out of start-up (issue 10,
 * issue 14): `splitBundle` builds src/cli/main.ts the way the binary is
 * built (--splitting) into a tracked temp dir and finds chunks by a string
 * only one module holds; `staticClosure` is the set of chunks a chunk
 * imports statically (transitively); `recordLoads` runs zot from source with
 * test/fixtures/record-loads.ts preloaded and returns the src modules
 * matching `filter` that Bun loaded (repo-relative, sorted, once each).
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./binary.ts";
import { tempDir } from "./temp.ts";

export interface SplitBundle {
  readonly dir: string;
  /** The chunks whose text includes `marker`. */
  holding(marker: string): string[];
}

export function splitBundle(options: { readonly minify?: boolean } = {}): SplitBundle {
  const dir = tempDir("zot-bundle-");
  const args = [process.execPath, "build", join(REPO_ROOT, "src", "cli", "main.ts"), "--splitting", "--format=esm", ...(options.minify ? ["--minify"] : []), "--target=bun", "--outdir", dir];
  const build = Bun.spawnSync(args, { cwd: REPO_ROOT, stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`bun build failed: ${build.stderr.toString()}`);
  const files = readdirSync(dir).filter((file) => file.endsWith(".js"));
  return { dir, holding: (marker) => files.filter((file) => readFileSync(join(dir, file), "utf8").includes(marker)) };
}

/** Chunks `entry` imports statically (transitively). */
export function staticClosure(dir: string, entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(dir, file), "utf8");
    for (const match of text.matchAll(/(?:import|export)\s*(?:[^"'();]*?\s*from\s*)?["']\.\/([^"']+)["']/g)) visit(match[1]!);
  };
  visit(entry);
  return seen;
}

export interface RecordedRun {
  readonly loaded: string[];
  readonly exitCode: number;
  readonly stderr: string;
}

export async function recordLoads(options: {
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Where the load log goes (a directory the test removes). */
  readonly logDir: string;
  readonly filter: RegExp;
}): Promise<RecordedRun> {
  const log = join(options.logDir, `loads-${Math.random().toString(36).slice(2)}.txt`);
  const proc = Bun.spawn([process.execPath, "--preload", join(REPO_ROOT, "test", "fixtures", "record-loads.ts"), join(REPO_ROOT, "src", "cli", "main.ts"), ...options.args], {
    cwd: options.cwd,
    env: { ...options.env, LOAD_LOG: log, LOAD_FILTER: options.filter.source },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [exitCode, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  const paths = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((path) => path !== "") : [];
  return { loaded: [...new Set(paths.map((path) => path.slice(path.indexOf("/src/") + 1)))].sort(), exitCode, stderr };
}
