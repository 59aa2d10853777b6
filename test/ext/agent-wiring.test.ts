import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { AgentSession } from "../../src/agent/index.ts";
import { PermissionGate, type Confirmer } from "../../src/agent/permissions.ts";
import type { ExtensionManager } from "../../src/ext/manager.ts";
import { ToolRegistry } from "../../src/tools/index.ts";
import { TEST_MODEL, echoTool, toolResultsOf } from "../agent/fixtures.ts";
import { ScriptedClient, reply, text, toolCall } from "../agent/scripted-client.ts";
import { tempDir } from "../support/binary.ts";
import { bridgedSession, lifecycleExtension, readRecord, startedHost } from "../support/bridge-harness.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const running: ExtensionManager[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((m) => m.shutdown()));
});

describe("extensions wired into the agent", () => {
  test("deferred tools are invisible until activated, then present from the next request on", async () => {
    const { manager } = await startedHost([lifecycleExtension(tempDir(), "lazy", ["deferred=weather"])], running);
    const registry = new ToolRegistry([echoTool()]);
    for (const tool of manager.tools()) registry.register(tool);
    const client = new ScriptedClient([
      reply([toolCall("l1", "loader", {})]),
      reply([toolCall("w1", "weather", {})]),
      reply([text("done")]),
    ]);
    const session = new AgentSession({ client, model: TEST_MODEL, system: "s", tools: registry, cwd: "/" });
    await session.prompt("go");
    expect(client.requests.map((r) => r.toolNames)).toEqual([
      ["echo", "loader"],
      ["echo", "loader", "weather"],
      ["echo", "loader", "weather"],
    ]);
    expect(toolResultsOf(client.requests[2]!.messages.at(-1))).toEqual([{ call_id: "w1", is_error: false, text: "deferred ran" }]);
  });

  test("pre_compact / post_compact for every attempt: empty transcript, success", async () => {
    const root = tempDir();
    const record = join(root, "events.jsonl");
    const { manager } = await startedHost([lifecycleExtension(root, "watcher", ["events=pre_compact,post_compact", `record=${record}`])], running);
    const { session, bridge } = bridgedSession(manager, [reply([text("a")]), reply([text("b")]), reply([text("summary of it all")])], [], {
      compactionObserver: {
        onCompactionStart: (info) => bridge.compactionStarted(info),
        onCompactionEnd: (info) => bridge.compactionFinished({ ...info, error: info.error?.message }),
      },
    });
    expect((await session.compact()).status).toBe("failed");
    await session.prompt("first question");
    await session.prompt("second question");
    const done = await session.compact({ keepRecent: 1 });
    expect(done.status).toBe("completed");
    await manager.shutdown();
    const frames = readRecord(record).filter((f) => f.type === "event");
    expect(frames.map((f) => `${f.event}:${f.status ?? ""}`)).toEqual(["pre_compact:", "post_compact:failed", "pre_compact:", "post_compact:completed"]);
    expect(frames[0]).toMatchObject({ message_count: 0, token_estimate: 0 });
    expect(frames[1]!.error).toBeString();
    expect(frames[2]!.compaction_id).toBe(frames[3]!.compaction_id);
    expect(frames[2]).toMatchObject({ message_count: 4 });
    expect(frames[3]!.message_count).toBeLessThan(4);
  });

  test("--no-yolo gate: confirmation requested only when awaited; decisions carry user / remembered sources", async () => {
    const root = tempDir();
    const record = join(root, "events.jsonl");
    const { manager } = await startedHost(
      [lifecycleExtension(root, "auditor", ["events=tool_confirmation_requested,permission_decision", `record=${record}`])],
      running,
    );
    const answers = ["always_tool", "deny"] as const;
    const asked: string[] = [];
    const confirmer: Confirmer = {
      confirm: async (request) => {
        asked.push(`${request.toolName}:${request.preview}`);
        return answers[asked.length - 1]!;
      },
    };
    const other = { ...echoTool(), name: "other" };
    const { session } = bridgedSession(
      manager,
      [reply([toolCall("e1", "echo", { text: "one" }), toolCall("e2", "echo", { text: "two" }), toolCall("o1", "other", { path: "x.txt" })]), reply([text("ok")])],
      [echoTool(), other],
      { permissions: new PermissionGate({ confirmer }) },
    );
    await session.prompt("go");
    expect(asked).toEqual([`echo:${JSON.stringify({ text: "one" })}`, "other:x.txt"]);
    await manager.shutdown();
    const frames = readRecord(record).filter((f) => f.type === "event");
    expect(frames.map((f) => `${f.event}:${f.tool_id}:${f.decision ?? f.tool_preview}:${f.source ?? ""}`)).toEqual([
      `tool_confirmation_requested:e1:${JSON.stringify({ text: "one" })}:`,
      "permission_decision:e1:approved:user",
      "permission_decision:e2:approved:remembered",
      "tool_confirmation_requested:o1:x.txt:",
      "permission_decision:o1:denied:user",
    ]);
  });
});
