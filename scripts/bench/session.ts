/**
 * Benchmark: headless tool sessions, zot against a floor program (issue 10).
 *
 * What: `dist/zot -p` (sessions on, fresh temp ZOT_HOME per scenario) running
 * a scripted session against the stand-in model server
 * (test/support/model-server.ts, zero latency, so this is pure agent
 * overhead): N model steps that each ask for one tool call, then a text
 * answer. Scenarios: 3 rounds of `bash echo hi`; 50 and 400 rounds of `read`
 * (a 3-line file); 50 rounds of the Python extension tool `weather`
 * (test/fixtures/extensions/py-hello, loaded with --ext).
 * Floor: scripts/bench/fixtures/session-floor.ts compiled in this run with
 * the same `bun build --compile` flags as scripts/build.ts, doing only the
 * unavoidable work of the same session (the same streaming requests with the
 * same system blocks and tool definitions — taken from zot's own first
 * request — and the growing conversation, the tool work, one JSONL append
 * per message).
 * Figures: median wall (spawn → exit) over RUNS alternating zot / floor runs
 * after one warm-up each; peak RSS, the median of RSS_RUNS runs under
 * `/usr/bin/time -f %M` (Bun.spawn's vfork makes a child's own rusage
 * useless, see print.ts); CPU time (user + system, the child's rusage,
 * median of the timed runs; steadier than wall when other work shares the
 * cores); RSS after
 * rounds 10, 100 and 400, read from /proc/<pid>/status when the model
 * server receives the request of the next round (one more run each, so
 * sampling never slows a timed run).
 * Extension overhead: `callExtensionTool` through an ExtensionManager
 * against the same Python extension vs. the same process driven over raw
 * pipes (common.ts spawnRawFixture), as tool-roundtrip.ts measures:
 * p50 host − p50 raw, sequential calls, alternating blocks.
 * Targets (docs/benchmarks.md, issue 10): wall ≤ 1.5x the floor; peak RSS
 * ≤ floor + 8 MiB; extension overhead ≤ 0.1 ms per call.
 * Usage: bun scripts/bench/session.ts [RUNS] [EXT_CALLS]
 * (EXT_CALLS 0 skips the extension overhead; ZOT_BENCH_SCENARIOS=bash,400
 * runs only the scenarios whose label contains one of the words;
 * ZOT_BENCH_ZOT=<binary> measures another build, e.g. an older commit's;
 * ZOT_BENCH_BEFORE=<binary> adds that build to the same run, alternating
 * before / zot / floor, with its own rows: a before/after comparison under
 * the same load.)
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startModelServer } from "../../test/support/model-server.ts";
import { zotPaths } from "../../src/common/home.ts";
import { headlessExtensionUI } from "../../src/ext/host.ts";
import { ExtensionManager } from "../../src/ext/manager.ts";
import { callExtensionTool } from "../../src/ext/tool-adapter.ts";
import { buildSessionFloor, watchRequests, writeFloorConfig } from "./session-floor-build.ts";
import { type SummaryRow, REPO_ROOT, fmt, machineLine, median, percentile, printTable, ratioText, report, spawnRawFixture, tempDir } from "./common.ts";

const RUNS = Number(process.argv[2] ?? 7);
const EXT_CALLS = Number(process.argv[3] ?? 2000);
const RSS_RUNS = 5;
const WALL_TARGET = 1.5;
const RSS_TARGET_MIB = 8;
const EXT_TARGET_MS = 0.1;
const RSS_ROUNDS = [10, 100, 400] as const;
const GNU_TIME = "/usr/bin/time";
const HAVE_TIME = existsSync(GNU_TIME);
const ZOT = process.env.ZOT_BENCH_ZOT ?? join(REPO_ROOT, "dist", "zot");
const BEFORE = process.env.ZOT_BENCH_BEFORE;
const PY_HELLO = join(REPO_ROOT, "test", "fixtures", "extensions", "py-hello");
const FILE_TEXT = "alpha beta gamma\ndelta epsilon zeta\neta theta iota\n";
const MiB = 1024 * 1024;

interface Scenario {
  readonly label: string;
  readonly rounds: number;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly extension: boolean;
}

const ALL_SCENARIOS: readonly Scenario[] = [
  { label: "3 rounds of bash echo hi", rounds: 3, tool: "bash", args: { command: "echo hi" }, extension: false },
  { label: "50 rounds of read", rounds: 50, tool: "read", args: { path: "notes.txt" }, extension: false },
  { label: "400 rounds of read", rounds: 400, tool: "read", args: { path: "notes.txt" }, extension: false },
  { label: "50 rounds of a Python ext tool", rounds: 50, tool: "weather", args: { city: "Oslo" }, extension: true },
];
/** ZOT_BENCH_SCENARIOS=bash,50 rounds of read: only the scenarios whose label contains one of the words. */
const ONLY = process.env.ZOT_BENCH_SCENARIOS?.split(",").map((word) => word.trim()).filter(Boolean);
const SCENARIOS = ONLY ? ALL_SCENARIOS.filter((scenario) => ONLY.some((word) => scenario.label.includes(word))) : ALL_SCENARIOS;

