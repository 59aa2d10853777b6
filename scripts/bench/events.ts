/**
 * Benchmark: lifecycle event frames per second to one subscriber.
 *
 * What: the host emits N `turn_start` notifications (the real frame shape:
 * type, event, session_id, cwd, sequence, step) through `emitLifecycle` to
 * the Bun sink extension in scripts/bench/fixtures/sink-ext, which subscribes
 * to every event and counts LF bytes; the clock stops when the sink's
 * "received N" notify reaches the host (ui.notify), so it covers
 * serialisation, the outbound queue, the pipe and the extension's read.
 * Pacing: a real agent emits far fewer frames, so the emitter must not outrun
 * the bounded queue (256 frames; overflow disconnects). In batches of BATCH,
 * the last frame of each batch is queued with `connection.send(frame,
 * onWritten)` (same shape, sequence from manager.nextSequence()) instead of
 * emitLifecycle; before emitting a batch the emitter waits until the marker
 * of the batch before the previous one reached the pipe, so at most two
 * batches are queued. Floor: the same sink process spawned directly, the same
 * N lines serialised before the clock starts and written one write() per
 * line into its stdin (awaiting the FileSink when it pushes back), same stop
 * condition. Reference (not the floor): the same lines joined BATCH per
 * write(), showing what the per-write cost of Bun's FileSink (one epoll_ctl
 * per call) takes from both. ROUNDS rounds each, alternating; medians.
 * Usage: bun scripts/bench/events.ts [N] [ROUNDS]
 */
import { join } from "node:path";
import { zotPaths } from "../../src/common/home.ts";
import type { OutboundFrame } from "../../src/ext/frames.ts";
import { headlessExtensionUI } from "../../src/ext/host.ts";
import { type LifecycleContext, emitLifecycle } from "../../src/ext/lifecycle.ts";
import { ExtensionManager } from "../../src/ext/manager.ts";
import { type SummaryRow, BENCH_DIR, BUN_DIR, fmt, machineLine, median, prependPath, printTable, ratioText, report, spawnRawFixture, tempDir } from "./common.ts";

const N = Number(process.argv[2] ?? 200_000);
const ROUNDS = Number(process.argv[3] ?? 5);
const BATCH = 100;
const TARGET_PER_SECOND = 100_000;
const FIXTURE = join(BENCH_DIR, "fixtures", "sink-ext");
const CONTEXT: LifecycleContext = { sessionId: "session-0123456789abcdef", cwd: "/home/user/projects/zot-bench" };

prependPath(BUN_DIR);
process.env.ZOT_BENCH_SINK_EXPECT = String(N);

/** Resolves the current round when the sink reports "received N". */
let roundDone: (() => void) | undefined;
function sinkReported(text: string): void {
  if (text.includes(`received ${N}`)) roundDone?.();
  else process.stderr.write(text);
}
function nextReport(): Promise<void> {
  return new Promise<void>((resolve) => (roundDone = resolve));
}

interface Round {
  readonly seconds: number;
  /** Batches whose marker had not reached the pipe when the emitter wanted to go on. */
  readonly waits: number;
}

const home = tempDir("zot-bench-home-");
const manager = new ExtensionManager({
  paths: zotPaths(home), cwd: tempDir("zot-bench-cwd-"), provider: "bench", model: "bench",
  explicit: [FIXTURE], noDiscovery: true, ui: headlessExtensionUI(sinkReported), readyTimeoutMs: 10_000,
});
await manager.start();
const connection = manager.connection("bench-sink");
if (!connection || connection.readyState !== "ready" || !manager.subscriptions.get("bench-sink")?.events.has("turn_start")) {
  throw new Error(`sink extension did not become ready: ${manager.loadErrors.map((e) => e.message).join("; ") || "not subscribed"}`);
}

async function hostRound(): Promise<Round> {
  const reported = nextReport();
  const markers: Promise<boolean>[] = [];
  let waits = 0;
  const start = performance.now();
  for (let sent = 0, batch = 0; sent < N; batch++) {
    const older = markers[batch - 2];
    if (older) {
      let settled = false;
      void older.then(() => (settled = true));
      await Promise.resolve();
      if (!settled) waits++;
      if (!(await older)) throw new Error(`sink disconnected: ${connection?.closedReason?.kind ?? "?"}`);
    }
    const size = Math.min(BATCH, N - sent);
    for (let i = 1; i < size; i++) emitLifecycle(manager, CONTEXT, "turn_start", { step: sent + i });
    sent += size;
    const frame: OutboundFrame = { type: "event", event: "turn_start", session_id: CONTEXT.sessionId, cwd: CONTEXT.cwd, sequence: manager.nextSequence(), step: sent };
    markers.push(new Promise<boolean>((resolve) => connection?.send(frame, resolve)));
  }
  await reported;
  return { seconds: (performance.now() - start) / 1000, waits };
}

