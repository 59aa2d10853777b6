import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { textOutcome } from "../../src/tools/types.ts";
import { defineTool, echoTool } from "../agent/fixtures.ts";
import { reply, text, toolCall } from "../agent/scripted-client.ts";
import { tempDir } from "../support/binary.ts";
import { bridgedSession, lifecycleExtension, readRecord, startedHostsShutDownAfterEach } from "../support/bridge-harness.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const startHost = startedHostsShutDownAfterEach();

describe("lifecycle events", () => {
  test("a multi-tool step produces the spec's sequence with strictly increasing sequence numbers", async () => {
    const root = tempDir();
    const record = join(root, "events.jsonl");
    const { manager } = await startHost([lifecycleExtension(root, "observer", ["events=all", `record=${record}`])]);
    const { session, bridge } = bridgedSession(
      manager,
      [reply([text("working"), toolCall("c1", "echo", { text: "a" }), toolCall("c2", "echo", { text: "b" })]), reply([text("all done")])],
      [echoTool()],
    );
    bridge.userPromptSubmit("do it");
    expect((await session.prompt("do it")).status).toBe("done");
    await bridge.sessionEnd("shutdown");
    await manager.shutdown();
    const frames = readRecord(record).filter((f) => f.type === "event");
    const names = frames.map((f) => (f.event === "permission_decision" || f.event === "tool_result" || f.event === "tool_call" ? `${f.event}:${f.tool_id}` : f.event));
    expect(names).toEqual([
      "session_start",
      "user_prompt_submit",
      "turn_start",
      "assistant_message",
      "tool_call:c1",
      "tool_call:c2",
      "turn_end",
      "permission_decision:c1",
      "tool_result:c1",
      "permission_decision:c2",
      "tool_result:c2",
      "turn_start",
      "assistant_message",
      "turn_end",
      "session_end",
    ]);
    const sequences = frames.map((f) => f.sequence as number);
    for (let i = 1; i < sequences.length; i++) expect(sequences[i]!).toBeGreaterThan(sequences[i - 1]!);
    for (const frame of frames) expect(frame).toMatchObject({ session_id: "session-test", cwd: "/project" });
    expect(frames.find((f) => f.event === "user_prompt_submit")).toMatchObject({ text: "do it", image_count: 0 });
    expect(frames.find((f) => f.event === "tool_result")).toMatchObject({
      tool_name: "echo", tool_args: { text: "a" }, status: "completed", executed: true,
      result: { content: [{ type: "text", text: "echo: a" }], is_error: false },
    });
    expect(frames.find((f) => f.event === "permission_decision")).toMatchObject({ decision: "approved", source: "yolo", stage: "pre_execution" });
    expect(frames.find((f) => f.event === "turn_end")).toMatchObject({ stop: "tool_use" });
    expect(frames.at(-1)).toMatchObject({ event: "session_end", reason: "shutdown" });
  });

  test("tool_result status: failed, blocked (tool-local refusal adds a denied decision), malformed args as tool_args_raw", async () => {
    const root = tempDir();
    const record = join(root, "events.jsonl");
    const { manager } = await startHost([lifecycleExtension(root, "observer", ["events=tool_result,permission_decision", `record=${record}`])]);
    const failing = defineTool("fails", () => textOutcome("boom", true));
    const refusing = defineTool("refuses", () => textOutcome("jailed: outside root", true, { status: "blocked" }));
    const { session } = bridgedSession(
      manager,
      [reply([toolCall("f1", "fails", {}), toolCall("r1", "refuses", { path: "/etc" }), toolCall("m1", "echo", "{not json")]), reply([text("ok")])],
      [failing, refusing, echoTool()],
    );
    await session.prompt("go");
    await manager.shutdown();
    const frames = readRecord(record).filter((f) => f.type === "event");
    const summary = frames.map((f) => `${f.event}:${f.tool_id}:${f.event === "tool_result" ? f.status : `${f.decision}/${f.source}/${f.stage}`}`);
    expect(summary).toEqual([
      "permission_decision:f1:approved/yolo/pre_execution",
      "tool_result:f1:failed",
      "permission_decision:r1:approved/yolo/pre_execution",
      "permission_decision:r1:denied/policy/tool_execution",
      "tool_result:r1:blocked",
      "tool_result:m1:failed",
    ]);
    expect(frames.find((f) => f.tool_id === "m1")).toMatchObject({ tool_args_raw: "{not json", executed: false });
    expect(frames.find((f) => f.tool_id === "m1")).not.toHaveProperty("tool_args");
    expect(frames.find((f) => f.tool_id === "r1" && f.event === "tool_result")).toMatchObject({ executed: true, tool_args: { path: "/etc" } });
  });

  test("a subscriber that never reads is disconnected and the turn still completes", async () => {
    const root = tempDir();
    const { manager, ui } = await startHost([lifecycleExtension(root, "deaf", ["events=all", "never-read"])]);
    const big = defineTool("big", () => textOutcome("x".repeat(250 * 1024)));
    const calls = Array.from({ length: 80 }, (_, i) => toolCall(`b${i}`, "big", {}));
    const { session } = bridgedSession(manager, [reply(calls), reply([text("finished")])], [big]);
    const started = Date.now();
    expect((await session.prompt("flood")).status).toBe("done");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(manager.connection("deaf")?.closed).toBe(true);
    expect(ui.notes.find((n) => n.level === "failed")?.message).toContain("outbound queue overflow");
  });
});
