/**
 * Benchmark: added latency per tool call from `tool_call` interceptors.
 *
 * What: an AgentSession wired through ExtensionBridge (as the modes do, with
 * parallelTools off) runs prompts whose in-process model stand-in answers
 * STEPS steps of CALLS_PER_STEP calls of a trivial in-process tool, then a
 * final text step. Per-call time = the gap between consecutive executions of
 * the tool within one step (interception, execution, result hook, events,
 * next call's interception); its p50 and mean are taken with 0, 1 and 3 Bun
 * guard extensions (scripts/bench/fixtures/guard-ext, which allow every call
 * at once) intercepting tool_call. Added latency per interceptor =
 * (k-interceptor time − 0-interceptor time) / k.
 * Floor: the extensions' own work — the same guard process driven directly
 * over raw pipes (write one event_intercept of the host's shape, wait for its
 * response line), sequentially. Host overhead per interceptor = added
 * latency per interceptor − raw round trip; target ≤ 200 µs.
 * How: one ExtensionManager per configuration (0, 1, 3 guards; manifests
 * written to a temp dir pointing at the fixture with distinct names), a
 * fresh session per prompt, configurations interleaved per round after one
 * warm-up round; the raw client runs RAW_CALLS calls per round.
 * Usage: bun scripts/bench/intercept.ts [ROUNDS]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession, type AgentTools } from "../../src/agent/index.ts";
import { zotPaths } from "../../src/common/home.ts";
import { ExtensionBridge } from "../../src/ext/bridge.ts";
import { headlessExtensionUI } from "../../src/ext/host.ts";
import { ExtensionManager } from "../../src/ext/manager.ts";
import type { ContentBlock, ModelInfo, ProviderClient, StreamEvent, StreamRequest, StreamResult, ToolSpec } from "../../src/providers/types.ts";
import { type Tool, textOutcome } from "../../src/tools/types.ts";
import { type SummaryRow, BENCH_DIR, BUN_DIR, fmt, machineLine, median, percentile, prependPath, printTable, report, spawnRawFixture, tempDir } from "./common.ts";

const ROUNDS = Number(process.argv[2] ?? 6);
const STEPS = 25;
const CALLS_PER_STEP = 20;
const RAW_CALLS = STEPS * CALLS_PER_STEP;
const INTERCEPTORS = [0, 1, 3] as const;
const TARGET_US = 200;
const GUARD = join(BENCH_DIR, "fixtures", "guard-ext", "index.ts");
const ARGS = { path: "src/index.ts", pattern: "TODO", limit: 20 };
const MODEL: ModelInfo = {
  provider: "anthropic", id: "bench-model", name: "Bench Model", contextWindow: 1_000_000, maxOutput: 4096,
  reasoning: false, priceInput: 0, priceOutput: 0, priceCacheRead: 0, priceCacheWrite: 0, source: "catalog",
};

prependPath(BUN_DIR);

/** Model stand-in: STEPS replies of CALLS_PER_STEP `noop` calls, then a final text reply. */
class BenchClient implements ProviderClient {
  readonly name = "anthropic";
  private step = 0;
  async stream(_request: StreamRequest, onEvent: (event: StreamEvent) => void): Promise<StreamResult> {
    this.step++;
    const usage = { input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0 };
    const content: ContentBlock[] = this.step > STEPS
      ? [{ type: "text", text: "done" }]
      : Array.from({ length: CALLS_PER_STEP }, (_, i) => ({ type: "tool_call" as const, id: `call-${this.step}-${i}`, name: "noop", arguments: JSON.stringify(ARGS) }));
    for (const block of content) {
      if (block.type === "tool_call") {
        onEvent({ type: "tool_use_start", id: block.id, name: block.name });
        onEvent({ type: "tool_use_args", id: block.id, delta: block.arguments });
        onEvent({ type: "tool_use_end", id: block.id });
      }
    }
    onEvent({ type: "usage", usage });
    return { message: { role: "assistant", content, time: new Date().toISOString() }, stop: this.step > STEPS ? "end" : "tool_use", usage };
  }
}

/** Per-call gaps (µs) between consecutive tool executions within one step. */
function runTools(gaps: number[]): AgentTools {
  let last = Number.NaN;
  const outcome = textOutcome("ok");
  const tool: Tool = {
    name: "noop", description: "does nothing", schema: { type: "object" },
    async execute() {
      const now = performance.now();
      gaps.push((now - last) * 1000);
      last = now;
      return outcome;
    },
  };
  const specs: readonly ToolSpec[] = [{ name: tool.name, description: tool.description, schema: tool.schema }];
  return {
    specs: () => specs,
    get: (name) => (name === "noop" ? tool : undefined),
    activate: () => {},
  };
}

