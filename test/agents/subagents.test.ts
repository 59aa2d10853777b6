/**
 * Subagents end to end through dist/zot and the stand-in model server (the
 * children talk to the same server): parallel calls completing out of order
 * (results in the model's order, usage added to the parent's), a guard
 * extension blocking a child's bash, subagent_start/stop pairing and the
 * agent_id on the child's notifications, the --json / print-mode events, a
 * child crashing, a child hanging past its timeout, and SIGTERM mid-run
 * (children gone, statuses cancelled).
 */
import { expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { isAlive } from "../support/processes.ts";
import { MODES_FIXTURES, parseJsonLines, requestMessages, requestToolNames, toolResultsSent, useModeEnv, type ModeEnv } from "../modes/helpers.ts";
import { type Json, childOf, firstUserText, lifecycleExtension, recorded, swarmChildrenOf } from "./lifecycle.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

function agentCall(id: string, prompt: string, extra: Json = {}) {
  return { id, name: "agent", arguments: { description: `do ${prompt}`, prompt, ...extra } };
}



test("three parallel agent calls finishing out of order: results in the model's order, usage summed, events paired", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [agentCall("call_a", "task A"), agentCall("call_b", "task B"), agentCall("call_c", "task C")], usage: { input: 10, output: 5 } },
    { type: "text", text: "all three done", usage: { input: 20, output: 7 } },
  );
  // A is the slowest, C the fastest.
  env.server.enqueueFor(childOf("task A"), { type: "text", text: "answer A", delayMs: 300, usage: { input: 100, output: 1 } });
  env.server.enqueueFor(childOf("task B"), { type: "text", text: "answer B", delayMs: 100, usage: { input: 200, output: 2 } });
  env.server.enqueueFor(childOf("task C"), { type: "text", text: "answer C", usage: { input: 400, output: 4 } });
  const record = join(env.base, "frames.jsonl");
  const result = await env.run(["--json", "fan out", "--ext", lifecycleExtension(env.base, record), ...env.providerArgs()], { timeoutMs: 60_000 });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const events = parseJsonLines(result.stdout);

  // The tool results reach the model in the model's order, each the child's answer.
  const final = env.server.requests.find((request) => requestMessages(request).length === 3 && firstUserText(request.body) === "fan out");
  expect(final).toBeDefined();
  const results = toolResultsSent(final);
  expect([...results.keys()]).toEqual(["call_a", "call_b", "call_c"]);
  // Each result is the child's answer and its agent_id (for `resume`).
  const answer = (text: string | undefined) => text?.replace(/\n\n\[agent_id: agent_[0-9a-f]{12}\]$/, "");
  expect([results.get("call_a"), results.get("call_b"), results.get("call_c")].map(answer)).toEqual(["answer A", "answer B", "answer C"]);
  // The parent is offered `agent` (on by default); a child is not (one level of subagents).
  expect(requestToolNames(env.server.requests[0])).toContain("agent");
  const childRequests = env.server.requests.filter((request) => ["task A", "task B", "task C"].includes(firstUserText(request.body)));
  expect(childRequests).toHaveLength(3);
  for (const request of childRequests) expect(requestToolNames(request).sort()).toEqual(["bash", "edit", "read", "skill", "write"]);

  // Children ran concurrently and C finished first.
  const stops = events.filter((event) => event.type === "subagent_stop");
  const starts = events.filter((event) => event.type === "subagent_start");
  expect(starts).toHaveLength(3);
  expect(stops).toHaveLength(3);
  const toolOf = (event: Json) => event.tool_id;
  expect(stops.map(toolOf)[0]).toBe("call_c");
  expect(stops.map((event) => event.status)).toEqual(["completed", "completed", "completed"]);
  for (const start of starts) {
    const stop = stops.find((candidate) => candidate.agent_run_id === start.agent_run_id);
    expect(stop?.agent_id).toBe(start.agent_id);
    expect(start.name).toBe(start.agent_id);
  }
  // Child progress is tagged with agent_id; a child's own done never appears untagged.
  const childEvents = events.filter((event) => event.type === "subagent_event");
  expect(childEvents.some((event) => (event.event as Json).type === "assistant_message")).toBe(true);
  expect(new Set(childEvents.map((event) => event.agent_id))).toEqual(new Set(starts.map((event) => event.agent_id)));
  expect(events.filter((event) => event.type === "done")).toHaveLength(1);

  // The parent's totals include the children's usage (10+20 own, 700 children).
  const usages = events.filter((event) => event.type === "usage");
  const last = usages[usages.length - 1]?.cumulative as Json;
  expect(last.input).toBe(10 + 20 + 100 + 200 + 400);

  // Extensions: the parent's subagent_start/stop (paired, parent session id), the children's events tagged with agent_id.
  const frames = recorded(record).filter((frame) => frame.type === "event");
  const extStarts = frames.filter((frame) => frame.event === "subagent_start");
  const extStops = frames.filter((frame) => frame.event === "subagent_stop");
  expect(extStarts).toHaveLength(3);
  expect(extStops).toHaveLength(3);
  const parentSession = frames.find((frame) => frame.event === "session_start" && frame.agent_id === undefined)?.session_id;
  expect(parentSession).toBeString();
  for (const start of extStarts) {
    expect(Object.keys(start).sort()).toEqual(["agent_id", "agent_run_id", "cwd", "event", "name", "sequence", "session_id", "type"]);
    expect(start.session_id).toBe(parentSession);
    const stop = extStops.find((candidate) => candidate.agent_run_id === start.agent_run_id);
    expect(stop).toMatchObject({ agent_id: start.agent_id, name: start.agent_id, status: "completed", session_id: parentSession });
    expect(stop?.error).toBeUndefined();
    const childTurns = frames.filter((frame) => frame.event === "turn_start" && frame.agent_id === start.agent_id);
    expect(childTurns.length).toBeGreaterThan(0);
    expect(childTurns[0]?.session_id).not.toBe(parentSession);
  }

  // Each child has its own session file linked to the parent's.
  const childSessions = join(env.home, "agents", "sessions");
  const files = readdirSync(childSessions).flatMap((dir) => readdirSync(join(childSessions, dir)).filter((name) => name.endsWith(".jsonl")).map((name) => join(childSessions, dir, name)));
  expect(files).toHaveLength(3);
  for (const file of files) {
    const meta = (JSON.parse(readFileSync(file, "utf8").split("\n")[0] ?? "{}") as { meta: Json }).meta;
    expect(meta.parent).toBe(parentSession);
    expect(starts.map((event) => event.agent_id)).toContain(meta.agent_id);
  }
  // No child session in the cwd's own sessions (zot --continue would pick it).
  expect(env.sessionFiles()).toHaveLength(1);

  // zot agents lists the runs.
  const listed = await env.run(["agents"]);
  expect(listed.code).toBe(0);
  expect(listed.stdout.trim().split("\n")).toHaveLength(3);
  expect(listed.stdout).toContain("completed");
}, 90_000);

