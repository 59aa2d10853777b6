/**
 * Benchmark: the overhead of one subagent round trip (issue 11).
 *
 * What: wall time (spawn → exit) of `dist/zot -p` against the stand-in model
 * server (test/support/model-server.ts, zero latency), in a temp ZOT_HOME
 * with sessions on, in these shapes:
 *   floor    — `"agents": false`, the prompt answered in the parent (1 model
 *              request): one zot start with nothing of subagents;
 *   parent   — the same with subagents on (the default): the idle cost of
 *              subagents for a run that never calls `agent` (parent − floor;
 *              no warm spare starts in such a run);
 *   tool     — `"agents": false`, one bash `true` step, then the answer (2
 *              requests): what any one-tool step costs;
 *   cold     — `ZOT_AGENT_WARM=0`: one `agent` call with the same prompt,
 *              answered by a `zot swarm-child` spawned for the call, then the
 *              parent's answer (3 requests: parent, child, parent);
 *   subagent — the default: the same call; a warm spare is scheduled when
 *              the model begins the call, but with this model the call runs
 *              in the same tick, so it spawns its own child (as cold does).
 * The tool, cold and subagent shapes run a second time (toolS, coldS,
 * subagentS) with the model writing its tool call as a real one does: the
 * call's arguments stream in ARG_CHUNKS pieces FRAME_MS apart (≈100 ms from
 * the call's start to its end), which is when the warm spare gets ready. The
 * overhead there is subagentS − floor − (toolS − tool): the same call's
 * streaming time, measured on the bash call, taken out.
 * Floors measured in the same run, interleaved with the targets (one of each
 * per round, so drift hits all alike): `dist/zot --version` and the floor
 * run (one zot start with a `-p` against the server).
 * Reported: medians and p90; the round trip's overhead = subagent − floor
 * (cold − floor: without the warm spare), the child alone = subagent − tool;
 * the idle cost = parent − floor; the RSS of an idle warm child (VmRSS after
 * its prepare, median of 5). Target: the overhead is at most the cost of one
 * zot start (the floor run), ratio ≤ 1.
 * Usage: bun scripts/bench/agents.ts [RUNS]
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startModelServer } from "../../test/support/model-server.ts";
import { type SummaryRow, REPO_ROOT, fmt, machineLine, median, percentile, printTable, ratioText, report, tempDir } from "./common.ts";

const RUNS = Number(process.argv[2] ?? 15);
const WARMUPS = 2;
const ZOT = join(REPO_ROOT, "dist", "zot");
const PROMPT = "say done";

if (!existsSync(ZOT)) Bun.spawnSync([process.execPath, join(REPO_ROOT, "scripts", "build.ts")], { stdout: "inherit", stderr: "inherit" });

const server = startModelServer();
const provider = ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--api-key", "bench", "--base-url", server.anthropicBaseUrl];

const ARG_CHUNKS = 9;
const FRAME_MS = 10;

type Base = "version" | "floor" | "parent" | "tool" | "cold" | "subagent";
type Shape = Base | "toolS" | "coldS" | "subagentS";
const SHAPES: readonly Shape[] = ["version", "floor", "parent", "tool", "cold", "subagent", "toolS", "coldS", "subagentS"];
const baseOf = (shape: Shape): Base => (shape.endsWith("S") ? (shape.slice(0, -1) as Base) : (shape as Base));
const REQUESTS: Record<Base, number | undefined> = { version: undefined, floor: 1, parent: 1, tool: 2, cold: 3, subagent: 3 };

const homes = Object.fromEntries(SHAPES.map((shape) => [shape, tempDir("zot-bench-agents-")])) as Record<Shape, string>;
for (const shape of SHAPES) if (["floor", "tool"].includes(baseOf(shape))) writeFileSync(join(homes[shape], "config.json"), JSON.stringify({ agents: false }));

/** Scripts the server for one run (requests of one run are sequential, so the main queue is enough). */
function script(shape: Shape): void {
  const base = baseOf(shape);
  // Only the parent's tool call is paced: the model writing it.
  const pacing = shape === base ? {} : { argChunks: ARG_CHUNKS, delayMs: FRAME_MS };
  const answer = { type: "text" as const, text: "done" };
  if (base === "floor" || base === "parent") server.enqueue(answer);
  if (base === "tool") server.enqueue({ type: "tool_calls", calls: [{ name: "bash", arguments: { command: "true" } }], ...pacing }, answer);
  if (base === "cold" || base === "subagent") {
    server.enqueue(
      { type: "tool_calls", calls: [{ name: "agent", arguments: { description: "answer", prompt: PROMPT } }], ...pacing },
      answer, // the child's answer
      answer, // the parent's
    );
  }
}

function envFor(shape: Shape): Record<string, string> {
  const home = homes[shape];
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZOT_HOME: home, ...(baseOf(shape) === "cold" ? { ZOT_AGENT_WARM: "0" } : {}) };
}

