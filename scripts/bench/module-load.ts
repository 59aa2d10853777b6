/**
 * What loading each module of a print run costs in the compiled binary
 * (issue 10: the startup milliseconds zot spends before its first request).
 *
 * What: runs zot from source once (`-p`, 3 rounds of `bash echo hi` against
 * the stand-in model) with test/fixtures/record-loads.ts preloaded, which
 * lists every src module the run loads; then compiles a probe with
 * dist/zot's flags (scripts/compile.ts COMPILE_FLAGS) that imports
 * node:fs, node:fs/promises, node:path, valibot and those modules one at a
 * time, leaves first (reverse load order, so a module's time is mostly its
 * own evaluation), each through its own dynamic import(), and times each
 * step; RUNS runs, medians. The probe gives every module a chunk of its
 * own, so a step also holds the ≈10–15 µs a chunk costs to load (the binary
 * has fewer, larger chunks): read the total as an upper bound and the
 * ranking as where to look. Prints the TOP slowest modules and the sum.
 * Usage: bun scripts/bench/module-load.ts [RUNS] [TOP]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startModelServer } from "../../test/support/model-server.ts";
import { COMPILE_FLAGS } from "../compile.ts";
import { REPO_ROOT, fmt, machineLine, median, printTable, tempDir } from "./common.ts";

const RUNS = Number(process.argv[2] ?? 9);
const TOP = Number(process.argv[3] ?? 25);
const SRC = join(REPO_ROOT, "src");

/** The src modules a 3-round bash print run loads, in reverse load order (leaves first). */
async function loadedModules(dir: string): Promise<string[]> {
  const server = startModelServer();
  for (let i = 0; i < 3; i++) server.enqueue({ type: "tool_calls", calls: [{ id: `toolu_${i + 1}`, name: "bash", arguments: { command: "echo hi" } }] });
  server.enqueue({ type: "text", text: "done" });
  const log = join(dir, "loads.log");
  const proc = Bun.spawn(
    [process.execPath, "--preload", join(REPO_ROOT, "test", "fixtures", "record-loads.ts"), join(SRC, "cli", "main.ts"),
      "-p", "go", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--api-key", "bench", "--base-url", server.anthropicBaseUrl, "--max-steps", "4"],
    { cwd: dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, ZOT_HOME: dir, LOAD_LOG: log, LOAD_FILTER: "." }, stdout: "pipe", stderr: "pipe" },
  );
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  server.stop();
  if (code !== 0 || out.trim() !== "done") throw new Error(`the recording run failed (exit ${code}): ${err}`);
  const seen = new Set<string>();
  for (const line of readFileSync(log, "utf8").split("\n")) if (line !== "" && !line.endsWith(join("cli", "main.ts"))) seen.add(line);
  return [...seen].reverse();
}

const dir = tempDir("zot-bench-module-load-");
const modules = await loadedModules(dir);
const valibot = Bun.resolveSync("valibot", REPO_ROOT);
const steps: [string, string][] = [
  ["node:fs", "node:fs"], ["node:fs/promises", "node:fs/promises"], ["node:path", "node:path"], ["valibot", valibot],
  ...modules.map((path): [string, string] => [path.slice(SRC.length + 1), path]),
];
const probe = join(dir, "probe.ts");
writeFileSync(
  probe,
  `const steps: [string, () => Promise<unknown>][] = [\n${steps.map(([name, path]) => `  [${JSON.stringify(name)}, () => import(${JSON.stringify(path)})],`).join("\n")}\n];\n` +
    "const times: number[] = [];\n" +
    "for (const [, load] of steps) { const t = performance.now(); await load(); times.push(performance.now() - t); }\n" +
    "console.log(JSON.stringify(times));\n",
);
const binary = join(dir, "probe");
const build = Bun.spawnSync([process.execPath, "build", probe, ...COMPILE_FLAGS, "--outfile", binary], { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
if (!build.success) throw new Error(`compiling the probe failed: ${build.stderr.toString()}`);
const runs: number[][] = [];
for (let run = 0; run < RUNS; run++) runs.push(JSON.parse(Bun.spawnSync([binary], { stdout: "pipe" }).stdout.toString()) as number[]);
const perStep = steps.map(([name], index) => ({ name, ms: median(runs.map((times) => times[index] ?? Number.NaN)) }));
const total = perStep.reduce((sum, step) => sum + step.ms, 0);
console.log(`module load — ${machineLine()}, ${modules.length} src modules of a print run, ${RUNS} runs, medians`);
printTable([["module", "ms"], ...perStep.toSorted((a, b) => b.ms - a.ms).slice(0, TOP).map((step) => [step.name, fmt(step.ms, 3)]), ["(all steps)", fmt(total, 2)]], 1);
process.exit(0);
