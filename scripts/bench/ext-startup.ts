/**
 * Benchmark: extension host start-up, 1 extension vs 10.
 *
 * What: wall time of `ExtensionManager.start()` until every extension is
 * ready (hello → hello_ack → register_command → ready), for 1 extension and
 * for 10 started together. The manager starts all concurrently under one
 * deadline, so 10 should cost about the slowest single one. Reported: median
 * and p90 ms for 1 and 10, the single slowest of the ten when each is started
 * alone (median per extension, the largest of those), and the ratios
 * 10 / 1 and 10 / slowest-single. Target: 10 ≤ 1.2x the slowest single.
 * Floor: the same 1 and 10 quick.sh processes spawned with Bun.spawn and
 * handshaken (hello → ack → ready) by a minimal loop with no manager; the
 * ratio host / floor is what the manager itself adds over process creation.
 * How: the extension is test/fixtures/extensions/quick.sh (POSIX sh: ~1 ms
 * interpreter start, so the host is what is measured). Each trial is a fresh
 * manager with a temp ZOT_HOME/cwd and explicit paths; shutdown is not timed.
 * 1-ext, 10-ext and floor trials are interleaved after 2 warm-ups.
 * Usage: bun scripts/bench/ext-startup.ts [TRIALS]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { zotPaths } from "../../src/common/home.ts";
import { headlessExtensionUI } from "../../src/ext/host.ts";
import { ExtensionManager } from "../../src/ext/manager.ts";
import { type SummaryRow, REPO_ROOT, fmt, machineLine, median, percentile, printTable, ratioText, report, tempDir } from "./common.ts";

const TRIALS = Number(process.argv[2] ?? 20);
const SINGLE_TRIALS = Math.max(5, Math.round(TRIALS / 2));
const WARMUPS = 2;
const TARGET = 1.2;
const QUICK = join(REPO_ROOT, "test", "fixtures", "extensions", "quick.sh");

function quickExtension(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name, exec: QUICK, args: [name], language: "sh" }));
  return dir;
}

const root = tempDir("zot-bench-ext-");
const dirs = Array.from({ length: 10 }, (_, i) => quickExtension(root, `quick-${i}`));
const ui = headlessExtensionUI(() => {});

/** One timed start of a fresh manager; throws unless every extension is ready. */
async function timedStart(explicit: readonly string[]): Promise<number> {
  const home = tempDir("zot-bench-home-");
  const manager = new ExtensionManager({
    paths: zotPaths(home), cwd: tempDir("zot-bench-cwd-"), provider: "bench", model: "bench",
    explicit, noDiscovery: true, ui, readyTimeoutMs: 5_000,
  });
  const start = performance.now();
  await manager.start();
  const elapsed = performance.now() - start;
  const connections = manager.connections();
  const notReady = connections.filter((c) => c.readyState !== "ready");
  await manager.shutdown();
  if (connections.length !== explicit.length || notReady.length > 0 || manager.loadErrors.length > 0) {
    throw new Error(`not all ready: ${connections.length}/${explicit.length} loaded, ${notReady.length} not ready, ${manager.loadErrors.map((e) => e.message).join("; ")}`);
  }
  return elapsed;
}

const ACK = `${JSON.stringify({ type: "hello_ack", protocol_version: 1, zot_version: "0.0.0", provider: "bench", model: "bench", cwd: root, extension_dir: root, data_dir: root, capabilities: [] })}\n`;

/** Floor: spawn `count` quick.sh and handshake them with no manager; ms until all sent ready. */
async function rawStart(count: number): Promise<number> {
  const start = performance.now();
  const procs = Array.from({ length: count }, (_, i) =>
    Bun.spawn([QUICK, `raw-${i}`], { cwd: root, stdin: "pipe", stdout: "pipe", stderr: "ignore", detached: true }));
  await Promise.all(procs.map(async (proc) => {
    const decoder = new TextDecoder();
    let seen = "";
    let acked = false;
    for await (const chunk of proc.stdout) {
      seen += decoder.decode(chunk, { stream: true });
      if (!acked && seen.includes("\n")) {
        void proc.stdin.write(ACK);
        void proc.stdin.flush();
        acked = true;
      }
      if (seen.includes('{"type":"ready"}')) break;
    }
  }));
  const elapsed = performance.now() - start;
  for (const proc of procs) {
    void proc.stdin.write('{"type":"shutdown"}\n');
    void proc.stdin.end();
  }
  await Promise.all(procs.map((proc) => proc.exited));
  return elapsed;
}