test("a guard extension of the parent blocks a child's bash; print mode shows one stderr line per start and stop", async () => {
  const guard = join(env.base, "guard");
  cpSync(join(MODES_FIXTURES, "guard"), guard, { recursive: true });
  writeFileSync(join(guard, "extension.json"), JSON.stringify({ name: "guard", exec: "./guard.py", args: ["deny-bash"], language: "python" }));
  env.server.enqueue({ type: "tool_calls", calls: [agentCall("call_x", "clean up")] }, { type: "text", text: "parent done" });
  env.server.enqueueFor(
    childOf("clean up"),
    { type: "tool_calls", calls: [{ id: "call_rm", name: "bash", arguments: { command: "touch made.txt" } }] },
    { type: "text", text: "bash was refused" },
  );
  const result = await env.run(["-p", "go", "--ext", guard, ...env.providerArgs()], { timeoutMs: 60_000 });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("parent done\n");
  expect(existsSync(join(env.cwd, "made.txt"))).toBe(false);
  const childSecond = env.server.requests.find((request) => firstUserText(request.body) === "clean up" && requestMessages(request).length === 3);
  expect(toolResultsSent(childSecond).get("call_rm")).toContain("bash is not allowed here");
  const lines = result.stderr.trim().split("\n");
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^zot: agent agent_[0-9a-f]{12} started: do clean up$/);
  expect(lines[1]).toMatch(/^zot: agent agent_[0-9a-f]{12} completed$/);
}, 90_000);