async function guardedManager(count: number, home: string): Promise<ExtensionManager> {
  const dirs = Array.from({ length: count }, (_, i) => {
    const dir = join(home, "ext", `guard-${count}-${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: `bench-guard-${count}-${i}`, exec: "bun", args: [GUARD, `bench-guard-${count}-${i}`], language: "typescript" }));
    return dir;
  });
  const manager = new ExtensionManager({
    paths: zotPaths(home), cwd: tempDir("zot-bench-cwd-"), provider: "bench", model: "bench",
    explicit: dirs, noDiscovery: true, ui: headlessExtensionUI(), readyTimeoutMs: 10_000,
  });
  await manager.start();
  const intercepting = manager.connections().filter((c) => c.readyState === "ready" && manager.subscriptions.get(c.name)?.intercept.has("tool_call"));
  if (intercepting.length !== count) throw new Error(`${count - intercepting.length} guard(s) not ready: ${manager.loadErrors.map((e) => e.message).join("; ")}`);
  return manager;
}

/** One prompt through a fresh bridged session; returns the within-step per-call gaps (µs). */
async function sessionRun(manager: ExtensionManager): Promise<number[]> {
  const bridge = new ExtensionBridge(manager, { sessionId: "session-bench", cwd: "/project", provider: "anthropic", model: MODEL.id, interactive: false });
  const gaps: number[] = [];
  const session = new AgentSession({
    client: new BenchClient(), model: MODEL, system: "base prompt", tools: runTools(gaps), cwd: "/project",
    hooks: bridge.hooks, parallelTools: false, autoCompact: false, maxSteps: STEPS + 1, onEvent: (event) => bridge.observe(event),
  });
  bridge.sessionStart();
  const outcome = await session.prompt("go");
  if (outcome.status !== "done") throw new Error(`prompt ended ${outcome.status}`);
  bridge.dispose();
  if (gaps.length !== RAW_CALLS) throw new Error(`expected ${RAW_CALLS} tool calls, saw ${gaps.length}`);
  return gaps.filter((_, i) => i % CALLS_PER_STEP !== 0); // the first call of a step also spans the model step
}

/** The floor: one guard over raw pipes; sequential event_intercept → response round trips (µs). */
async function rawGuard(): Promise<{ run: (calls: number) => Promise<number[]>; stop: () => Promise<void> }> {
  let wake: () => void = () => {};
  const proc = spawnRawFixture(["bun", GUARD, "bench-guard-raw"], { ackCwd: "/project", stderr: "inherit" }, (frame) => {
    if (frame.type === "ready" || frame.type === "event_intercept_response") wake();
  });
  await new Promise<void>((resolve) => (wake = resolve));
  let counter = 0;
  const run = async (calls: number): Promise<number[]> => {
    const times: number[] = [];
    for (let i = 0; i < calls; i++) {
      const id = `int-${++counter}`;
      const start = performance.now();
      const answered = new Promise<void>((resolve) => (wake = resolve));
      void proc.stdin.write(`${JSON.stringify({ type: "event_intercept", id, event: "tool_call", tool_id: `call-${counter}`, tool_name: "noop", tool_args: ARGS })}\n`);
      await answered;
      times.push((performance.now() - start) * 1000);
    }
    return times;
  };
  return { run, stop: async () => void (proc.stdin.end(), await proc.exited) };
}

const managers = await Promise.all(INTERCEPTORS.map((count) => guardedManager(count, tempDir("zot-bench-home-"))));
const raw = await rawGuard();
const samples: number[][] = INTERCEPTORS.map(() => []);
const rawSamples: number[] = [];
for (let round = 0; round <= ROUNDS; round++) {
  const gaps: number[][] = []; // round 0 is the warm-up
  for (const manager of managers) gaps.push(await sessionRun(manager));
  const rawRound = await raw.run(RAW_CALLS);
  if (round === 0) continue;
  gaps.forEach((g, k) => samples[k]!.push(...g));
  rawSamples.push(...rawRound);
}
await raw.stop();
await Promise.all(managers.map((m) => m.shutdown()));

const p50 = samples.map((s) => median(s));
const mean = samples.map((s) => s.reduce((a, b) => a + b, 0) / s.length);
const rawP50 = median(rawSamples);
const rawMean = rawSamples.reduce((a, b) => a + b, 0) / rawSamples.length;
console.log(`intercept: ${ROUNDS} rounds × ${STEPS} steps × ${CALLS_PER_STEP} calls per configuration (first call of each step excluded), 1 warm-up round — ${machineLine()}`);
const table: string[][] = [["interceptors", "per call p50 µs", "p99 µs", "mean µs", "added/interceptor p50 µs", "mean µs", "host overhead/interceptor p50 µs", "mean µs"]];
const rows: SummaryRow[] = [];
INTERCEPTORS.forEach((count, k) => {
  const addedP50 = count === 0 ? Number.NaN : (p50[k]! - p50[0]!) / count;
  const addedMean = count === 0 ? Number.NaN : (mean[k]! - mean[0]!) / count;
  table.push([String(count), fmt(p50[k]!, 1), fmt(percentile(samples[k]!, 99), 0), fmt(mean[k]!, 1), fmt(addedP50, 1), fmt(addedMean, 1), fmt(addedP50 - rawP50, 1), fmt(addedMean - rawMean, 1)]);
  if (count > 0) {
    const overhead = addedP50 - rawP50;
    rows.push({
      bench: "intercept", metric: `${count} interceptor(s): added / host overhead per interceptor (p50)`, value: `${fmt(addedP50, 1)} / ${fmt(overhead, 1)} µs`,
      floor: `${fmt(rawP50, 1)} µs raw`, ratio: addedP50 / rawP50, target: `overhead ≤ ${TARGET_US} µs`, ok: overhead <= TARGET_US,
    });
  }
});
printTable(table);
console.log(`raw guard round trip (floor): p50 ${fmt(rawP50, 1)} µs, p99 ${fmt(percentile(rawSamples, 99), 0)} µs, mean ${fmt(rawMean, 1)} µs over ${fmt(rawSamples.length, 0)} calls`);
console.log(`host overhead per interceptor = added per interceptor − raw round trip; target ≤ ${TARGET_US} µs`);
report(rows);
