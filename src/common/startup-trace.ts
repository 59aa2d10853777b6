/**
 * ZOT_TRACE_STARTUP=1: one stderr line per startup phase of a headless run,
 * `zot: trace <ms> +<ms> rss=<MiB> <phase>` (milliseconds since the
 * process started, since the previous line, and the resident set), written
 * synchronously where the phase ends. A measuring aid (docs/benchmarks.md,
 * "Fourth pass"); off, each call is one boolean check. Only a run that
 * called startStartupTrace() traces (print and JSON: never the chat
 * screen, whose terminal these lines would scribble on); the variable is
 * read there, never at import time.
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
}

/** traceStartup for a phase that recurs (the model request): only its first time. */
export function traceStartupOnce(phase: string): void {
  if (!enabled || onceSeen.has(phase)) return;
  onceSeen.add(phase);
  traceStartup(phase);
}
