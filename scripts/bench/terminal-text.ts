/**
 * Benchmark: the terminal sanitizer (src/common/terminal-text.ts) on streamed
 * deltas, the way the interactive transcript feeds it.
 *
 * What: ns per delta and MB/s of TerminalTextSanitizer.push for (a) plain
 * model text in ≈40-character deltas (the fast path: one regex test) and
 * (b) coloured tool-style output, an SGR every few words plus a carriage
 * return per line (the character scanner). Floors, measured in the same
 * run: appending the same deltas to a string (what the transcript does
 * anyway), and Bun.stripANSI on the same deltas (the native stripper, which
 * also removes SGR and keeps no state across deltas). Ratios are time /
 * floor.
 * How: ≈TOTAL_MB of deltas per workload (default 8); 3 warm-ups then REPS
 * (7) runs, alternated with the floors, a full GC before each, median
 * reported; sinks count characters so no work can be skipped.
 * Usage: bun scripts/bench/terminal-text.ts [TOTAL_MB]
 */
import { TerminalTextSanitizer } from "../../src/common/terminal-text.ts";
import { type SummaryRow, fmt, machineLine, median, printTable, ratioText, report } from "./common.ts";

const TOTAL_MB = Number(process.argv[2] ?? 8);
const REPS = 7;
const WARMUPS = 3;

function deltas(label: string, piece: (index: number) => string): { label: string; items: string[]; chars: number } {
  const items: string[] = [];
  let chars = 0;
  for (let i = 0; chars < TOTAL_MB * 1024 * 1024; i++) {
    const text = piece(i);
    items.push(text);
    chars += text.length;
  }
  return { label, items, chars };
}

const WORDS = "the quick brown fox jumps over the lazy dog, café — 日本 ";
const plain = deltas("plain text, ≈40-char deltas", (i) => WORDS.slice(i % 7, (i % 7) + 40));
const coloured = deltas("SGR-coloured lines with \\r", (i) => `\x1b[3${i % 8}mok\x1b[0m test ${i} passed \x1b[2m(${i % 97} ms)\x1b[22m\r\n`);

function sanitizeAll(items: readonly string[]): number {
  const sanitizer = new TerminalTextSanitizer();
  let out = "";
  for (const item of items) out += sanitizer.push(item);
  return out.length > 0 ? 1 : 0;
}

function appendAll(items: readonly string[]): number {
  let out = "";
  for (const item of items) out += item;
  return out.length > 0 ? 1 : 0;
}

function stripAll(items: readonly string[]): number {
  let out = "";
  for (const item of items) out += Bun.stripANSI(item);
  return out.length > 0 ? 1 : 0;
}

function timeAll(fns: readonly (() => number)[]): number[] {
  const samples: number[][] = fns.map(() => []);
  for (let i = 0; i < WARMUPS + REPS; i++) {
    fns.forEach((fn, index) => {
      Bun.gc(true);
      const start = performance.now();
      if (fn() !== 1) throw new Error("no output");
      const elapsed = performance.now() - start;
      if (i >= WARMUPS) samples[index]?.push(elapsed);
    });
  }
  return samples.map(median);
}

console.log(`terminal-text: ≈${TOTAL_MB} M chars per workload, median of ${REPS} — ${machineLine()}`);
const table: string[][] = [["workload", "deltas", "sanitizer ns/delta", "MB/s", "append ns/delta", "ratio", "stripANSI ns/delta", "ratio"]];
const rows: SummaryRow[] = [];
for (const w of [plain, coloured]) {
  const [sanitizeMs = Number.NaN, appendMs = Number.NaN, stripMs = Number.NaN] = timeAll([
    () => sanitizeAll(w.items),
    () => appendAll(w.items),
    () => stripAll(w.items),
  ]);
  const ns = (ms: number): number => (ms * 1e6) / w.items.length;
  const mbPerSec = (w.chars / 1024 / 1024) / (sanitizeMs / 1000);
  table.push([w.label, String(w.items.length), fmt(ns(sanitizeMs)), fmt(mbPerSec), fmt(ns(appendMs)), ratioText(sanitizeMs / appendMs), fmt(ns(stripMs)), ratioText(sanitizeMs / stripMs)]);
  rows.push({
    bench: "terminal-text", metric: `${w.label} ns/delta (vs Bun.stripANSI)`, value: `${fmt(ns(sanitizeMs))} ns, ${fmt(mbPerSec)} MB/s`,
    floor: `${fmt(ns(stripMs))} ns (stripANSI), ${fmt(ns(appendMs))} ns (append)`, ratio: sanitizeMs / stripMs,
  });
}
printTable(table);
console.log("ratios: sanitizer time / floor time (append: the string concatenation alone; stripANSI: the native stripper)");
report(rows);
