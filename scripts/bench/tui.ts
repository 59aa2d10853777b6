/**
 * Benchmark: the terminal UI through the compiled binary in a real PTY
 * (Bun.Terminal, bytes fed to @xterm/headless via test/support/tui-pty.ts)
 * against the stand-in model server.
 *
 * What, for a resumed session of 10 and of 5,000 messages (a generated
 * session file, `--session`): one answer of DELTAS text deltas (≈5
 * characters each, one every DELAY_MS) streamed after Enter; from Enter to
 * the end of the turn (no spinner on screen):
 *   - bytes zot wrote per streamed delta, and as a ratio to the answer's own
 *     size (floor: the text itself);
 *   - CPU ms of the zot process per delta (/proc/<pid>/stat utime+stime),
 *     as a ratio to print mode streaming the same answer (floor: `zot -p`,
 *     CPU of a DELTAS-delta answer minus a 1-delta one, per delta);
 *   - render ms per frame from the renderer itself when zot honours
 *     ZOT_TUI_STATS=<file> (JSON written at exit: frames, bytes,
 *     screenClears, renderMs, frameMs[]; median of frameMs after the first
 *     FRAME_SKIP frames), "n/a" otherwise;
 *   - frames per second: synchronized-output frames (`CSI ? 2026 h`) per
 *     second of streaming, and PTY reads per second (what the stopgap, which
 *     writes no frames, is measured by);
 * and the 5,000 / 10 ratio of each (target ≤ 1.2x; render < 1 ms per frame
 * at 5,000). Clears: CSI 2J and CSI 3J over every session of the run, none
 * of which uses /clear (target 0). Time to first paint: spawn → the editor
 * prompt on the emulated screen, median of PAINT_RUNS, as a ratio to
 * `zot --version` (spawn → exit) measured in the same run.
 * Usage: bun scripts/bench/tui.ts [DELTAS] [PAINT_RUNS]
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startModelServer, type ModelServer } from "../../test/support/model-server.ts";
import { writeGeneratedSession } from "../../test/support/session-file.ts";
import { TuiPty } from "../../test/support/tui-pty.ts";
import { type SummaryRow, REPO_ROOT, fmt, machineLine, median, printTable, ratioText, report, tempDir } from "./common.ts";

const DELTAS = Number(process.argv[2] ?? 1500);
const PAINT_RUNS = Number(process.argv[3] ?? 10);
const DELAY_MS = 5;
const FRAME_SKIP = 3;
const HISTORIES = [10, 5000] as const;
const ZOT = join(REPO_ROOT, "dist", "zot");
const SPINNER = /[\u2801-\u28ff]/;
const WORDS = ["alpha ", "beta ", "gamma ", "delta\n", "**eps** ", "zeta ", "`eta` ", "theta\n\n"];
const ANSWER = Array.from({ length: DELTAS }, (_, i) => WORDS[i % WORDS.length]).join("");
const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

interface TuiStats {
  readonly frames?: number;
  readonly bytes?: number;
  readonly screenClears?: number;
  readonly renderMs?: number;
  readonly frameMs?: readonly number[];
}

function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
  } catch {
    return Number.NaN;
  }
}

const providerArgs = (server: ModelServer): string[] => ["--provider", "anthropic", "--base-url", server.anthropicBaseUrl, "--api-key", "bench-key"];
const idle = (tui: TuiPty): boolean => {
  const screen = tui.screen.screen();
  return !screen.some((row) => SPINNER.test(row)) && screen.some((row) => row.trimStart().startsWith("›"));
};
const clears = { screen: 0, scrollback: 0 };
function countClears(tui: TuiPty): void {
  clears.screen += tui.counts().screenClears;
  clears.scrollback += tui.counts().scrollbackClears;
}

interface StreamFigures {
  readonly history: number;
  readonly bytesPerDelta: number;
  readonly cpuMsPerDelta: number;
  readonly syncFramesPerSecond: number;
  readonly readsPerSecond: number;
  readonly renderMsPerFrame: number;
  readonly statsFrames: number;
}

async function streamRun(history: number): Promise<StreamFigures> {
  const home = tempDir("zot-bench-tui-home-");
  const cwd = tempDir("zot-bench-tui-cwd-");
  const statsFile = join(home, "tui-stats.json");
  const session = join(home, "history.jsonl");
  writeGeneratedSession({ path: session, cwd, messages: history });
  const server = startModelServer();
  server.enqueue({ type: "text", text: ANSWER, chunks: DELTAS, delayMs: DELAY_MS });
  const tui = await TuiPty.start({ home, cwd, columns: 100, rows: 30, args: ["--session", session, ...providerArgs(server)], env: { ZOT_TUI_STATS: statsFile } });
  try {
    await tui.waitFor(() => idle(tui), "the resumed session to paint");
    await tui.settle();
    const bytesBefore = tui.counts().bytes;
    const framesBefore = tui.counts().syncFrames;
    const readsBefore = tui.timeline.length;
    const cpuBefore = cpuMs(tui.proc.pid);
    const started = performance.now();
    tui.type("stream please\r");
    await tui.waitFor(() => tui.screen.all().some((row) => SPINNER.test(row)) || server.pending() === 0, "the turn to start");
    await tui.waitFor(() => server.pending() === 0 && idle(tui), "the answer to finish", 120_000);
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuMs(tui.proc.pid) - cpuBefore;
    const counts = tui.counts();
    const figures = {
      bytes: counts.bytes - bytesBefore,
      frames: counts.syncFrames - framesBefore,
      reads: tui.timeline.length - readsBefore,
    };
    tui.type("/exit\r");
    await tui.exitCode(10_000);
    countClears(tui);
    let renderMsPerFrame = Number.NaN;
    let statsFrames = Number.NaN;
    if (existsSync(statsFile)) {
      const stats = JSON.parse(readFileSync(statsFile, "utf8")) as TuiStats;
      const frameMs = stats.frameMs ?? [];
      statsFrames = stats.frames ?? frameMs.length;
      renderMsPerFrame = frameMs.length > FRAME_SKIP ? median(frameMs.slice(FRAME_SKIP)) : (stats.renderMs ?? Number.NaN) / (stats.frames ?? Number.NaN);
    }
    return {
      history,
      bytesPerDelta: figures.bytes / DELTAS,
      cpuMsPerDelta: cpu / DELTAS,
      syncFramesPerSecond: figures.frames / seconds,
      readsPerSecond: figures.reads / seconds,
      renderMsPerFrame,
      statsFrames,
    };
  } finally {
    await tui.stop();
    await server.stop();
  }
}

/** CPU ms of a whole `zot -p` run streaming `deltas` deltas of the answer. */
async function printCpuMs(deltas: number): Promise<number> {
  const home = tempDir("zot-bench-tui-print-");
  const server = startModelServer();
  const text = Array.from({ length: deltas }, (_, i) => WORDS[i % WORDS.length]).join("");
  server.enqueue({ type: "text", text, chunks: deltas, delayMs: DELAY_MS });
  try {
    const proc = Bun.spawn([ZOT, "-p", "stream please", ...providerArgs(server)], {
      cwd: home,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZOT_HOME: home, TERM: "dumb" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    await new Response(proc.stdout).text();
    await proc.exited;
    const usage = proc.resourceUsage();
    if (proc.exitCode !== 0 || usage === undefined) throw new Error(`zot -p exited ${proc.exitCode}`);
    return Number(usage.cpuTime.user + usage.cpuTime.system) / 1000;
  } finally {
    await server.stop();
  }
}

async function firstPaintMs(): Promise<number> {
  const home = tempDir("zot-bench-tui-paint-");
  const server = startModelServer();
  const tui = await TuiPty.start({ home, cwd: home, args: providerArgs(server), readyWhen: () => true });
  try {
    await tui.waitFor(() => tui.screen.screen().some((row) => row.trimStart().startsWith("›")), "the first paint");
    // The chunk that brought the editor prompt: the first whose end lies past the prompt's first character.
    const at = tui.raw().indexOf("›");
    const chunk = tui.timeline.find((entry) => entry.rawLength > at);
    countClears(tui);
    return (chunk?.at ?? Number.NaN) - tui.spawnedAt;
  } finally {
    await tui.stop();
    await server.stop();
  }
}

function versionMs(): number {
  const start = performance.now();
  const proc = Bun.spawnSync([ZOT, "--version"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  if (!proc.success) throw new Error("zot --version failed");
  return performance.now() - start;
}

console.log(`tui: ${DELTAS} deltas every ${DELAY_MS} ms, histories ${HISTORIES.join(" / ")}, ${PAINT_RUNS} paint runs — ${machineLine()}`);
const runs: StreamFigures[] = [];
for (const history of HISTORIES) runs.push(await streamRun(history));
const printPerDelta = ((await printCpuMs(DELTAS)) - (await printCpuMs(1))) / (DELTAS - 1);
const paints: number[] = [];
const versions: number[] = [];
for (let i = 0; i < 2; i++) versionMs();
for (let i = 0; i < PAINT_RUNS; i++) {
  paints.push(await firstPaintMs());
  versions.push(versionMs());
}

const answerBytesPerDelta = Buffer.byteLength(ANSWER) / DELTAS;
const table: string[][] = [["history", "bytes/delta", "× answer", "CPU ms/delta", "× print", "render ms/frame", "frames/s", "reads/s"]];
for (const run of runs) {
  table.push([
    `${run.history} messages`, fmt(run.bytesPerDelta), ratioText(run.bytesPerDelta / answerBytesPerDelta), fmt(run.cpuMsPerDelta, 3),
    ratioText(run.cpuMsPerDelta / printPerDelta), fmt(run.renderMsPerFrame, 3), fmt(run.syncFramesPerSecond), fmt(run.readsPerSecond),
  ]);
}
printTable(table);
const [small, large] = runs as [StreamFigures, StreamFigures];
const paint = median(paints);
const version = median(versions);
console.log(`print-mode floor: ${fmt(printPerDelta, 3)} CPU ms/delta; answer ${fmt(answerBytesPerDelta)} bytes/delta`);
console.log(`clears in ${HISTORIES.length + PAINT_RUNS} sessions without /clear: CSI 2J ${clears.screen}, CSI 3J ${clears.scrollback}`);
console.log(`first paint ${fmt(paint, 1)} ms (median), zot --version ${fmt(version, 1)} ms: ${ratioText(paint / version)}`);
if (Number.isNaN(large.renderMsPerFrame)) console.log("render ms/frame: n/a — zot does not write ZOT_TUI_STATS");

const bytesRatio = large.bytesPerDelta / small.bytesPerDelta;
const cpuRatio = large.cpuMsPerDelta / small.cpuMsPerDelta;
const renderRatio = large.renderMsPerFrame / small.renderMsPerFrame;
const rows: SummaryRow[] = [
  { bench: "tui", metric: "bytes per delta, 5,000 vs 10 messages", value: `${fmt(large.bytesPerDelta)} B`, floor: `${fmt(small.bytesPerDelta)} B`, ratio: bytesRatio, target: "≤ 1.2x", ok: bytesRatio <= 1.2 },
  { bench: "tui", metric: "bytes per delta vs the answer's size (10 messages)", value: `${fmt(small.bytesPerDelta)} B`, floor: `${fmt(answerBytesPerDelta)} B`, ratio: small.bytesPerDelta / answerBytesPerDelta },
  { bench: "tui", metric: "CPU ms per delta, 5,000 vs 10 messages", value: `${fmt(large.cpuMsPerDelta, 3)} ms`, floor: `${fmt(small.cpuMsPerDelta, 3)} ms`, ratio: cpuRatio, target: "≤ 1.2x", ok: cpuRatio <= 1.2 },
  { bench: "tui", metric: "CPU ms per delta vs print mode (10 messages)", value: `${fmt(small.cpuMsPerDelta, 3)} ms`, floor: `${fmt(printPerDelta, 3)} ms`, ratio: small.cpuMsPerDelta / printPerDelta },
  {
    bench: "tui", metric: "render ms per frame at 5,000 messages (ZOT_TUI_STATS)", value: `${fmt(large.renderMsPerFrame, 3)} ms`, floor: `${fmt(small.renderMsPerFrame, 3)} ms (10)`,
    ratio: renderRatio, target: "< 1 ms, ≤ 1.2x", ...(Number.isNaN(renderRatio) ? {} : { ok: large.renderMsPerFrame < 1 && renderRatio <= 1.2 }),
  },
  { bench: "tui", metric: "frames/s while streaming (sync frames; PTY reads)", value: `${fmt(large.syncFramesPerSecond)}; ${fmt(large.readsPerSecond)}`, target: "≤ 60" },
  { bench: "tui", metric: "CSI 2J + 3J in sessions without /clear", value: String(clears.screen + clears.scrollback), target: "0", ok: clears.screen + clears.scrollback === 0 },
  { bench: "tui", metric: "time to first paint vs zot --version", value: `${fmt(paint, 1)} ms`, floor: `${fmt(version, 1)} ms`, ratio: paint / version },
];
report(rows);
