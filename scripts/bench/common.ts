/**
 * Shared helpers for the benchmark scripts (not a benchmark itself).
 *
 * Contract: pure helpers — statistics (nearest-rank percentiles), number
 * formatting, a fixed-width table printer, temp dirs (deleted at exit), the
 * raw-pipe floor client's plumbing (`spawnRawFixture`: spawn a fixture
 * extension, answer its hello, hand over its other stdout frames), and `report(rows)`,
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

/** A stdout frame of a fixture extension, as the raw floor clients read it. */
export interface FixtureFrame {
  readonly type: string;
  readonly id?: string;
  readonly message?: string;
}

export interface RawFixtureOptions {
  /** Working directory of the process (default: this process's). */
  readonly cwd?: string;
  /** The cwd the hello_ack announces. */
  readonly ackCwd: string;
  readonly stderr: "inherit" | "ignore";
  /** The child's environment (default: Bun.spawn's). */
  readonly env?: Record<string, string | undefined>;
}

/**
 * The floor's extension process: `command` spawned over raw pipes (no
 * manager, connection or queue). Its stdout is split on LF and JSON.parsed;
 * `hello` is answered at once with a hello_ack naming `ackCwd`, every other
 * frame goes to `onFrame`.
 */
export function spawnRawFixture(
  command: readonly string[],
  options: RawFixtureOptions,
  onFrame: (frame: FixtureFrame) => void,
): Bun.Subprocess<"pipe", "pipe", "inherit" | "ignore"> {
  const proc = Bun.spawn([...command], {
    cwd: options.cwd,
    stdin: "pipe",
    stdout: "pipe",
    stderr: options.stderr,
    ...(options.env ? { env: options.env } : {}),
  });
  const helloAck = `${JSON.stringify({ type: "hello_ack", protocol_version: 1, cwd: options.ackCwd, capabilities: [] })}\n`;
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n", start)) {
        const frame = JSON.parse(buffered.slice(start, nl)) as FixtureFrame;
        start = nl + 1;
        if (frame.type === "hello") void proc.stdin.write(helloAck);
        else onFrame(frame);
      }
      buffered = buffered.slice(start);
    }
  })();
  return proc;
}
