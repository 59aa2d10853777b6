/**
 * Resuming a subagent by agent_id, end to end through dist/zot and the
 * stand-in model server: a first zot runs an agent (its result names the
 * agent_id), a second zot resumes it with `resume: <agent_id>`: the child
 * continues the same session file (the model sees the earlier exchange), the
 * run has the same agent_id and a new agent_run_id, extensions see one
 * subagent_start/stop pair for it and nothing replayed from disk, and the
 * record counts two runs. Refusals (unknown id, a path as id) are error
 * results naming the problem.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { parseJsonLines, requestMessages, toolResultsSent, useModeEnv, type ModeEnv } from "../modes/helpers.ts";
import { type Json, lifecycleExtension, recorded } from "./lifecycle.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));


function userTexts(body: unknown): string[] {
  const messages = (body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
  return messages
    .filter((message) => message.role === "user")
    .map((message) => (typeof message.content === "string" ? message.content : Array.isArray(message.content) ? message.content.map((block) => (block as { text?: string }).text ?? "").join("") : ""));
}



test("resume by agent_id continues the child's session with a new agent_run_id; nothing is replayed", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_1", name: "agent", arguments: { description: "research", prompt: "find the answer" } }] },
    { type: "text", text: "first parent done" },
  );
  env.server.enqueueFor((body) => userTexts(body)[0] === "find the answer", { type: "text", text: "it is 42" });
  const first = await env.run(["--json", "start", ...env.providerArgs()], { timeoutMs: 60_000 });
  expect(first.code).toBe(0);
  const firstStart = parseJsonLines(first.stdout).find((event) => event.type === "subagent_start");
  const agentId = String(firstStart?.agent_id);
  const firstResult = toolResultsSent(env.server.requests[env.server.requests.length - 1]).get("call_1");
  expect(firstResult).toBe(`it is 42\n\n[agent_id: ${agentId}]`);

  // A zot killed mid-run leaves its record "running" but holds no lock: still resumable.
  const recordPath = join(env.home, "agents", "runs", `${agentId}.json`);
  writeFileSync(recordPath, JSON.stringify({ ...(JSON.parse(readFileSync(recordPath, "utf8")) as Json), status: "running" }));

  // A second zot (another parent conversation) resumes it.
  const record = join(env.base, "frames.jsonl");
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_2", name: "agent", arguments: { description: "follow up", prompt: "why 42?", resume: agentId } }] },
    { type: "text", text: "second parent done" },
  );
  env.server.enqueueFor((body) => userTexts(body).includes("why 42?"), { type: "text", text: "because" });
  const second = await env.run(["--json", "again", "--ext", lifecycleExtension(env.base, record), ...env.providerArgs()], { timeoutMs: 60_000 });
  expect(second.stderr).toBe("");
  expect(second.code).toBe(0);
  const events = parseJsonLines(second.stdout);
  const start = events.find((event) => event.type === "subagent_start");
  const stop = events.find((event) => event.type === "subagent_stop");
  expect(start?.agent_id).toBe(agentId);
  expect(start?.agent_run_id).not.toBe(firstStart?.agent_run_id);
  expect(stop).toMatchObject({ agent_id: agentId, agent_run_id: start?.agent_run_id, status: "completed" });

  // The resumed child's request holds the earlier exchange: the same session continued.
  const resumed = env.server.requests.find((request) => userTexts(request.body).includes("why 42?"));
  const messages = requestMessages(resumed);
  expect(userTexts(resumed?.body)).toEqual(["find the answer", "why 42?"]);
  expect(JSON.stringify(messages)).toContain("it is 42");
  expect(toolResultsSent(env.server.requests[env.server.requests.length - 1]).get("call_2")).toBe(`because\n\n[agent_id: ${agentId}]`);

  // Extensions saw exactly one pair, the resumed run's: the record on disk replayed nothing.
  const frames = recorded(record).filter((frame) => frame.type === "event" && String(frame.event).startsWith("subagent_"));
  expect(frames.map((frame) => [frame.event, frame.agent_id, frame.agent_run_id])).toEqual([
    ["subagent_start", agentId, start?.agent_run_id],
    ["subagent_stop", agentId, start?.agent_run_id],
  ]);

  // One record, two runs, the same session file.
  const listed = await env.run(["agents", "--json"]);
  const records = JSON.parse(listed.stdout) as Json[];
  expect(records).toHaveLength(1);
  expect(records[0]).toMatchObject({ agent_id: agentId, agent_run_id: start?.agent_run_id, status: "completed", runs: 2, prompt: "why 42?" });
  const text = await env.run(["agents"]);
  expect(text.stdout).toContain(`${agentId}  completed`);
}, 120_000);

test("resume of an unknown agent or of a path is an error result naming the problem; no child starts", async () => {
  env.server.enqueue(
    {
      type: "tool_calls",
      calls: [
        { id: "call_u", name: "agent", arguments: { description: "x", prompt: "p", resume: "agent_000000000000" } },
        { id: "call_p", name: "agent", arguments: { description: "x", prompt: "p", resume: "../../etc/passwd" } },
      ],
    },
    { type: "text", text: "ok" },
  );
  const result = await env.run(["--json", "go", ...env.providerArgs()], { timeoutMs: 60_000 });
  expect(result.code).toBe(0);
  const results = toolResultsSent(env.server.requests[env.server.requests.length - 1]);
  expect(results.get("call_u")).toContain("cannot resume: no subagent run recorded as agent_000000000000");
  expect(results.get("call_p")).toContain('cannot resume: "../../etc/passwd" is not an agent id');
  expect(parseJsonLines(result.stdout).filter((event) => event.type === "subagent_start")).toHaveLength(0);
}, 60_000);

test("resume of an agent another zot is running (its session locked) is refused; its record is left alone", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_1", name: "agent", arguments: { description: "research", prompt: "find it" } }] },
    { type: "text", text: "done" },
  );
  env.server.enqueueFor((body) => userTexts(body)[0] === "find it", { type: "text", text: "found" });
  expect((await env.run(["-p", "start", ...env.providerArgs()], { timeoutMs: 60_000 })).code).toBe(0);
  const [record] = JSON.parse((await env.run(["agents", "--json"])).stdout) as Json[];
  const agentId = String(record?.agent_id);
  const sessionPath = String(record?.session_path);

  // Another zot holds the child's session file (a -p on it, waiting on the model).
  env.server.enqueueFor((body) => userTexts(body).includes("hold it"), { type: "stall" });
  const holder = Bun.spawn([await zotBinary(), "-p", "hold it", "--session", sessionPath, ...env.providerArgs()], {
    cwd: env.cwd, env: cleanEnv(env.home), stdin: "ignore", stdout: "ignore", stderr: "ignore",
  });
  try {
    const deadline = Date.now() + 30_000;
    while (!env.server.requests.some((request) => userTexts(request.body).includes("hold it")) && Date.now() < deadline) await Bun.sleep(50);
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "call_2", name: "agent", arguments: { description: "again", prompt: "more", resume: agentId } }] },
      { type: "text", text: "ok" },
    );
    const result = await env.run(["--json", "go", ...env.providerArgs()], { timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    expect(toolResultsSent(env.server.requests[env.server.requests.length - 1]).get("call_2")).toContain(`cannot resume: agent ${agentId} is running in another zot`);
    expect(parseJsonLines(result.stdout).filter((event) => event.type === "subagent_start")).toHaveLength(0);
    const [after] = JSON.parse((await env.run(["agents", "--json"])).stdout) as Json[];
    expect(after).toEqual(record as Json);
  } finally {
    holder.kill("SIGKILL");
    await holder.exited;
  }
}, 90_000);
