/**
 * Shared helpers for the benchmark scripts (not a benchmark itself).
 *
 * Contract: pure helpers — statistics (nearest-rank percentiles), number
 * formatting, a fixed-width table printer, temp dirs (deleted at exit), and `report(rows)`,
 * which prints nothing itself but, when the env var ZOT_BENCH_SUMMARY names a
 * file, appends the rows as JSON lines to it so `index.ts` can print one
 * summary table after running every script. Benchmarks print figures and
 * ratios to a floor measured in the same run; nothing here asserts on time.
 */
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const REPO_ROOT = join(import.meta.dir, "..", "..");
export const BENCH_DIR = import.meta.dir;
/** Directory holding the running bun; prepended to PATH so `bun` extensions resolve. */
export const BUN_DIR = dirname(process.execPath);

/** One summary line: a measured figure, optionally its floor and target. */
export interface SummaryRow {
  readonly bench: string;
  readonly metric: string;
  readonly value: string;
  readonly floor?: string;
  /** value / floor (or the ratio the target is stated on). */
  readonly ratio?: number;
  readonly target?: string;
  /** Whether the ratio meets the target (undefined: no target). */
  readonly ok?: boolean;
}

export function report(rows: readonly SummaryRow[]): void {
  const file = process.env.ZOT_BENCH_SUMMARY;
  if (!file) return;
  appendFileSync(file, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
}

export function prependPath(dir: string): void {
  if (!(process.env.PATH ?? "").split(":").includes(dir)) process.env.PATH = `${dir}:${process.env.PATH ?? ""}`;
}

const tempDirs: string[] = [];

/** A fresh temp dir, removed when the process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (tempDirs.length === 0) process.on("exit", () => tempDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  tempDirs.push(dir);
  return dir;
}

/** Nearest-rank percentile of an unsorted sample (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Fixed decimals, trimmed for big numbers; thousands separated. */
export function fmt(value: number, decimals = 1): string {
  if (!Number.isFinite(value)) return "n/a";
  const digits = Math.abs(value) >= 1000 ? 0 : decimals;
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function ratioText(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : "n/a";
}

/** Prints rows as an aligned text table (first row is the header; the first `left` columns left-aligned). */
export function printTable(rows: readonly (readonly string[])[], left = 1): void {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  rows.forEach((row, index) => {
    console.log(row.map((cell, i) => (i < left ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  "));
    if (index === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  });
}

/** Machine facts printed in every header so figures are read in context. */
export function machineLine(): string {
  const cpus = navigator.hardwareConcurrency;
  return `bun ${Bun.version}, ${process.platform}/${process.arch}, ${cpus} logical CPU${cpus === 1 ? "" : "s"}`;
}