function ensureZot(): void {
  if (!existsSync(ZOT)) {
    const proc = Bun.spawnSync([process.execPath, join(REPO_ROOT, "scripts", "build.ts")], { stdout: "inherit", stderr: "inherit" });
    if (!proc.success) throw new Error("building dist/zot failed");
  } else if (statSync(ZOT).mtimeMs < statSync(join(REPO_ROOT, "src")).mtimeMs) {
    console.log("note: dist/zot may be older than src/ — `npm run build` first for current figures");
  }
}

ensureZot();
const floorBinary = buildSessionFloor(tempDir("zot-bench-session-floor-"));
const server = startModelServer();

const onRequest = watchRequests(server);

function enqueueSession(scenario: Scenario): void {
  for (let i = 0; i < scenario.rounds; i++) {
    server.enqueue({ type: "tool_calls", calls: [{ id: `toolu_${i + 1}`, name: scenario.tool, arguments: scenario.args }] });
  }
  server.enqueue({ type: "text", text: "done" });
}

interface Run {
  readonly wallMs: number;
  readonly peakBytes: number;
  /** User + system CPU ms of the process (its rusage; timed runs): steadier than wall on a loaded machine. */
  readonly cpuMs: number;
  /** RSS (bytes) by round, sampled when the next round's request arrived. */
  readonly rssAfter: ReadonlyMap<number, number>;
}

