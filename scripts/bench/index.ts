/**
 * Runs every benchmark in sequence and prints one summary table: `bun run bench`.
 *
 * Contract: each script in SCRIPTS runs as its own `bun` subprocess (fresh
 * heap and JIT, so one benchmark's garbage cannot slow the next), with its
 * output shown as it goes and ZOT_BENCH_SUMMARY naming a temp file where it
 * appends its summary rows (see common.ts `report`). Afterwards the rows are
 * printed as one table: figure, floor measured in the same run, ratio, target
 * and whether it was met. Benchmarks never fail on timing; the exit status is
 * non-zero only when a script itself fails (crash, extension not ready).
 * Usage: bun scripts/bench/index.ts [name ...]   (e.g. `startup line-reader`)
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type SummaryRow, BENCH_DIR, machineLine, printTable, ratioText, tempDir } from "./common.ts";

const SCRIPTS = ["startup", "print", "session", "ext-startup", "tool-roundtrip", "intercept", "events", "line-reader", "terminal-text", "tui", "agents"] as const;

const wanted = process.argv.slice(2);
const selected = wanted.length > 0 ? SCRIPTS.filter((name) => wanted.includes(name)) : [...SCRIPTS];
const summaryFile = join(tempDir("zot-bench-summary-"), "rows.jsonl");
const failed: string[] = [];
const started = performance.now();

for (const name of selected) {
  console.log(`\n=== ${name} ===`);
  const begin = performance.now();
  const proc = Bun.spawnSync([process.execPath, join(BENCH_DIR, `${name}.ts`)], {
    cwd: join(BENCH_DIR, "..", ".."),
    env: { ...process.env, ZOT_BENCH_SUMMARY: summaryFile },
    stdin: "ignore",
    stdout: "inherit",
    stderr: "inherit",
  });
  const seconds = ((performance.now() - begin) / 1000).toFixed(1);
  if (!proc.success) {
    failed.push(name);
    console.log(`(${name} FAILED with exit ${proc.exitCode} after ${seconds} s)`);
  } else {
    console.log(`(${name}: ${seconds} s)`);
  }
}

const rows: SummaryRow[] = existsSync(summaryFile)
  ? readFileSync(summaryFile, "utf8").split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line) as SummaryRow)
  : [];
console.log(`\n=== summary — ${machineLine()}, ${((performance.now() - started) / 1000).toFixed(1)} s ===`);
const table: string[][] = [["bench", "metric", "value", "floor", "ratio", "target", "met"]];
for (const row of rows) {
  table.push([
    row.bench, row.metric, row.value, row.floor ?? "", row.ratio === undefined ? "" : ratioText(row.ratio),
    row.target ?? "", row.ok === undefined ? "" : row.ok ? "yes" : "NO",
  ]);
}
printTable(table, 2);
if (failed.length > 0) {
  console.log(`\nfailed: ${failed.join(", ")}`);
  process.exit(1);
}
