/**
 * Benchmark: cold start of the compiled executable.
 *
 * What: wall time (median, p90) and peak RSS of `dist/zot --version` and
 * `dist/zot ext list` (temp empty ZOT_HOME and cwd), each as a ratio to the
 * floor — a Bun hello-world (`console.log("hi")`) compiled in this same run
 * with the same `bun build --compile` flags as scripts/build.ts, so the ratio
 * is what zot's own code adds on top of the Bun runtime.
 * How: builds dist/zot first when missing (`bun scripts/build.ts`; when it
 * is older than src/ it warns and measures it anyway); 3 warm-ups then RUNS (default 30) timed runs per
 * command, interleaved round-robin so drift hits all three alike; each run is
 * a Bun.spawnSync timed with performance.now(); peak RSS is the child's
 * rusage maxRSS (free: no /usr/bin/time wrapper). Target: ratio ≤ 2x.
 * Usage: bun scripts/bench/startup.ts [RUNS]
 * (ZOT_BENCH_ZOT=<binary> measures another build; ZOT_BENCH_BEFORE=<binary>
 * adds that build's rows to the same run, interleaved with the others: a
 * before/after comparison under the same load.)
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newestMtime } from "../../test/support/binary.ts";
import { COMPILE_FLAGS } from "../compile.ts";
import { type SummaryRow, REPO_ROOT, fmt, machineLine, median, percentile, printTable, ratioText, report, tempDir } from "./common.ts";

const RUNS = Number(process.argv[2] ?? 30);
const WARMUPS = 3;
const TARGET = 2;
const ZOT = process.env.ZOT_BENCH_ZOT ?? join(REPO_ROOT, "dist", "zot");
const BEFORE = process.env.ZOT_BENCH_BEFORE;
function run(argv: readonly string[], cwd: string): void {
  const proc = Bun.spawnSync([...argv], { cwd, stdout: "inherit", stderr: "inherit" });
  if (!proc.success) throw new Error(`${argv.join(" ")} failed (exit ${proc.exitCode})`);
}

function ensureZot(): void {
  if (!existsSync(ZOT)) {
    console.log("dist/zot missing; building");
    run([process.execPath, join(REPO_ROOT, "scripts", "build.ts")], REPO_ROOT);
  } else if (statSync(ZOT).mtimeMs < newestMtime(join(REPO_ROOT, "src"))) {
    console.log("note: dist/zot is older than src/ — measuring it anyway; `bun run build` first for current figures");
  }
}

function buildHello(dir: string): string {
  writeFileSync(join(dir, "hi.ts"), 'console.log("hi");\n');
  const out = join(dir, "hi");
  const proc = Bun.spawnSync([process.execPath, "build", join(dir, "hi.ts"), ...COMPILE_FLAGS, "--outfile", out], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (!proc.success) throw new Error(`compiling hello-world failed: ${proc.stderr.toString()}`);
  return out;
}

interface Case {
  readonly label: string;
  readonly argv: readonly string[];
  readonly wallMs: number[];
  readonly rssBytes: number[];
}

function once(c: Case, env: Record<string, string>, cwd: string, record: boolean): void {
  const start = performance.now();
  const proc = Bun.spawnSync([...c.argv], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const elapsed = performance.now() - start;
  if (!proc.success) throw new Error(`${c.label} exited ${proc.exitCode}: ${proc.stderr.toString()}`);
  if (!record) return;
  c.wallMs.push(elapsed);
  if (proc.resourceUsage) c.rssBytes.push(proc.resourceUsage.maxRSS);
}

if (process.env.ZOT_BENCH_ZOT === undefined) ensureZot();
const scratch = tempDir("zot-bench-startup-");
const home = tempDir("zot-bench-home-");
const cwd = tempDir("zot-bench-cwd-");
const hello = buildHello(scratch);
const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZOT_HOME: home, TERM: "dumb" };

const floor: Case = { label: "hello-world (floor)", argv: [hello], wallMs: [], rssBytes: [] };
const builds: [string, string][] = BEFORE === undefined ? [["", ZOT]] : [[" (before)", BEFORE], [" (after)", ZOT]];
const cases: Case[] = builds.flatMap(([suffix, binary]) => [
  { label: `zot --version${suffix}`, argv: [binary, "--version"], wallMs: [], rssBytes: [] },
  { label: `zot ext list${suffix}`, argv: [binary, "ext", "list"], wallMs: [], rssBytes: [] },
]);
const all = [floor, ...cases];
for (let i = 0; i < WARMUPS; i++) for (const c of all) once(c, env, cwd, false);
for (let i = 0; i < RUNS; i++) for (const c of all) once(c, env, cwd, true);

const floorMedian = median(floor.wallMs);
const floorRss = median(floor.rssBytes);
const mb = (bytes: number): string => (Number.isFinite(bytes) ? `${fmt(bytes / 1024 / 1024)} MB` : "n/a");
console.log(`startup: ${RUNS} runs each after ${WARMUPS} warm-ups — ${machineLine()}`);
const table: string[][] = [["command", "median ms", "p90 ms", "ratio (median)", "ratio (p90)", "peak RSS", "RSS ratio"]];
const summary: SummaryRow[] = [];
for (const c of all) {
  const med = median(c.wallMs);
  const p90 = percentile(c.wallMs, 90);
  const rss = median(c.rssBytes);
  const isFloor = c === floor;
  const ratio = med / floorMedian;
  table.push([
    c.label, fmt(med, 2), fmt(p90, 2),
    isFloor ? "1.00x" : ratioText(ratio), isFloor ? "1.00x" : ratioText(p90 / percentile(floor.wallMs, 90)),
    mb(rss), isFloor ? "1.00x" : ratioText(rss / floorRss),
  ]);
  if (!isFloor) {
    summary.push({
      bench: "startup", metric: `${c.label} median wall`, value: `${fmt(med, 2)} ms`,
      floor: `${fmt(floorMedian, 2)} ms`, ratio, target: `≤ ${TARGET}x`, ok: ratio <= TARGET,
    });
    summary.push({ bench: "startup", metric: `${c.label} peak RSS`, value: mb(rss), floor: mb(floorRss), ratio: rss / floorRss });
  }
}
printTable(table);
console.log(`target: median ratio ≤ ${TARGET}x the compiled hello-world`);
report(summary);
