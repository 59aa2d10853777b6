/**
 * Benchmark: tool-call round trips through one extension.
 *
 * What: p50/p99 round trip (µs) and calls per second of `callExtensionTool`
 * against the Bun echo extension in scripts/bench/fixtures/echo-ext, run
 * sequentially (1 in flight) and with N concurrent calls in flight (8, 64).
 * Floor: the same extension process driven by a minimal client with no host
 * machinery (write a tool_call line, split stdout on LF, JSON.parse, resolve
 * by id) in the same pattern; ratios are host / floor (latency) and
 * floor / host (throughput), so > 1x means the host costs more than the pipe.
 * How: ExtensionManager with the fixture as an explicit path (bun found via
 * PATH, which gets dirname(process.execPath) prepended); WARMUP calls, then
 * CALLS timed calls per pattern, each timed with performance.now().
 * Usage: bun scripts/bench/tool-roundtrip.ts [CALLS]
 */
import { join } from "node:path";
import { zotPaths } from "../../src/common/home.ts";
import { headlessExtensionUI } from "../../src/ext/host.ts";
import { ExtensionManager } from "../../src/ext/manager.ts";
import { callExtensionTool } from "../../src/ext/tool-adapter.ts";
import { type SummaryRow, BENCH_DIR, BUN_DIR, fmt, machineLine, percentile, prependPath, printTable, ratioText, report, spawnRawFixture, tempDir } from "./common.ts";

const CALLS = Number(process.argv[2] ?? 20_000);
const WARMUP = 1_000;
const CONCURRENCY = [1, 8, 64] as const;
const FIXTURE = join(BENCH_DIR, "fixtures", "echo-ext");
const ARGS: Readonly<Record<string, unknown>> = { text: "hello from the benchmark", n: 42 };

prependPath(BUN_DIR);

type Call = () => Promise<void>;

interface Measured {
  readonly p50: number;
  readonly p99: number;
  readonly perSecond: number;
}

/** Runs `total` calls with `inFlight` workers; per-call latency in µs. */
async function measure(call: Call, total: number, inFlight: number): Promise<Measured> {
  const latencies: number[] = [];
  let issued = 0;
  const worker = async (): Promise<void> => {
    while (issued < total) {
      issued++;
      const start = performance.now();
      await call();
      latencies.push((performance.now() - start) * 1000);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - start) / 1000;
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), perSecond: total / seconds };
}

/** The floor client: the echo extension over raw pipes, no manager/connection/queue. */
async function rawClient(): Promise<{ call: Call; stop: () => Promise<void> }> {
  const pending = new Map<string, () => void>();
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const proc = spawnRawFixture(["bun", "index.ts"], { cwd: FIXTURE, ackCwd: FIXTURE, stderr: "inherit" }, (frame) => {
    if (frame.type === "tool_result" && frame.id !== undefined) {
      pending.get(frame.id)?.();
      pending.delete(frame.id);
    } else if (frame.type === "ready") ready();
  });
  await isReady;
  let counter = 0;
  const call: Call = () =>
    new Promise<void>((resolve) => {
      const id = `raw-${++counter}`;
      pending.set(id, resolve);
      void proc.stdin.write(`${JSON.stringify({ type: "tool_call", id, name: "echo", args: ARGS })}\n`);
    });
  const stop = async (): Promise<void> => {
    void proc.stdin.write('{"type":"shutdown"}\n');
    void proc.stdin.end();
    await proc.exited;
  };
  return { call, stop };
}

const home = tempDir("zot-bench-home-");
const manager = new ExtensionManager({
  paths: zotPaths(home), cwd: tempDir("zot-bench-cwd-"), provider: "bench", model: "bench",
  explicit: [FIXTURE], noDiscovery: true, ui: headlessExtensionUI(() => {}), readyTimeoutMs: 10_000,
});
await manager.start();
const tool = manager.registry.tool("echo");
const connection = manager.connection("bench-echo");
if (!tool || !connection || connection.readyState !== "ready") {
  throw new Error(`echo extension did not become ready: ${manager.loadErrors.map((e) => e.message).join("; ") || "no tool registered"}`);
}
const hostCall: Call = async () => {
  const outcome = await callExtensionTool(connection, tool, ARGS);
  if (outcome.isError) throw new Error(`tool call failed: ${JSON.stringify(outcome.content)}`);
};
const raw = await rawClient();

const host: Measured[] = [];
const floor: Measured[] = [];
await measure(hostCall, WARMUP, 8);
await measure(raw.call, WARMUP, 8);
for (const inFlight of CONCURRENCY) {
  host.push(await measure(hostCall, CALLS, inFlight));
  floor.push(await measure(raw.call, CALLS, inFlight));
}
await raw.stop();
await manager.shutdown();

console.log(`tool-roundtrip: ${CALLS} calls per row after ${WARMUP} warm-up — ${machineLine()}`);
const table: string[][] = [["in flight", "host p50 µs", "host p99 µs", "host calls/s", "floor p50 µs", "floor p99 µs", "floor calls/s", "p50 ratio", "calls/s ratio"]];
const rows: SummaryRow[] = [];
CONCURRENCY.forEach((inFlight, i) => {
  const h = host[i];
  const f = floor[i];
  if (!h || !f) return;
  table.push([
    String(inFlight), fmt(h.p50, 0), fmt(h.p99, 0), fmt(h.perSecond, 0), fmt(f.p50, 0), fmt(f.p99, 0), fmt(f.perSecond, 0),
    ratioText(h.p50 / f.p50), ratioText(f.perSecond / h.perSecond),
  ]);
  rows.push({ bench: "tool-roundtrip", metric: `${inFlight} in flight p50 / p99`, value: `${fmt(h.p50, 0)} / ${fmt(h.p99, 0)} µs`, floor: `${fmt(f.p50, 0)} / ${fmt(f.p99, 0)} µs`, ratio: h.p50 / f.p50 });
  rows.push({ bench: "tool-roundtrip", metric: `${inFlight} in flight calls/s (floor/host)`, value: fmt(h.perSecond, 0), floor: fmt(f.perSecond, 0), ratio: f.perSecond / h.perSecond });
});
printTable(table);
console.log("ratios: host p50 / floor p50, floor calls/s / host calls/s (1.00x = no host overhead)");
report(rows);