const one: number[] = [];
const ten: number[] = [];
const rawOne: number[] = [];
const rawTen: number[] = [];
for (let i = 0; i < WARMUPS; i++) {
  await timedStart(dirs.slice(0, 1));
  await timedStart(dirs);
  await rawStart(1);
  await rawStart(10);
}
for (let i = 0; i < TRIALS; i++) {
  one.push(await timedStart(dirs.slice(0, 1)));
  ten.push(await timedStart(dirs));
  rawOne.push(await rawStart(1));
  rawTen.push(await rawStart(10));
}
// Each of the ten alone: its median over SINGLE_TRIALS starts.
const singles: { name: string; median: number }[] = [];
for (const [index, dir] of dirs.entries()) {
  const times: number[] = [];
  for (let i = 0; i < SINGLE_TRIALS; i++) times.push(await timedStart([dir]));
  singles.push({ name: `quick-${index}`, median: median(times) });
}
const slowest = singles.reduce((a, b) => (b.median > a.median ? b : a));

const oneMed = median(one);
const tenMed = median(ten);
const rawOneMed = median(rawOne);
const rawTenMed = median(rawTen);
console.log(`ext-startup: ${TRIALS} trials of 1 and 10 (interleaved, ${WARMUPS} warm-ups), ${SINGLE_TRIALS} per single — ${machineLine()}`);
printTable([
  ["case", "median ms", "p90 ms", "ratio to 1", "ratio to floor"],
  ["1 extension", fmt(oneMed, 2), fmt(percentile(one, 90), 2), "1.00x", ratioText(oneMed / rawOneMed)],
  [`slowest single (${slowest.name} alone)`, fmt(slowest.median, 2), "", ratioText(slowest.median / oneMed), ""],
  ["10 extensions", fmt(tenMed, 2), fmt(percentile(ten, 90), 2), ratioText(tenMed / oneMed), ratioText(tenMed / rawTenMed)],
  ["floor: 1 raw spawn+handshake", fmt(rawOneMed, 2), fmt(percentile(rawOne, 90), 2), "", "1.00x"],
  ["floor: 10 raw spawn+handshake", fmt(rawTenMed, 2), fmt(percentile(rawTen, 90), 2), ratioText(rawTenMed / rawOneMed), "1.00x"],
]);
console.log(`10 / slowest single: ${ratioText(tenMed / slowest.median)} (floor 10 / floor 1: ${ratioText(rawTenMed / rawOneMed)})`);
console.log(`singles (median ms): ${singles.map((s) => `${s.name}=${fmt(s.median, 2)}`).join(" ")}`);
console.log(`target: 10 extensions ≤ ${TARGET}x the slowest single`);
const ratio = tenMed / slowest.median;
const rows: SummaryRow[] = [
  { bench: "ext-startup", metric: "1 extension ready", value: `${fmt(oneMed, 2)} ms` },
  { bench: "ext-startup", metric: "slowest single of the ten", value: `${fmt(slowest.median, 2)} ms` },
  { bench: "ext-startup", metric: "10 extensions ready (ratio to 1)", value: `${fmt(tenMed, 2)} ms`, floor: `${fmt(oneMed, 2)} ms`, ratio: tenMed / oneMed },
  {
    bench: "ext-startup", metric: "10 extensions vs slowest single", value: `${fmt(tenMed, 2)} ms`,
    floor: `${fmt(slowest.median, 2)} ms`, ratio, target: `≤ ${TARGET}x`, ok: ratio <= TARGET,
  },
  { bench: "ext-startup", metric: "10 extensions vs raw spawn+handshake", value: `${fmt(tenMed, 2)} ms`, floor: `${fmt(rawTenMed, 2)} ms`, ratio: tenMed / rawTenMed },
  { bench: "ext-startup", metric: "1 extension vs raw spawn+handshake", value: `${fmt(oneMed, 2)} ms`, floor: `${fmt(rawOneMed, 2)} ms`, ratio: oneMed / rawOneMed },
];
report(rows);
