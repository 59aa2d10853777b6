/**
 * Peak memory of a child process, for memory-bound tests. The command runs
 * under test/fixtures/rss/maxrss.py, a small Python process that reports its
 * child's peak RSS: measured from the test runner directly, a child's rusage
 * includes the runner's own peak (inherited across fork and exec).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./temp.ts";

const MAXRSS = join(import.meta.dir, "..", "fixtures", "rss", "maxrss.py");

export interface MeasuredRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Peak resident set size of the command, in bytes. */
  readonly maxRss: number;
}

export interface MeasuredOptions {
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  /** The command is killed after this long (default 30 s). */
  readonly timeoutMs?: number;
  /** Written to the command's stdin, which stays open until it exits (default: no stdin). */
  readonly input?: string;
}

export async function runMeasured(command: readonly string[], options: MeasuredOptions = {}): Promise<MeasuredRun> {
  const dir = tempDir("zot-rss-");
  const out = join(dir, "maxrss");
  try {
    const timeout = String((options.timeoutMs ?? 30_000) / 1000);
    const proc = Bun.spawn(["python3", MAXRSS, out, timeout, ...command], {
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...(options.env !== undefined ? { env: options.env } : {}),
      stdin: options.input === undefined ? "ignore" : "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stdin = proc.stdin;
    if (stdin !== undefined && typeof stdin !== "number") {
      stdin.write(options.input ?? "");
      await stdin.flush();
    }
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    await proc.exited;
    if (stdin !== undefined && typeof stdin !== "number") await stdin.end();
    return { code: proc.exitCode, stdout, stderr, maxRss: Number(readFileSync(out, "utf8")) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
