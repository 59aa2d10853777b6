import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { defineTool, echoTool, type ToolCallLog, toolResultsOf } from "../agent/fixtures.ts";
import { reply, text, toolCall } from "../agent/scripted-client.ts";
import { tempDir } from "../support/binary.ts";
import { bridgedSession, lifecycleExtension, readRecord, startedHostsShutDownAfterEach } from "../support/bridge-harness.ts";
import { FIXTURES } from "../support/extensions.ts";
import { textOutcome } from "../../src/tools/types.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const startHost = startedHostsShutDownAfterEach();

const TS_LIFECYCLE = join(FIXTURES, "ts-lifecycle");

describe("interception chains across three extensions (Python, TypeScript, Python)", () => {
  test("tool_call args chain in load order; the tool sees the result; the transcript keeps the original", async () => {
    const root = tempDir();
    const record = join(root, "third.jsonl");
    const { manager } = await startHost([
      lifecycleExtension(root, "first", ["intercept=tool_call", "rewrite=text:A"]),
      TS_LIFECYCLE,
      lifecycleExtension(root, "third", ["intercept=tool_call", "rewrite=other:C", "events=tool_result", `record=${record}`]),
    ]);
    const log: ToolCallLog[] = [];
    const { session } = bridgedSession(manager, [reply([toolCall("t1", "echo", { text: "orig" })]), reply([text("ok")])], [echoTool(log)]);
    await session.prompt("go");
    expect(log[0]!.args).toEqual({ text: "A+ts", other: "C" });
    const call = session.messages.find((m) => m.role === "assistant")!.content.find((b) => b.type === "tool_call");
    expect(call).toMatchObject({ arguments: JSON.stringify({ text: "orig" }) });
    await manager.shutdown();
    const frames = readRecord(record);
    expect(frames.find((f) => f.type === "event_intercept")).toMatchObject({ event: "tool_call", tool_id: "t1", tool_name: "echo", tool_args: { text: "A+ts" } });
    expect(frames.find((f) => f.event === "tool_result" && f.type === "event")).toMatchObject({ tool_args: { text: "A+ts", other: "C" } });
  });

  test("the first block wins and later interceptors are not consulted; the model sees the reason", async () => {
    const root = tempDir();
    const third = join(root, "third.jsonl");
    const { manager } = await startHost([
      lifecycleExtension(root, "first", ["intercept=tool_call", "rewrite=text:rm -rf /"]),
      lifecycleExtension(root, "second", ["intercept=tool_call", "block-tool=rm -rf", "events=permission_decision", `record=${join(root, "second.jsonl")}`]),
      lifecycleExtension(root, "third", ["intercept=tool_call", "block-tool=rm", `record=${third}`]),
    ]);
    const log: ToolCallLog[] = [];
    const { session, client } = bridgedSession(manager, [reply([toolCall("t1", "echo", { text: "hi" })]), reply([text("ok")])], [echoTool(log)]);
    await session.prompt("go");
    expect(log).toEqual([]);
    expect(toolResultsOf(client.requests[1]!.messages.at(-1))).toEqual([{ call_id: "t1", is_error: true, text: "second refused rm -rf" }]);
    await manager.shutdown();
    expect(readRecord(third).some((f) => f.type === "event_intercept")).toBe(false);
    expect(readRecord(join(root, "second.jsonl")).find((f) => f.event === "permission_decision")).toMatchObject({
      tool_id: "t1", decision: "denied", source: "policy", stage: "pre_execution", reason: "second refused rm -rf",
    });
  });

  test("modified_args that is not a JSON object is ignored", async () => {
    const root = tempDir();
    const { manager } = await startHost([lifecycleExtension(root, "bad", ["intercept=tool_call", "bad-rewrite"])]);
    const log: ToolCallLog[] = [];
    const { session } = bridgedSession(manager, [reply([toolCall("t1", "echo", { text: "keep" })]), reply([text("ok")])], [echoTool(log)]);
    await session.prompt("go");
    expect(log[0]!.args).toEqual({ text: "keep" });
  });

  test("assistant text replacements chain; the transcript keeps the original; a block hides the message and tells the user why", async () => {
    const root = tempDir();
    const { manager } = await startHost([lifecycleExtension(root, "first", ["intercept=assistant_message", "replace=SECRET:[redacted]"]), TS_LIFECYCLE]);
    const { session, events } = bridgedSession(manager, [reply([text("the SECRET is out")])], []);
    await session.prompt("tell me");
    const shown = events.find((e) => e.type === "assistant_message");
    expect(shown && shown.type === "assistant_message" && shown.content).toEqual([{ type: "text", text: "the [redacted] is out (ts)" }]);
    expect(session.messages.at(-1)!.content).toEqual([{ type: "text", text: "the SECRET is out" }]);

    const { manager: other } = await startHost([lifecycleExtension(tempDir(), "hider", ["intercept=assistant_message", "block-assistant"])]);
    const hidden = bridgedSession(other, [reply([text("nope")])], []);
    await hidden.session.prompt("x");
    expect(hidden.events.some((e) => e.type === "assistant_message")).toBe(false);
    expect(hidden.events.find((e) => e.type === "assistant_hidden")).toEqual({ type: "assistant_hidden", reason: "hidden by hider", by: "hider" });
    expect(hidden.session.messages.at(-1)!.content).toEqual([{ type: "text", text: "nope" }]);
  });

  test("turn_start block: no model request, the reason reaches the user", async () => {
    const { manager } = await startHost([lifecycleExtension(tempDir(), "gate", ["intercept=turn_start", "block-turn=outside business hours"])]);
    const { session, client, events } = bridgedSession(manager, [reply([text("never")])], []);
    const outcome = await session.prompt("hi");
    expect(outcome).toEqual({ status: "blocked", reason: "outside business hours" });
    expect(client.requests.length).toBe(0);
    expect(events.find((e) => e.type === "turn_end")).toMatchObject({ stop: "error", error: "outside business hours" });
  });

  test("system prompt replacement chains in load order, starts from the base on rebuild, and ignores invalid values", async () => {
    const root = tempDir();
    const record = join(root, "a.jsonl");
    const { manager, ui } = await startHost([
      lifecycleExtension(root, "a", ["intercept=before_agent_start", "append-prompt= [A]", `record=${record}`]),
      TS_LIFECYCLE,
      lifecycleExtension(root, "bad", ["intercept=before_agent_start", "bad-prompt"]),
      lifecycleExtension(root, "c", ["intercept=before_agent_start", "append-prompt= [C]"]),
    ]);
    const { session, client } = bridgedSession(manager, [reply([text("1")]), reply([text("2")]), reply([text("3")])], []);
    await session.prompt("one");
    await session.prompt("two");
    expect(client.requests[0]!.system).toBe("base prompt [A] [ts] [C]");
    expect(client.requests[1]!.system).toBe("base prompt [A] [ts] [C]");
    session.resetSystemPrompt();
    await session.prompt("three");
    expect(client.requests[2]!.system).toBe("base prompt [A] [ts] [C]");
    const intercepts = readRecord(record).filter((f) => f.type === "event_intercept");
    expect(intercepts.length).toBe(2);
    expect(intercepts.map((f) => f.system_prompt)).toEqual(["base prompt", "base prompt"]);
    expect(intercepts[0]!.agent_run_id).not.toBe(intercepts[1]!.agent_run_id);
    expect(intercepts[0]).toMatchObject({ session_id: "session-test", cwd: "/project", provider: "anthropic", model: "test-model" });
    expect(ui.notes.filter((n) => n.extension === "bad")).toEqual([
      { extension: "bad", level: "host-warning", message: "before_agent_start: system_prompt is not a string; system prompt kept" },
      { extension: "bad", level: "host-warning", message: "before_agent_start: system_prompt is not a string; system prompt kept" },
    ]);
  });

  test("tool_result interception (zot addition) redacts what the model sees", async () => {
    const { manager } = await startHost([lifecycleExtension(tempDir(), "redactor", ["intercept=tool_result", "redact=hunter2"])]);
    const leaky = defineTool("leaky", () => textOutcome("password=hunter2"));
    const { session, client } = bridgedSession(manager, [reply([toolCall("l1", "leaky", {})]), reply([text("ok")])], [leaky]);
    await session.prompt("go");
    expect(toolResultsOf(client.requests[1]!.messages.at(-1))[0]!.text).toBe("password=[redacted]");
  });
});

