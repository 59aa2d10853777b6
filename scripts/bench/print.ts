/**
 * Benchmark: a scripted print-mode session end to end.
 *
 * What: `dist/zot -p` running a 3-round tool-use session (three bash calls,
 * one per model step, then a text answer) against the stand-in model server
 * (test/support/model-server.ts) with zero latency, in a temp ZOT_HOME with
 * sessions on. Reports wall time (spawn → exit), time from spawn to the
 * first model request, and peak RSS, without and with three extensions
 * loaded (fast shell extensions, so the host is measured, not an
 * interpreter). Floor: `dist/zot --version` measured in the same run.
 * Peak RSS comes from separate runs under `/usr/bin/time -f %M`: Bun.spawn
 * starts children with vfork, so a child's own rusage maxRSS is at least this
 * benchmark process's RSS (the shared address space before exec counts), which
 * hides any figure below ≈35 MB. Without /usr/bin/time the column shows that
 * upper bound, marked "≤".
 * Targets: about the original Go zot on the same work (≈30 ms, ≈18 MiB on
 * this machine) and peak RSS < 35 MiB.
 * JSON output: `dist/zot --json` streaming one answer of JSON_DELTAS text
 * deltas (≈1 MB of event lines) with stdout a socket (what Bun.spawn and
 * Node give a child for "pipe"), a real pipe (`| wc -c`, the count checked)
 * and a regular file; wall time spawn → exit.
 * Usage: bun scripts/bench/print.ts [RUNS]
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startModelServer } from "../../test/support/model-server.ts";
import { type SummaryRow, REPO_ROOT, fmt, machineLine, median, percentile, printTable, report, tempDir } from "./common.ts";

const RUNS = Number(process.argv[2] ?? 15);
const JSON_DELTAS = 20_000;
const JSON_TEXT = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN".repeat(JSON_DELTAS);
const WARMUPS = 2;
const RSS_RUNS = 3;
const GNU_TIME = "/usr/bin/time";
const HAVE_TIME = existsSync(GNU_TIME);
const ZOT = join(REPO_ROOT, "dist", "zot");
const QUICK = join(REPO_ROOT, "test", "fixtures", "extensions", "quick.sh");

if (!existsSync(ZOT)) Bun.spawnSync([process.execPath, join(REPO_ROOT, "scripts", "build.ts")], { stdout: "inherit", stderr: "inherit" });

const server = startModelServer();

interface Sample {
  readonly wallMs: number;
  readonly firstRequestMs: number;
  /** Peak RSS of zot alone (from /usr/bin/time), or NaN for timed runs. */
  readonly rssBytes: number;
  /** Child rusage maxRSS: an upper bound (see the header). */
  readonly rusageBytes: number;
}

