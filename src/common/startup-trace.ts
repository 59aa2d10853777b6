/**
 * ZOT_TRACE_STARTUP=1: one stderr line per startup phase of a headless run,
 * `zot: trace <ms> +<ms> rss=<MiB> <phase>` (milliseconds since the
 * process started, since the previous line, and the resident set), written
 * synchronously where the phase ends. A measuring aid (docs/benchmarks.md,
 * "Fourth pass"); off, each call is one boolean check. Only a run that
 * called startStartupTrace() traces (print and JSON: never the chat
 * screen, whose terminal these lines would scribble on); the variable is
 * read there, never at import time. After the "prompt answered" line a
 * binary built with a bytecode order (scripts/bytecode-order.txt) adds
 * `zot: trace bytecode hot=<n> cold=<n> unknown=<n>`: the functions loaded
 * so far that the recorded profile had used, had not used, or did not know
 * (bun:jsc bytecodeOrderStats, loaded only then; any other process: no line).
 */
import { writeSync } from "node:fs";

let enabled = false;
let previous = 0;
const onceSeen = new Set<string>();

/** Turns tracing on for this process when ZOT_TRACE_STARTUP=1 (headless runs call it first). */
export function startStartupTrace(): void {
  enabled = process.env.ZOT_TRACE_STARTUP === "1";
}

export function traceStartup(phase: string): void {
  if (!enabled) return;
  const now = performance.now();
  const rss = process.memoryUsage.rss() / (1024 * 1024);
  try {
    writeSync(2, `zot: trace ${now.toFixed(2)} +${(now - previous).toFixed(2)} rss=${rss.toFixed(1)} ${phase}\n`);
  } catch {
    // a closed stderr loses the trace, nothing else
  }
  previous = now;
  if (phase === "prompt answered") traceBytecodeOrder();
}

/** The bytecode-layout line; bun:jsc is required only here, so an untraced run never loads it. */
function traceBytecodeOrder(): void {
  try {
    const jsc = require("bun:jsc") as typeof import("bun:jsc");
    const stats = jsc.bytecodeOrderStats();
    if (stats === null) return;
    writeSync(2, `zot: trace bytecode hot=${stats.hot} cold=${stats.cold} unknown=${stats.unknown}\n`);
  } catch {
    // no stats (an older runtime) or a closed stderr: no line
  }
}

/** traceStartup for a phase that recurs (the model request): only its first time. */
export function traceStartupOnce(phase: string): void {
  if (!enabled || onceSeen.has(phase)) return;
  onceSeen.add(phase);
  traceStartup(phase);
}