function vmRss(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

type Mode = "timed" | "peak" | "rounds";

async function runOnce(argv: readonly string[], cwd: string, home: string, scenario: Scenario, mode: Mode): Promise<Run> {
  enqueueSession(scenario);
  const peakFile = join(home, ".peak-rss");
  const command = mode === "peak" && HAVE_TIME ? [GNU_TIME, "-f", "%M", "-o", peakFile, ...argv] : [...argv];
  const rssAfter = new Map<number, number>();
  const started = performance.now();
  const proc = Bun.spawn(command, {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZOT_HOME: home },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  if (mode === "rounds") {
    // Request k + 1 arrives once round k's tool result is in the conversation.
    onRequest((count) => {
      if ((RSS_ROUNDS as readonly number[]).includes(count - 1)) rssAfter.set(count - 1, vmRss(proc.pid));
    });
  }
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const wallMs = performance.now() - started;
  onRequest(undefined);
  if (code !== 0) throw new Error(`${argv[0]} (${scenario.label}) exited ${code}: ${err}`);
  if (out.trim() !== "done") throw new Error(`${argv[0]} (${scenario.label}): unexpected output ${JSON.stringify(out)}`);
  if (server.pending() !== 0) throw new Error(`${argv[0]} (${scenario.label}) left ${server.pending()} replies unconsumed`);
  const peakBytes = mode === "peak" && HAVE_TIME ? Number(readFileSync(peakFile, "utf8").trim()) * 1024 : Number.NaN;
  const cpuMs = mode === "timed" ? Number(proc.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1000 : Number.NaN;
  return { wallMs, peakBytes, cpuMs, rssAfter };
}

interface Measured {
  readonly wallMs: number[];
  readonly peakBytes: number[];
  readonly cpuMs: number[];
  readonly rssAfter: Map<number, number>;
  /** Length of the last request body (the floor's should match zot's). */
  lastBodyChars: number;
}

const emptyMeasured = (): Measured => ({ wallMs: [], peakBytes: [], cpuMs: [], rssAfter: new Map(), lastBodyChars: 0 });

function lastBodyChars(): number {
  const last = server.requests[server.requests.length - 1];
  return last ? JSON.stringify(last.body).length : 0;
}

async function measureScenario(scenario: Scenario): Promise<{ zot: Measured; floor: Measured; before: Measured | undefined }> {
  const home = tempDir("zot-bench-session-");
  writeFileSync(join(home, "notes.txt"), FILE_TEXT);
  const zotArgv = [
    ZOT, "-p", "go", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--api-key", "bench",
    "--base-url", server.anthropicBaseUrl, "--max-steps", String(scenario.rounds + 1),
    ...(scenario.extension ? ["--ext", PY_HELLO] : []),
  ];
  const zot = emptyMeasured();
  const floor = emptyMeasured();
  const before = BEFORE === undefined ? undefined : emptyMeasured();
  const beforeArgv = BEFORE === undefined ? undefined : [BEFORE, ...zotArgv.slice(1)];
  // Warm-up run of zot; its first request gives the floor the same system blocks and tool definitions.
  server.requests.length = 0;
  await runOnce(zotArgv, home, home, scenario, "timed");
  zot.lastBodyChars = lastBodyChars();
  const first = server.requests[0];
  if (!first) throw new Error(`no request recorded for ${scenario.label}`);
  const configFile = writeFloorConfig(
    first, `${server.anthropicBaseUrl}/v1/messages`, home,
    scenario.extension ? { command: ["python3", join(PY_HELLO, "hello.py")], cwd: PY_HELLO, tool: scenario.tool } : undefined,
  );
  const floorArgv = [floorBinary, configFile];
  server.requests.length = 0;
  await runOnce(floorArgv, home, home, scenario, "timed");
  floor.lastBodyChars = lastBodyChars();
  const targets: (readonly [readonly string[], Measured])[] = [[zotArgv, zot], [floorArgv, floor]];
  if (beforeArgv !== undefined && before !== undefined) {
    server.requests.length = 0;
    await runOnce(beforeArgv, home, home, scenario, "timed");
    before.lastBodyChars = lastBodyChars();
    targets.unshift([beforeArgv, before]);
  }
  for (let i = 0; i < RUNS; i++) {
    for (const [argv, into] of targets) {
      server.requests.length = 0;
      const run = await runOnce(argv, home, home, scenario, "timed");
      into.wallMs.push(run.wallMs);
      into.cpuMs.push(run.cpuMs);
    }
  }
  for (let i = 0; i < RSS_RUNS && HAVE_TIME; i++) {
    for (const [argv, into] of targets) {
      server.requests.length = 0;
      into.peakBytes.push((await runOnce(argv, home, home, scenario, "peak")).peakBytes);
    }
  }
  for (const [argv, into] of targets) {
    server.requests.length = 0;
    for (const [round, rss] of (await runOnce(argv, home, home, scenario, "rounds")).rssAfter) into.rssAfter.set(round, rss);
  }
  server.requests.length = 0;
  return { zot, floor, before };
}

/** Sequential p50 of callExtensionTool vs the raw pipe client against the same Python extension, in µs. */
async function measureExtensionOverhead(): Promise<{ host: number[]; raw: number[] }> {
  const args = { city: "Oslo" };
  const home = tempDir("zot-bench-session-ext-");
  const manager = new ExtensionManager({
    paths: zotPaths(home), cwd: home, provider: "bench", model: "bench",
    explicit: [PY_HELLO], noDiscovery: true, ui: headlessExtensionUI(() => {}), readyTimeoutMs: 10_000,
  });
  await manager.start();
  const tool = manager.registry.tool("weather");
  const connection = manager.connection("py-hello");
  if (!tool || !connection || connection.readyState !== "ready") throw new Error("py-hello did not become ready");
  const waiting = new Map<string, () => void>();
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const raw = spawnRawFixture(["python3", join(PY_HELLO, "hello.py")], { cwd: PY_HELLO, ackCwd: home, stderr: "inherit" }, (frame) => {
    if (frame.type === "ready") ready();
    else if (frame.type === "tool_result" && frame.id !== undefined) {
      waiting.get(frame.id)?.();
      waiting.delete(frame.id);
    }
  });
  await isReady;
  let counter = 0;
  const rawCall = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const id = `raw-${++counter}`;
      waiting.set(id, resolve);
      void raw.stdin.write(`${JSON.stringify({ type: "tool_call", id, name: "weather", args })}\n`);
      void raw.stdin.flush();
    });
  const hostCall = async (): Promise<void> => {
    const outcome = await callExtensionTool(connection, tool, args);
    if (outcome.isError) throw new Error(`weather failed: ${JSON.stringify(outcome.content)}`);
  };
  const host: number[] = [];
  const rawTimes: number[] = [];
  const block = async (call: () => Promise<void>, into: number[] | undefined, count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      const start = performance.now();
      await call();
      into?.push((performance.now() - start) * 1000);
    }
  };
  await block(hostCall, undefined, 200);
  await block(rawCall, undefined, 200);
  for (let done = 0; done < EXT_CALLS; done += 100) {
    await block(hostCall, host, 100);
    await block(rawCall, rawTimes, 100);
  }
  void raw.stdin.write('{"type":"shutdown"}\n');
  void raw.stdin.end();
  await raw.exited;
  await manager.shutdown();
  return { host, raw: rawTimes };
}