function extensionDirs(root: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const dir = join(root, `quick${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: `quick${i}`, exec: QUICK, args: [`quick${i}`] }));
    return dir;
  });
}

async function runOnce(args: readonly string[], home: string, scripted: boolean, forRss = false): Promise<Sample> {
  if (scripted) {
    for (let i = 0; i < 3; i++) server.enqueue({ type: "tool_calls", calls: [{ name: "bash", arguments: { command: "true" } }] });
    server.enqueue({ type: "text", text: "done" });
  }
  const rssFile = join(home, ".peak-rss");
  const argv = forRss ? [GNU_TIME, "-f", "%M", "-o", rssFile, ZOT, ...args] : [ZOT, ...args];
  const before = server.requests.length;
  const started = performance.now();
  const proc = Bun.spawn(argv, {
    cwd: home,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZOT_HOME: home },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`zot ${args.join(" ")} exited ${code}: ${err}`);
  if (scripted && out.trim() !== "done") throw new Error(`unexpected output: ${out}`);
  const first = server.requests[before];
  const rssBytes = forRss ? Number((await Bun.file(rssFile).text()).trim()) * 1024 : Number.NaN;
  return {
    wallMs,
    firstRequestMs: first ? first.at - started : Number.NaN,
    rssBytes,
    rusageBytes: proc.resourceUsage()?.maxRSS ?? Number.NaN,
  };
}

async function measure(args: readonly string[], scripted: boolean): Promise<Sample[]> {
  const home = tempDir("zot-bench-print-");
  for (let i = 0; i < WARMUPS; i++) await runOnce(args, home, scripted);
  const samples: Sample[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await runOnce(args, home, scripted));
  if (HAVE_TIME) for (let i = 0; i < RSS_RUNS; i++) samples.push(await runOnce(args, home, scripted, true));
  return samples;
}

const base = ["-p", "go", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--api-key", "bench", "--base-url", server.anthropicBaseUrl];
const extRoot = tempDir("zot-bench-exts-");
const withExt = [...base, ...extensionDirs(extRoot, 3).flatMap((dir) => ["--ext", dir])];

type JsonStdout = "socket" | "pipe" | "file";

/** One --json run streaming JSON_DELTAS deltas; checks that every delta arrived. */
async function runJsonOnce(home: string, stdout: JsonStdout): Promise<number> {
  server.enqueue({ type: "text", text: JSON_TEXT, chunks: JSON_DELTAS });
  const args = ["--json", "go", ...base.slice(2)];
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZOT_HOME: home };
  const outFile = join(home, ".json-out");
  const started = performance.now();
  let out: string;
  let code: number;
  if (stdout === "pipe") {
    const proc = Bun.spawn(["/bin/sh", "-c", '"$@" | wc -c', "sh", ZOT, ...args], { cwd: home, env, stdout: "pipe", stderr: "inherit" });
    out = await new Response(proc.stdout).text();
    code = await proc.exited;
  } else if (stdout === "file") {
    const proc = Bun.spawn([ZOT, ...args], { cwd: home, env, stdout: Bun.file(outFile), stderr: "inherit" });
    code = await proc.exited;
    out = "";
  } else {
    const proc = Bun.spawn([ZOT, ...args], { cwd: home, env, stdout: "pipe", stderr: "inherit" });
    out = await new Response(proc.stdout).text();
    code = await proc.exited;
  }
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`zot --json (${stdout}) exited ${code}`);
  const text = stdout === "file" ? await Bun.file(outFile).text() : out;
  const lines = stdout === "pipe" ? undefined : text.split("\n").filter((line) => line.includes('"text_delta"')).length;
  if (lines !== undefined && lines !== JSON_DELTAS) throw new Error(`zot --json (${stdout}): ${lines} text_delta lines, expected ${JSON_DELTAS}`);
  if (stdout === "pipe" && Number(out.trim()) < JSON_TEXT.length) throw new Error(`zot --json | wc -c: only ${out.trim()} bytes`);
  return wallMs;
}

async function measureJson(stdout: JsonStdout): Promise<number[]> {
  const home = tempDir("zot-bench-json-");
  for (let i = 0; i < WARMUPS; i++) await runJsonOnce(home, stdout);
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await runJsonOnce(home, stdout));
  return samples;
}

console.log(`print-mode session benchmark — ${machineLine()}, ${RUNS} runs after ${WARMUPS} warm-ups`);
const floor = await measure(["--version"], false);
const plain = await measure(base, true);
const extended = await measure(withExt, true);
const jsonSocket = await measureJson("socket");
const jsonPipe = await measureJson("pipe");
const jsonFile = await measureJson("file");
await server.stop();

const mib = (bytes: number): string => fmt(bytes / (1024 * 1024), 1);
const timed = (samples: Sample[]): Sample[] => samples.filter((s) => Number.isNaN(s.rssBytes));
/** Peak RSS in bytes: /usr/bin/time's figure, else the rusage upper bound. */
const peak = (samples: Sample[]): number =>
  HAVE_TIME ? Math.max(...samples.filter((s) => !Number.isNaN(s.rssBytes)).map((s) => s.rssBytes)) : Math.max(...samples.map((s) => s.rusageBytes));
const peakText = (samples: Sample[]): string => `${HAVE_TIME ? "" : "≤ "}${mib(peak(samples))}`;
const row = (label: string, samples: Sample[]): string[] => [
  label,
  fmt(median(timed(samples).map((s) => s.wallMs))),
  fmt(percentile(timed(samples).map((s) => s.wallMs), 90)),
  fmt(median(timed(samples).map((s) => s.firstRequestMs))),
  peakText(samples),
];
printTable([
  ["run", "wall median ms", "wall p90 ms", "to 1st request ms", "peak RSS MiB"],
  row("zot --version (floor)", floor),
  row("3 tool rounds, no extensions", plain),
  row("3 tool rounds, 3 extensions", extended),
]);
const jsonRow = (label: string, samples: number[]): string[] => [label, fmt(median(samples)), fmt(percentile(samples, 90))];
console.log("");
printTable([
  ["--json, " + fmt(JSON_DELTAS, 0) + " text deltas", "wall median ms", "wall p90 ms"],
  jsonRow("stdout a socket", jsonSocket),
  jsonRow("stdout a pipe (| wc -c)", jsonPipe),
  jsonRow("stdout a file", jsonFile),
]);
const rows: SummaryRow[] = [
  { bench: "print", metric: "3-round session wall (no ext)", value: `${fmt(median(timed(plain).map((s) => s.wallMs)))} ms`, target: "≈30 ms (Go zot)" },
  { bench: "print", metric: "3-round session wall (3 ext)", value: `${fmt(median(timed(extended).map((s) => s.wallMs)))} ms` },
  { bench: "print", metric: "spawn → first request (no ext)", value: `${fmt(median(timed(plain).map((s) => s.firstRequestMs)))} ms` },
  { bench: "print", metric: `--json ${JSON_DELTAS} deltas, socket stdout`, value: `${fmt(median(jsonSocket))} ms` },
  { bench: "print", metric: `--json ${JSON_DELTAS} deltas, pipe stdout`, value: `${fmt(median(jsonPipe))} ms` },
  { bench: "print", metric: `--json ${JSON_DELTAS} deltas, file stdout`, value: `${fmt(median(jsonFile))} ms` },
  { bench: "print", metric: "peak RSS (3 ext)", value: `${peakText(extended)} MiB`, target: "< 35 MiB", ok: peak(extended) < 35 * 1024 * 1024 },
];
report(rows);