async function runOnce(shape: Shape): Promise<number> {
  script(shape);
  const argv = shape === "version" ? [ZOT, "--version"] : [ZOT, "-p", PROMPT, ...provider];
  const before = server.requests.length;
  const started = performance.now();
  const proc = Bun.spawn(argv, { cwd: homes[shape], env: envFor(shape), stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`zot (${shape}) exited ${code}: ${err}`);
  const expected = REQUESTS[baseOf(shape)];
  if (expected !== undefined && (out.trim() !== "done" || server.requests.length - before !== expected)) {
    throw new Error(`zot (${shape}): unexpected run (${server.requests.length - before} requests, stdout ${JSON.stringify(out)}, stderr ${JSON.stringify(err)})`);
  }
  return wallMs;
}

/** VmRSS (MiB) of a warm child that got its prepare line and has been idle 500 ms. */
async function idleChildRssMiB(): Promise<number> {
  const proc = Bun.spawn([ZOT, "swarm-child"], { cwd: homes.subagent, env: envFor("subagent"), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  proc.stdin.write(`${JSON.stringify({ type: "prepare", provider: "anthropic", base_url: server.anthropicBaseUrl })}\n`);
  await proc.stdin.flush();
  await Bun.sleep(500);
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))?.[1] ?? Number.NaN);
  await proc.stdin.end();
  const code = await proc.exited;
  if (code !== 0) throw new Error(`idle warm child exited ${code}`);
  return kib / 1024;
}

const samples = Object.fromEntries(SHAPES.map((shape) => [shape, [] as number[]])) as Record<Shape, number[]>;
for (let round = 0; round < WARMUPS + RUNS; round++) {
  for (const shape of SHAPES) {
    const ms = await runOnce(shape);
    if (round >= WARMUPS) samples[shape].push(ms);
  }
}
const rss = existsSync("/proc/self/status") ? median(await Promise.all([0, 1, 2, 3, 4].map(() => idleChildRssMiB()))) : Number.NaN;
server.stop();

const med = (shape: Shape): number => median(samples[shape]);
const p90 = (shape: Shape): number => percentile(samples[shape], 90);
const start = med("floor");
const overhead = med("subagent") - start;
const coldOverhead = med("cold") - start;
const childOnly = med("subagent") - med("tool");
const idle = med("parent") - start;
const ratio = overhead / start;
const streaming = med("toolS") - med("tool");
const overheadS = med("subagentS") - start - streaming;
const coldOverheadS = med("coldS") - start - streaming;

console.log(`agents: ${RUNS} interleaved rounds after ${WARMUPS} warm-up — ${machineLine()}`);
const table: string[][] = [["run", "median ms", "p90 ms", "model requests"]];
table.push(["zot --version (floor)", fmt(med("version")), fmt(p90("version")), "0"]);
table.push(['floor: -p answered in the parent, "agents": false (one zot start)', fmt(start), fmt(p90("floor")), "1"]);
table.push(["parent: the same, subagents on (no agent call: no spare)", fmt(med("parent")), fmt(p90("parent")), "1"]);
table.push(['tool: -p with one bash step, "agents": false', fmt(med("tool")), fmt(p90("tool")), "2"]);
table.push(["cold: -p with one agent call, ZOT_AGENT_WARM=0", fmt(med("cold")), fmt(p90("cold")), "3"]);
table.push(["subagent: -p with one agent call (warm spare)", fmt(med("subagent")), fmt(p90("subagent")), "3"]);
for (const [shape, label] of [["toolS", "tool"], ["coldS", "cold"], ["subagentS", "subagent"]] as const) {
  table.push([`${label}, the call's arguments streamed (${ARG_CHUNKS} × ${FRAME_MS} ms)`, fmt(med(shape)), fmt(p90(shape)), String(REQUESTS[baseOf(shape)])]);
}
printTable(table);
console.log(`round-trip overhead (subagent − floor): ${fmt(overhead)} ms = ${ratioText(ratio)} of one zot start (target ≤ 1.00x); ${ratioText(overhead / med("version"))} of zot --version`);
console.log(`without the warm spare (cold − floor): ${fmt(coldOverhead)} ms = ${ratioText(coldOverhead / start)} of one zot start`);
console.log(`the child alone (subagent − tool): ${fmt(childOnly)} ms = ${ratioText(childOnly / start)} of one zot start`);
console.log(`call streamed (${fmt(streaming)} ms, toolS − tool): overhead (subagentS − floor − streaming) ${fmt(overheadS)} ms = ${ratioText(overheadS / start)} of one zot start; cold ${fmt(coldOverheadS)} ms = ${ratioText(coldOverheadS / start)}`);
console.log(`idle cost of subagents on (parent − floor): ${fmt(idle)} ms = ${ratioText(idle / start)}; an idle warm child's RSS: ${fmt(rss)} MiB`);

const rows: SummaryRow[] = [
  { bench: "agents", metric: "subagent round trip overhead (subagent − floor -p)", value: `${fmt(overhead)} ms`, floor: `${fmt(start)} ms (one -p start)`, ratio, target: "≤ 1.00x", ok: ratio <= 1 },
  { bench: "agents", metric: "same without the warm spare (cold − floor)", value: `${fmt(coldOverhead)} ms`, floor: `${fmt(start)} ms`, ratio: coldOverhead / start },
  { bench: "agents", metric: "child alone (subagent − one tool step)", value: `${fmt(childOnly)} ms`, floor: `${fmt(start)} ms`, ratio: childOnly / start },
  { bench: "agents", metric: "idle cost of subagents on (parent − floor)", value: `${fmt(idle)} ms`, floor: `${fmt(start)} ms`, ratio: idle / start },
  { bench: "agents", metric: "idle warm child RSS", value: `${fmt(rss)} MiB` },
  { bench: "agents", metric: "overhead, the call's arguments streamed (subagentS − floor − (toolS − tool))", value: `${fmt(overheadS)} ms`, floor: `${fmt(start)} ms`, ratio: overheadS / start, target: "≤ 1.00x", ok: overheadS <= start },
  { bench: "agents", metric: "same without the warm spare, arguments streamed", value: `${fmt(coldOverheadS)} ms`, floor: `${fmt(start)} ms`, ratio: coldOverheadS / start },
];
report(rows);