console.log(`session benchmark — ${machineLine()}, ${RUNS} alternating runs after 1 warm-up each, ${HAVE_TIME ? RSS_RUNS : 0} peak-RSS runs`);
const results: { scenario: Scenario; zot: Measured; floor: Measured; before: Measured | undefined }[] = [];
for (const scenario of SCENARIOS) results.push({ scenario, ...(await measureScenario(scenario)) });
const extension = EXT_CALLS > 0 ? await measureExtensionOverhead() : undefined;
await server.stop();

const mib = (bytes: number): string => fmt(bytes / MiB, 1);
const table: string[][] = [["scenario", "zot ms", "floor ms", "ratio", "zot p90", "zot cpu ms", "floor cpu ms", "zot peak MiB", "floor peak MiB", "Δ MiB", "body chars zot/floor"]];
const rows: SummaryRow[] = [];
/** The zot build(s) of a result, labelled: the ZOT_BENCH_BEFORE build first when there is one. */
const variants = (label: string, zot: Measured, before: Measured | undefined): [string, Measured][] =>
  before === undefined ? [[label, zot]] : [[`${label} (before)`, before], [`${label} (after)`, zot]];
for (const { scenario, zot, floor, before } of results) {
  const zotWall = median(zot.wallMs);
  const floorWall = median(floor.wallMs);
  const zotPeak = median(zot.peakBytes);
  const floorPeak = median(floor.peakBytes);
  for (const [label, m] of variants(scenario.label, zot, before)) {
    const wall = median(m.wallMs);
    const peak = median(m.peakBytes);
    table.push([
      label, fmt(wall), fmt(floorWall), ratioText(wall / floorWall), fmt(percentile(m.wallMs, 90)),
      fmt(median(m.cpuMs)), fmt(median(floor.cpuMs)), mib(peak), mib(floorPeak), mib(peak - floorPeak), `${m.lastBodyChars}/${floor.lastBodyChars}`,
    ]);
  }
  rows.push({
    bench: "session", metric: `${scenario.label}: wall`, value: `${fmt(zotWall)} ms`, floor: `${fmt(floorWall)} ms`,
    ratio: zotWall / floorWall, target: `≤ ${WALL_TARGET}x`, ok: zotWall / floorWall <= WALL_TARGET,
  });
  if (HAVE_TIME) {
    rows.push({
      bench: "session", metric: `${scenario.label}: peak RSS`, value: `${mib(zotPeak)} MiB`, floor: `${mib(floorPeak)} MiB`,
      ratio: zotPeak / floorPeak, target: `≤ floor + ${RSS_TARGET_MIB} MiB`, ok: zotPeak - floorPeak <= RSS_TARGET_MIB * MiB,
    });
  }
}
printTable(table);

