/**
 * The warm spare (src/agents/warm.ts) end to end through dist/zot and the
 * stand-in model server: agent calls are handed to the spare (the run record
 * says `warm: true`), also a later step's call (a new spare starts when the
 * model begins that call); ZOT_AGENT_WARM=0 spawns a child per call; a run
 * that never calls `agent` starts no spare; a spare left idle (its call was
 * refused) is retired at exit (no orphan); a parent killed with SIGKILL
 * leaves no spare behind (it sees EOF and exits); a spare that gets SIGTERM
 * before its task exits 0 at once.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { exitWithin, isAlive } from "../support/processes.ts";
import { toolResultsSent, useModeEnv, type ModeEnv } from "../modes/helpers.ts";
import { type Json, childOf, swarmChildrenOf } from "./lifecycle.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const TEST_MS = 90_000;

async function waitFor(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await Bun.sleep(20);
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

async function records(): Promise<Json[]> {
  const listed = await env.run(["agents", "--json"]);
  expect(listed.code).toBe(0);
  return JSON.parse(listed.stdout) as Json[];
}

/** The model writes a call the way a real one does: its arguments arrive in pieces, 50 ms apart (the spare starts meanwhile). */
const STREAMED = { argChunks: 4, delayMs: 50 };

test("agent calls in two steps both run in a warm spare; ZOT_AGENT_WARM=0 spawns a child per call", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_1", name: "agent", arguments: { description: "first", prompt: "task one" } }], ...STREAMED },
    { type: "tool_calls", calls: [{ id: "call_2", name: "agent", arguments: { description: "second", prompt: "task two" } }], ...STREAMED },
    { type: "text", text: "both done" },
  );
  env.server.enqueueFor(childOf("task one"), { type: "text", text: "answer one" });
  env.server.enqueueFor(childOf("task two"), { type: "text", text: "answer two" });
  const result = await env.run(["-p", "go", ...env.providerArgs()], { timeoutMs: 60_000 });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("both done\n");
  const last = env.server.requests[env.server.requests.length - 1];
  expect(toolResultsSent(last).get("call_2")).toStartWith("answer two");
  const warm = await records();
  expect(warm.map((record) => [record.description, record.status, record.warm])).toEqual(
    expect.arrayContaining([["first", "completed", true], ["second", "completed", true]]),
  );

  env.server.enqueue({ type: "tool_calls", calls: [{ id: "call_3", name: "agent", arguments: { description: "third", prompt: "task three" } }], ...STREAMED }, { type: "text", text: "ok" });
  env.server.enqueueFor(childOf("task three"), { type: "text", text: "answer three" });
  const cold = await env.run(["-p", "go", ...env.providerArgs()], { timeoutMs: 60_000, env: { ZOT_AGENT_WARM: "0" } });
  expect(cold.code).toBe(0);
  const third = (await records()).find((record) => record.description === "third");
  expect(third?.status).toBe("completed");
  expect(third?.warm).toBeUndefined();
}, TEST_MS);

/** A bash command that says it started (a file), then blocks until `gate` exists. */
function gated(started: string, gate: string): string {
  return `: > '${started}'; while [ ! -e '${gate}' ]; do sleep 0.02; done; echo released`;
}

/** An agent call the tool refuses (no prompt) before any child: the spare started for it stays idle. */
const REFUSED_CALL = { id: "call_bad", name: "agent", arguments: { description: "no prompt" } };

