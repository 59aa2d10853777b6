/**
 * Benchmark: the overhead of one subagent round trip (issue 11).
 *
 * What: wall time (spawn → exit) of `dist/zot -p` against the stand-in model
 * server (test/support/model-server.ts, zero latency), in a temp ZOT_HOME
 * with sessions on, in three shapes:
 *   parent   — the prompt answered in the parent (1 model request);
 *   tool     — the parent runs one bash `true` step, then answers (2 requests):
 *              what any one-tool step costs;
 *   subagent — `"agents": true`, the parent calls `agent` with the same prompt,
 *              a `zot swarm-child` answers it, then the parent answers (3
 *              requests: parent, child, parent).
 * Floors measured in the same run, interleaved with the targets (one of each
 * per round, so drift hits all alike): `dist/zot --version` and the parent
 * run itself (one zot start with a `-p` against the server).
 * Reported: medians and p90; the round trip's overhead = subagent − parent
 * (and subagent − tool: the child alone, past the extra step). Target: the
 * overhead is at most the cost of one zot start (the parent run), ratio ≤ 1.
 * Usage: bun scripts/bench/agents.ts [RUNS]
 */
import { existsSync, writeFileSync } from "node:fs";
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

type Shape = "version" | "parent" | "tool" | "subagent";
const SHAPES: readonly Shape[] = ["version", "parent", "tool", "subagent"];

const homes: Record<Shape, string> = {
  version: tempDir("zot-bench-agents-"),
  parent: tempDir("zot-bench-agents-"),
  tool: tempDir("zot-bench-agents-"),
  subagent: tempDir("zot-bench-agents-"),
};
writeFileSync(join(homes.subagent, "config.json"), JSON.stringify({ agents: true }));

/** Scripts the server for one run (requests of one run are sequential, so the main queue is enough). */
function script(shape: Shape): void {
  if (shape === "parent") server.enqueue({ type: "text", text: "done" });
  if (shape === "tool") server.enqueue({ type: "tool_calls", calls: [{ name: "bash", arguments: { command: "true" } }] }, { type: "text", text: "done" });
  if (shape === "subagent") {
    server.enqueue(
      { type: "tool_calls", calls: [{ name: "agent", arguments: { description: "answer", prompt: PROMPT } }] },
      { type: "text", text: "done" }, // the child's answer
      { type: "text", text: "done" }, // the parent's
    );
  }
}

async function runOnce(shape: Shape): Promise<number> {
  script(shape);
  const home = homes[shape];
  const argv = shape === "version" ? [ZOT, "--version"] : [ZOT, "-p", PROMPT, ...provider];
  const before = server.requests.length;
  const started = performance.now();
  const proc = Bun.spawn(argv, { cwd: home, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZOT_HOME: home }, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`zot (${shape}) exited ${code}: ${err}`);
  const expected = { version: undefined, parent: 1, tool: 2, subagent: 3 }[shape];
  if (expected !== undefined && (out.trim() !== "done" || server.requests.length - before !== expected)) {
    throw new Error(`zot (${shape}): unexpected run (${server.requests.length - before} requests, stdout ${JSON.stringify(out)}, stderr ${JSON.stringify(err)})`);
  }
  return wallMs;
}

const samples: Record<Shape, number[]> = { version: [], parent: [], tool: [], subagent: [] };
for (let round = 0; round < WARMUPS + RUNS; round++) {
  for (const shape of SHAPES) {
    const ms = await runOnce(shape);
    if (round >= WARMUPS) samples[shape].push(ms);
  }
}
server.stop();

const med = (shape: Shape): number => median(samples[shape]);
const p90 = (shape: Shape): number => percentile(samples[shape], 90);
const overhead = med("subagent") - med("parent");
const childOnly = med("subagent") - med("tool");
const ratio = overhead / med("parent");

console.log(`agents: ${RUNS} interleaved rounds after ${WARMUPS} warm-up — ${machineLine()}`);
const table: string[][] = [["run", "median ms", "p90 ms", "model requests"]];
table.push(["zot --version (floor)", fmt(med("version")), fmt(p90("version")), "0"]);
table.push(["parent: -p answered in the parent (floor: one zot start)", fmt(med("parent")), fmt(p90("parent")), "1"]);
table.push(["tool: -p with one bash step", fmt(med("tool")), fmt(p90("tool")), "2"]);
table.push(["subagent: -p with one agent call", fmt(med("subagent")), fmt(p90("subagent")), "3"]);
printTable(table);
console.log(`round-trip overhead (subagent − parent): ${fmt(overhead)} ms = ${ratioText(ratio)} of one zot start (target ≤ 1.00x); ${ratioText(overhead / med("version"))} of zot --version`);
console.log(`the child alone (subagent − tool): ${fmt(childOnly)} ms = ${ratioText(childOnly / med("parent"))} of one zot start`);

const rows: SummaryRow[] = [
  { bench: "agents", metric: "subagent round trip overhead (subagent − parent -p)", value: `${fmt(overhead)} ms`, floor: `${fmt(med("parent"))} ms (one -p start)`, ratio, target: "≤ 1.00x", ok: ratio <= 1 },
  { bench: "agents", metric: "child alone (subagent − one tool step)", value: `${fmt(childOnly)} ms`, floor: `${fmt(med("parent"))} ms`, ratio: childOnly / med("parent") },
  { bench: "agents", metric: "overhead vs zot --version", value: `${fmt(overhead)} ms`, floor: `${fmt(med("version"))} ms`, ratio: overhead / med("version") },
];
report(rows);