console.log("");
const rssTable: string[][] = [["scenario", ...RSS_ROUNDS.map((round) => `zot/floor RSS after ${round} MiB`), "zot growth KiB/round 100→400", "floor KiB/round"]];
for (const { scenario, zot, floor, before } of results) {
  const growth = (m: Measured): number => ((m.rssAfter.get(400) ?? Number.NaN) - (m.rssAfter.get(100) ?? Number.NaN)) / 300 / 1024;
  for (const [label, m] of variants(scenario.label, zot, before)) {
    const cells = RSS_ROUNDS.map((round) => (m.rssAfter.has(round) ? `${mib(m.rssAfter.get(round) ?? Number.NaN)} / ${mib(floor.rssAfter.get(round) ?? Number.NaN)}` : "—"));
    rssTable.push([label, ...cells, scenario.rounds >= 400 ? fmt(growth(m)) : "—", scenario.rounds >= 400 ? fmt(growth(floor)) : "—"]);
  }
  for (const round of RSS_ROUNDS) {
    if (zot.rssAfter.has(round)) {
      rows.push({ bench: "session", metric: `${scenario.label}: RSS after round ${round}`, value: `${mib(zot.rssAfter.get(round) ?? Number.NaN)} MiB`, floor: `${mib(floor.rssAfter.get(round) ?? Number.NaN)} MiB` });
    }
  }
}
printTable(rssTable);

if (extension !== undefined) {
  console.log("");
  const hostP50 = percentile(extension.host, 50);
  const rawP50 = percentile(extension.raw, 50);
  const overheadMs = (hostP50 - rawP50) / 1000;
  printTable([
    [`extension tool call (py-hello weather), ${extension.host.length} sequential calls`, "p50 µs", "p90 µs", "p99 µs"],
    ["callExtensionTool (host)", fmt(hostP50, 0), fmt(percentile(extension.host, 90), 0), fmt(percentile(extension.host, 99), 0)],
    ["raw pipe client (floor)", fmt(rawP50, 0), fmt(percentile(extension.raw, 90), 0), fmt(percentile(extension.raw, 99), 0)],
  ]);
  console.log(`host overhead per call: ${fmt(overheadMs * 1000, 1)} µs (target ≤ ${EXT_TARGET_MS * 1000} µs)`);
  rows.push({
    bench: "session", metric: "extension tool call overhead (p50 host − raw)", value: `${fmt(overheadMs * 1000, 1)} µs`,
    floor: `${fmt(rawP50, 0)} µs raw`, target: `≤ ${EXT_TARGET_MS * 1000} µs`, ok: overheadMs <= EXT_TARGET_MS,
  });
}
report(rows);