/** The floor: the sink over a raw pipe, no manager/connection/queue/serialisation in the clock. */
async function rawSink(): Promise<{ round: (linesPerWrite: number) => Promise<Round>; stop: () => Promise<void> }> {
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  let reportedRaw: (() => void) | undefined;
  const proc = spawnRawFixture(["bun", "index.ts"], { cwd: FIXTURE, ackCwd: FIXTURE, stderr: "ignore", env: process.env }, (frame) => {
    if (frame.type === "ready") ready();
    else if (frame.type === "notify" && frame.message === `received ${N}`) reportedRaw?.();
  });
  await isReady;
  let sequence = 0;
  const round = async (linesPerWrite: number): Promise<Round> => {
    const lines: string[] = [];
    for (let step = 1; step <= N; step++) {
      lines.push(`${JSON.stringify({ type: "event", event: "turn_start", session_id: CONTEXT.sessionId, cwd: CONTEXT.cwd, sequence: ++sequence, step })}\n`);
    }
    const chunks: string[] = [];
    for (let i = 0; i < N; i += linesPerWrite) chunks.push(linesPerWrite === 1 ? lines[i]! : lines.slice(i, i + linesPerWrite).join(""));
    const reported = new Promise<void>((resolve) => (reportedRaw = resolve));
    let waits = 0;
    const start = performance.now();
    for (const chunk of chunks) {
      const written = proc.stdin.write(chunk);
      if (typeof written !== "number") {
        waits++;
        await written;
      }
    }
    void proc.stdin.flush();
    await reported;
    return { seconds: (performance.now() - start) / 1000, waits };
  };
  const stop = async (): Promise<void> => {
    void proc.stdin.end();
    await proc.exited;
  };
  return { round, stop };
}

const raw = await rawSink();
const host: Round[] = [];
const floor: Round[] = [];
const batched: Round[] = [];
for (let r = 0; r < ROUNDS; r++) {
  host.push(await hostRound());
  floor.push(await raw.round(1));
  batched.push(await raw.round(BATCH));
}
await raw.stop();
await manager.shutdown();

const hostSeconds = median(host.map((r) => r.seconds));
const floorSeconds = median(floor.map((r) => r.seconds));
const hostRate = N / hostSeconds;
const floorRate = N / floorSeconds;
const frameBytes = Buffer.byteLength(JSON.stringify({ type: "event", event: "turn_start", session_id: CONTEXT.sessionId, cwd: CONTEXT.cwd, sequence: 100_000, step: 100_000 })) + 1;

console.log(`events: ${fmt(N, 0)} turn_start frames (≈${frameBytes} B) per round, ${ROUNDS} rounds, median — ${machineLine()}`);
printTable([
  ["path", "frames/s", "µs/frame", "MB/s", "rounds (s)", "back-pressure waits"],
  ...([
    ["host emitLifecycle", hostSeconds, host], ["floor: raw pipe, 1 line/write", floorSeconds, floor],
    [`reference: raw pipe, ${BATCH} lines/write`, median(batched.map((r) => r.seconds)), batched],
  ] as const).map(([name, seconds, rounds]) => [
    name, fmt(N / seconds, 0), fmt((seconds * 1e6) / N, 2), fmt((N * frameBytes) / seconds / 1e6, 1),
    rounds.map((r) => r.seconds.toFixed(2)).join(" / "), rounds.map((r) => String(r.waits)).join(" / "),
  ]),
]);
console.log(`ratio host time / floor time: ${ratioText(hostSeconds / floorSeconds)}; target ≥ ${fmt(TARGET_PER_SECOND, 0)} frames/s: ${hostRate >= TARGET_PER_SECOND ? "met" : "MISSED"}`);
const rows: SummaryRow[] = [{
  bench: "events", metric: "turn_start frames/s to 1 subscriber", value: fmt(hostRate, 0), floor: fmt(floorRate, 0),
  ratio: hostSeconds / floorSeconds, target: `≥ ${fmt(TARGET_PER_SECOND, 0)}/s`, ok: hostRate >= TARGET_PER_SECOND,
}];
report(rows);
