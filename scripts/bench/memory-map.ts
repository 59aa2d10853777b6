/**
 * Where zot's resident memory is, against the session floor's (issue 10).
 *
 * What: for 3 rounds of `bash echo hi` and 50 rounds of `read` (the
 * session.ts scenarios, against the stand-in model), dist/zot (and any
 * binaries given as arguments) and the floor program each run RUNS times
 * under `/usr/bin/time`; when the model server receives the last request
 * (the final answer's), /proc/<pid>/smaps of the running program is read
 * and its resident set is split by mapping: the executable's code (text),
 * its read-only data, its writable data (the bundled JavaScript and its
 * bytecode live there), anonymous memory (the JavaScript heap, malloc,
 * thread stacks, JIT code) and shared libraries; plus the high-water mark
 * then, the final peak (/usr/bin/time %M) and the threads alive. Medians,
 * MiB. Nothing is asserted: the figures go to docs/benchmarks.md.
 * Usage: bun scripts/bench/memory-map.ts [RUNS] [PROGRAM…]
 * Each extra PROGRAM is one word "[NAME=VALUE…] <zot binary> [flags…]",
 * e.g. "BUN_JSC_useDFGJIT=0 dist/zot" or "dist/zot --no-session": that
 * binary with those environment variables and extra zot flags, in its own
 * rows (the executable's mappings are found through /proc/<pid>/exe).
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startModelServer, type RecordedRequest } from "../../test/support/model-server.ts";
import { REPO_ROOT, fmt, machineLine, median, printTable, tempDir } from "./common.ts";
import { buildSessionFloor, watchRequests, writeFloorConfig } from "./session-floor-build.ts";

const RUNS = Number(process.argv[2] ?? 5);
interface Program {
  readonly label: string;
  readonly binary: string;
  readonly env: Readonly<Record<string, string>>;
  readonly flags: readonly string[];
}
/** "[NAME=VALUE…] <binary> [flags…]" (see Usage). */
function parseProgram(spec: string): Program {
  const words = spec.split(" ").filter((word) => word !== "");
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? "")) {
    const [name = "", ...value] = (words.shift() ?? "").split("=");
    env[name] = value.join("=");
  }
  const [binary = "", ...flags] = words;
  return { label: spec.replace(REPO_ROOT + "/", ""), binary, env, flags };
}
const ZOTS: readonly Program[] = [parseProgram(join(REPO_ROOT, "dist", "zot")), ...process.argv.slice(3).map(parseProgram)];
const GNU_TIME = "/usr/bin/time";
const KiB = 1024;

interface Scenario {
  readonly label: string;
  readonly rounds: number;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}
const SCENARIOS: readonly Scenario[] = [
  { label: "3 rounds of bash", rounds: 3, tool: "bash", args: { command: "echo hi" } },
  { label: "50 rounds of read", rounds: 50, tool: "read", args: { path: "notes.txt" } },
];

const CLASSES = ["text", "ro data", "data", "anon", "libs"] as const;
type MappingClass = (typeof CLASSES)[number];
interface Sample {
  readonly kib: Record<MappingClass, number>;
  readonly hwmKib: number;
  readonly peakKib: number;
  readonly threads: number;
}

/** Resident KiB of `pid` by mapping class; `exe` is the program's own file. */
function residentByClass(pid: number, exe: string): Record<MappingClass, number> {
  const kib: Record<MappingClass, number> = { text: 0, "ro data": 0, data: 0, anon: 0, libs: 0 };
  let current: MappingClass = "anon";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const [, perms = "", name = ""] = head;
      if (name === exe) current = perms.includes("x") ? "text" : perms.includes("w") ? "data" : "ro data";
      else current = name === "" || name.startsWith("[") ? "anon" : "libs";
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) kib[current] += Number(rss[1]);
  }
  return kib;
}

const server = startModelServer();
const onRequest = watchRequests(server);

function enqueue(scenario: Scenario): void {
  for (let i = 0; i < scenario.rounds; i++) server.enqueue({ type: "tool_calls", calls: [{ id: `toolu_${i + 1}`, name: scenario.tool, arguments: scenario.args }] });
  server.enqueue({ type: "text", text: "done" });
}

async function sample(argv: readonly string[], home: string, scenario: Scenario, env: Readonly<Record<string, string>> = {}): Promise<Sample> {
  enqueue(scenario);
  server.requests.length = 0;
  const peakFile = join(home, ".peak");
  const proc = Bun.spawn([GNU_TIME, "-f", "%M", "-o", peakFile, ...argv], {
    cwd: home, env: { ...env, PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZOT_HOME: home }, stdin: "ignore", stdout: "pipe", stderr: "pipe",
  });
  let taken: Omit<Sample, "peakKib"> | undefined;
  onRequest((count) => {
    if (count !== scenario.rounds + 1) return;
    // /usr/bin/time's only child is the program.
    const pid = Number(readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, "utf8").trim());
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    taken = { kib: residentByClass(pid, readlinkSync(`/proc/${pid}/exe`)), hwmKib: Number(hwm?.[1] ?? Number.NaN), threads: readdirSync(`/proc/${pid}/task`).length };
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  onRequest(undefined);
  if (code !== 0 || out.trim() !== "done" || taken === undefined) throw new Error(`${argv[0]} (${scenario.label}) exited ${code}: ${err}`);
  return { ...taken, peakKib: Number(readFileSync(peakFile, "utf8").trim()) };
}

if (!existsSync(GNU_TIME)) throw new Error(`${GNU_TIME} is needed for the final peak`);
const floor = buildSessionFloor(tempDir("zot-bench-memmap-floor-"));
console.log(`memory map — ${machineLine()}, ${RUNS} runs each, medians, MiB`);
const rows: string[][] = [["scenario", "program", ...CLASSES, "HWM at last request", "final peak", "threads"]];
for (const scenario of SCENARIOS) {
  const home = tempDir("zot-bench-memmap-");
  writeFileSync(join(home, "notes.txt"), "alpha beta gamma\ndelta epsilon zeta\neta theta iota\n");
  const zotArgv = (zot: Program): string[] => [
    zot.binary, "-p", "go", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--api-key", "bench",
    "--base-url", server.anthropicBaseUrl, "--max-steps", String(scenario.rounds + 1), ...zot.flags,
  ];
  // One run of zot first: its first request gives the floor the same system blocks and tools.
  const [first] = ZOTS;
  if (first === undefined) throw new Error("no zot to measure");
  await sample(zotArgv(first), home, scenario);
  const configFile = writeFloorConfig(server.requests[0] as RecordedRequest, `${server.anthropicBaseUrl}/v1/messages`, home);
  const programs: [string, string[], Readonly<Record<string, string>>][] = [
    ...ZOTS.map((zot): [string, string[], Readonly<Record<string, string>>] => [zot.label, zotArgv(zot), zot.env]),
    ["floor", [floor, configFile], {}],
  ];
  const samples = new Map<string, Sample[]>();
  for (let run = 0; run < RUNS; run++) {
    for (const [name, argv, env] of programs) samples.set(name, [...(samples.get(name) ?? []), await sample(argv, home, scenario, env)]);
  }
  for (const [name] of programs) {
    const taken = samples.get(name) ?? [];
    const mib = (values: number[]): string => fmt(median(values) / KiB);
    rows.push([
      scenario.label, name,
      ...CLASSES.map((kind) => mib(taken.map((s) => s.kib[kind]))),
      mib(taken.map((s) => s.hwmKib)), mib(taken.map((s) => s.peakKib)), String(median(taken.map((s) => s.threads))),
    ]);
  }
}
printTable(rows, 2);
server.stop();
process.exit(0);