test("a child that crashes becomes a failed result; the parent goes on", async () => {
  env.server.enqueue({ type: "tool_calls", calls: [agentCall("call_crash", "crash now")] }, { type: "text", text: "noted" });
  // The child's bash kills the child zot itself.
  env.server.enqueueFor(childOf("crash now"), { type: "tool_calls", calls: [{ id: "call_kill", name: "bash", arguments: { command: "kill -KILL $PPID; sleep 5" } }] });
  const result = await env.run(["--json", "go", ...env.providerArgs()], { timeoutMs: 60_000 });
  expect(result.code).toBe(0);
  const events = parseJsonLines(result.stdout);
  const stop = events.find((event) => event.type === "subagent_stop");
  expect(stop?.status).toBe("failed");
  expect(String(stop?.error)).toContain("killed by SIGKILL");
  const final = env.server.requests[env.server.requests.length - 1];
  expect(toolResultsSent(final).get("call_crash")).toContain("failed");
}, 90_000);

test("a child asked for another provider's model fails naming it, instead of running this provider's default", async () => {
  env.server.enqueue({ type: "tool_calls", calls: [agentCall("call_model", "use gpt", { model: "gpt-4o" })] }, { type: "text", text: "noted" });
  const result = await env.run(["--json", "go", ...env.providerArgs()], { timeoutMs: 60_000 });
  expect(result.code).toBe(0);
  const stop = parseJsonLines(result.stdout).find((event) => event.type === "subagent_stop");
  expect(stop?.status).toBe("failed");
  expect(String(stop?.error)).toContain(`model "gpt-4o" is not one of anthropic's`);
  // The child never called the model: only the parent's two requests reached the server.
  expect(env.server.requests).toHaveLength(2);
}, 90_000);

test("a child that hangs past agent_timeout_ms is timed_out", async () => {
  env.server.enqueue({ type: "tool_calls", calls: [agentCall("call_slow", "hang")] }, { type: "text", text: "gave up" });
  env.server.enqueueFor(childOf("hang"), { type: "stall", text: "thinking" });
  const result = await env.run(["--json", "go", ...env.providerArgs()], { timeoutMs: 60_000, env: { ZOT_AGENT_TIMEOUT_MS: "1500" } });
  expect(result.code).toBe(0);
  const events = parseJsonLines(result.stdout);
  expect(events.find((event) => event.type === "subagent_stop")?.status).toBe("timed_out");
  const final = env.server.requests[env.server.requests.length - 1];
  expect(toolResultsSent(final).get("call_slow")).toContain("timed_out");
}, 90_000);

test("SIGTERM mid-run cancels every child: statuses cancelled, no child process left", async () => {
  env.server.enqueue({ type: "tool_calls", calls: [agentCall("call_1", "wait one"), agentCall("call_2", "wait two")] });
  env.server.enqueueFor(childOf("wait one"), { type: "stall" });
  env.server.enqueueFor(childOf("wait two"), { type: "stall" });
  const record = join(env.base, "frames.jsonl");
  const binary = await zotBinary();
  const proc = Bun.spawn([binary, "--json", "go", "--ext", lifecycleExtension(env.base, record), ...env.providerArgs()], {
    cwd: env.cwd, env: cleanEnv(env.home), stdin: "ignore", stdout: "pipe", stderr: "pipe",
  });
  const stdout = new Response(proc.stdout).text();
  const stderr = new Response(proc.stderr).text();
  try {
    // Both children are waiting on the model.
    const deadline = Date.now() + 30_000;
    const childRequests = () => env.server.requests.filter((request) => firstUserText(request.body).startsWith("wait ")).length;
    while (childRequests() < 2 && Date.now() < deadline) await Bun.sleep(50);
    expect(childRequests()).toBe(2);
    const children = recorded(record).filter((frame) => frame.event === "subagent_start");
    expect(children).toHaveLength(2);
    // This zot's children only (other tests' zots have swarm children too).
    const pids = swarmChildrenOf(proc.pid);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(143);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    const events = parseJsonLines(await stdout);
    expect(events.filter((event) => event.type === "subagent_stop").map((event) => event.status)).toEqual(["cancelled", "cancelled"]);
    const stops = recorded(record).filter((frame) => frame.event === "subagent_stop");
    expect(stops.map((frame) => frame.status)).toEqual(["cancelled", "cancelled"]);
    expect(await stderr).toContain("zot: interrupted");
  } finally {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}, 90_000);