describe("guards that never answer", () => {
  test("allowed after 5 s by default; with on_timeout deny the call is denied and the decision says so", async () => {
    const root = tempDir();
    const record = join(root, "deny.jsonl");
    const { manager: lenient } = await startHost([lifecycleExtension(root, "silent", ["intercept=tool_call", "silent"])]);
    const { manager: strict } = await startHost([
      lifecycleExtension(root, "strict", ["intercept=tool_call", "silent", "on-timeout=deny", "events=permission_decision", `record=${record}`]),
    ]);
    const allowLog: ToolCallLog[] = [];
    const denyLog: ToolCallLog[] = [];
    const allowed = bridgedSession(lenient, [reply([toolCall("a1", "echo", { text: "x" })]), reply([text("ok")])], [echoTool(allowLog)]);
    const denied = bridgedSession(strict, [reply([toolCall("d1", "echo", { text: "x" })]), reply([text("ok")])], [echoTool(denyLog)]);
    const started = Date.now();
    await Promise.all([allowed.session.prompt("go"), denied.session.prompt("go")]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(allowLog.length).toBe(1);
    expect(denyLog.length).toBe(0);
    expect(toolResultsOf(denied.client.requests[1]!.messages.at(-1))[0]!.text).toContain("fails closed");
    await strict.shutdown();
    expect(readRecord(record).find((f) => f.event === "permission_decision")).toMatchObject({ tool_id: "d1", decision: "denied", source: "policy" });
  }, 20_000);
});
