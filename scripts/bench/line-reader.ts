/**
 * Benchmark: splitting extension stdout into frames, and decoding them.
 *
 * What: frames/s and MB/s through `LineReader` (src/common/line-reader.ts) for
 * small (≈100 B) and large (≈64 KiB) tool_result frames, fed in 64 KiB chunks
 * as a pipe delivers them (so large frames straddle chunks). Floor: a plain
 * streaming `TextDecoder` + string `indexOf("\n")` split of the same bytes;
 * the ratio is LineReader time / floor time. Separately, the per-frame cost
 * of `decodeInboundFrame` (JSON.parse + valibot validation) on the same
 * lines, against a bare `JSON.parse` floor.
 * How: ≈TOTAL_MB of frames per size (default 16); every measurement runs 3
 * warm-ups then REPS (7) times, alternating with its floor, a full GC before
 * every run, and the median is reported. Sinks count lines
 * and characters so no work can be skipped.
 * Usage: bun scripts/bench/line-reader.ts [TOTAL_MB]
 */
import { decodeInboundFrame } from "../../src/ext/frames.ts";
import { LineReader } from "../../src/common/line-reader.ts";
import { type SummaryRow, fmt, machineLine, median, printTable, ratioText, report } from "./common.ts";

const TOTAL_MB = Number(process.argv[2] ?? 16);
const CHUNK = 64 * 1024;
const REPS = 7;
const WARMUPS = 3;

/** One tool_result line (with its LF) of about `size` bytes; some non-ASCII text included. */
function frameLine(index: number, size: number): string {
  const head = JSON.stringify({ type: "tool_result", id: `tool-${index}`, content: [{ type: "text", text: "" }] });
  const filler = "lorem ipsum dolor sit amet, café — ";
  const room = Math.max(0, size - Buffer.byteLength(head) - 1);
  let text = filler.repeat(Math.ceil(room / filler.length) + 1);
  while (Buffer.byteLength(text) > room) text = text.slice(0, text.length - Math.max(1, Buffer.byteLength(text) - room));
  return `${JSON.stringify({ type: "tool_result", id: `tool-${index}`, content: [{ type: "text", text }] })}\n`;
}

interface Workload {
  readonly label: string;
  readonly frames: number;
  readonly bytes: number;
  readonly chunks: readonly Uint8Array[];
  readonly lines: readonly string[];
}

function workload(label: string, frameSize: number): Workload {
  const count = Math.max(1, Math.round((TOTAL_MB * 1024 * 1024) / frameSize));
  const all = Buffer.from(Array.from({ length: count }, (_, i) => frameLine(i, frameSize)).join(""));
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < all.length; offset += CHUNK) chunks.push(new Uint8Array(all.subarray(offset, offset + CHUNK)));
  // Decode input as the host gets it: one fresh string per line from LineReader.
  const lines: string[] = [];
  const reader = new LineReader({ line: (text) => lines.push(text), overflow: () => {} });
  for (const chunk of chunks) reader.push(chunk);
  return { label, frames: count, bytes: all.length, chunks, lines };
}

/** Floor splitter: streaming TextDecoder, string indexOf, slice. */
function floorSplit(chunks: readonly Uint8Array[]): { count: number; chars: number } {
  const decoder = new TextDecoder("utf-8");
  let buffered = "";
  let count = 0;
  let chars = 0;
  for (const chunk of chunks) {
    buffered += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = buffered.indexOf("\n", start); nl !== -1; nl = buffered.indexOf("\n", start)) {
      const line = buffered.slice(start, nl);
      start = nl + 1;
      count++;
      chars += line.length;
    }
    buffered = buffered.slice(start);
  }
  return { count, chars };
}

function readerSplit(chunks: readonly Uint8Array[]): { count: number; chars: number } {
  let count = 0;
  let chars = 0;
  const reader = new LineReader({
    line: (text) => {
      count++;
      chars += text.length;
    },
    overflow: () => {
      throw new Error("unexpected overflow");
    },
  });
  for (const chunk of chunks) reader.push(chunk);
  reader.end();
  return { count, chars };
}

/**
 * Median ms of each function over REPS runs after WARMUPS. The functions are
 * alternated run by run, with a full GC before every run, so neither order nor
 * the other's garbage biases one of them. Each returns a count checked against `expect`.
 */
function timeAll(fns: readonly (() => number)[], expect: number): number[] {
  const samples: number[][] = fns.map(() => []);
  for (let i = 0; i < WARMUPS + REPS; i++) {
    fns.forEach((fn, index) => {
      Bun.gc(true);
      const start = performance.now();
      const got = fn();
      const elapsed = performance.now() - start;
      if (got !== expect) throw new Error(`expected ${expect}, got ${got}`);
      if (i >= WARMUPS) samples[index]?.push(elapsed);
    });
  }
  return samples.map(median);
}

const workloads = [workload("small (≈100 B)", 100), workload("large (≈64 KiB)", 64 * 1024)];
console.log(`line-reader: ≈${TOTAL_MB} MB per size in ${CHUNK / 1024} KiB chunks, median of ${REPS} — ${machineLine()}`);
const split: string[][] = [["frames", "count", "LineReader frames/s", "LineReader MB/s", "floor frames/s", "floor MB/s", "time ratio"]];
const decode: string[][] = [["frames", "decodeInboundFrame ns/frame", "JSON.parse ns/frame", "ratio", "decode MB/s"]];
const rows: SummaryRow[] = [];
for (const w of workloads) {
  const [readerMs = Number.NaN, floorMs = Number.NaN] = timeAll([() => readerSplit(w.chunks).count, () => floorSplit(w.chunks).count], w.frames);
  const perSec = (ms: number): number => w.frames / (ms / 1000);
  const mbPerSec = (ms: number): number => w.bytes / 1024 / 1024 / (ms / 1000);
  split.push([w.label, String(w.frames), fmt(perSec(readerMs), 0), fmt(mbPerSec(readerMs)), fmt(perSec(floorMs), 0), fmt(mbPerSec(floorMs)), ratioText(readerMs / floorMs)]);
  rows.push({
    bench: "line-reader", metric: `split ${w.label} MB/s (time ratio)`, value: `${fmt(mbPerSec(readerMs))} MB/s, ${fmt(perSec(readerMs), 0)} frames/s`,
    floor: `${fmt(mbPerSec(floorMs))} MB/s`, ratio: readerMs / floorMs,
  });
  const [decodeMs = Number.NaN, parseMs = Number.NaN] = timeAll([
    () => w.lines.reduce((ok, line) => ok + (decodeInboundFrame(line).ok ? 1 : 0), 0),
    () => w.lines.reduce((ok, line) => ok + (JSON.parse(line) === null ? 0 : 1), 0),
  ], w.frames);
  const nsPerFrame = (ms: number): number => (ms * 1e6) / w.frames;
  decode.push([w.label, fmt(nsPerFrame(decodeMs), 0), fmt(nsPerFrame(parseMs), 0), ratioText(decodeMs / parseMs), fmt(mbPerSec(decodeMs))]);
  rows.push({
    bench: "line-reader", metric: `decodeInboundFrame ${w.label} ns/frame`, value: `${fmt(nsPerFrame(decodeMs), 0)} ns`,
    floor: `${fmt(nsPerFrame(parseMs), 0)} ns (JSON.parse)`, ratio: decodeMs / parseMs,
  });
}
printTable(split);
console.log("time ratio: LineReader / floor (TextDecoder + indexOf); < 1x is faster than the floor");
console.log("");
printTable(decode);
console.log("ratio: decodeInboundFrame / bare JSON.parse of the same line");
report(rows);