test("a run that never calls agent starts no spare", async () => {
  const [started, gate] = [join(env.base, "started"), join(env.base, "go")];
  env.server.enqueue({ type: "tool_calls", calls: [{ id: "call_b", name: "bash", arguments: { command: gated(started, gate) } }] }, { type: "text", text: "done" });
  const proc = Bun.spawn([await zotBinary(), "-p", "go", ...env.providerArgs()], { cwd: env.cwd, env: cleanEnv(env.home), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const stdout = new Response(proc.stdout).text();
  try {
    await waitFor(() => existsSync(started), "the bash step");
    // The parent has made a model request and runs a tool: still no swarm child.
    expect(swarmChildrenOf(proc.pid)).toEqual([]);
    writeFileSync(gate, "");
    expect(await proc.exited).toBe(0);
    expect(await stdout).toBe("done\n");
  } finally {
    writeFileSync(gate, "");
    proc.kill("SIGKILL");
    await proc.exited;
  }
}, TEST_MS);

test("a spare left idle is retired when the parent finishes: no orphan", async () => {
  const [started, gate] = [join(env.base, "started"), join(env.base, "go")];
  env.server.enqueue(
    { type: "tool_calls", calls: [REFUSED_CALL] },
    { type: "tool_calls", calls: [{ id: "call_b", name: "bash", arguments: { command: gated(started, gate) } }] },
    { type: "text", text: "done" },
  );
  const proc = Bun.spawn([await zotBinary(), "-p", "go", ...env.providerArgs()], { cwd: env.cwd, env: cleanEnv(env.home), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const stdout = new Response(proc.stdout).text();
  try {
    await waitFor(() => existsSync(started), "the bash step");
    await waitFor(() => swarmChildrenOf(proc.pid).length === 1, "the warm spare");
    const [spare] = swarmChildrenOf(proc.pid);
    writeFileSync(gate, "");
    expect(await proc.exited).toBe(0);
    expect(await stdout).toBe("done\n");
    expect(toolResultsSent(env.server.requests[1]).get("call_bad")).toContain("prompt");
    // The parent waited for it: gone the moment the parent is.
    expect(isAlive(spare as number)).toBe(false);
    expect(existsSync(join(env.home, "agents", "runs"))).toBe(false);
  } finally {
    writeFileSync(gate, "");
    proc.kill("SIGKILL");
    await proc.exited;
  }
}, TEST_MS);

test("a parent killed with SIGKILL leaves no warm spare behind", async () => {
  // The spare started for the refused call waits for a task; the parent waits on the model forever.
  env.server.enqueue({ type: "tool_calls", calls: [REFUSED_CALL] }, { type: "stall" });
  const proc = Bun.spawn([await zotBinary(), "--json", "go", ...env.providerArgs()], { cwd: env.cwd, env: cleanEnv(env.home), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  try {
    await waitFor(() => env.server.requests.length === 2 && swarmChildrenOf(proc.pid).length === 1, "the second request and the warm spare");
    const [spare] = swarmChildrenOf(proc.pid);
    proc.kill("SIGKILL");
    await proc.exited;
    // Its stdin is closed with the parent: it leaves on its own.
    await waitFor(() => !isAlive(spare as number), "the spare to exit");
    expect(isAlive(spare as number)).toBe(false);
  } finally {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}, TEST_MS);

/** Whether `pid` catches `signal` (its handler is installed: SigCgt in /proc/<pid>/status). */
function catches(pid: number, signal: number): boolean {
  try {
    const mask = /SigCgt:\s+([0-9a-f]+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "0";
    return (BigInt(`0x${mask}`) & (1n << BigInt(signal - 1))) !== 0n;
  } catch {
    return false;
  }
}

test("a spare that gets SIGTERM before its task exits 0 at once, saying nothing (its stdin still open)", async () => {
  const proc = Bun.spawn([await zotBinary(), "swarm-child"], { cwd: env.cwd, env: cleanEnv(env.home), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  try {
    proc.stdin.write(`${JSON.stringify({ type: "prepare", provider: "anthropic" })}\n`);
    await proc.stdin.flush();
    await waitFor(() => catches(proc.pid, 15), "the spare's SIGTERM handler");
    proc.kill("SIGTERM");
    // Without a task it must not wait for EOF (the parent's exit guard would wait out its grace).
    expect(await exitWithin(proc, 20_000)).toBe(0);
    expect(await new Response(proc.stdout).text()).toBe("");
  } finally {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}, TEST_MS);
