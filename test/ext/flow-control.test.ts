/**
 * Request flow control on real extension processes (behave.py): the reply
 * deadline starts when a call is sent, not while it waits in the host; a
 * cancelled waiting call sends nothing; a waiting call fails unsent when the
 * extension answers nothing for its deadline; a disconnect fails waiting
 * calls at once; slash commands do not wait behind a burst of tool calls;
 * a tool that calls back into its own extension (call_tool) cannot deadlock
 * on the slots its callers hold; an extension that stops reading is still
 * disconnected.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { RegisteredTool } from "../../src/ext/registry.ts";
import { MAX_IN_FLIGHT_REQUESTS } from "../../src/ext/request-flow.ts";
import { callExtensionTool } from "../../src/ext/tool-adapter.ts";
import type { ToolOutcome } from "../../src/tools/types.ts";
import { tempDir } from "../support/binary.ts";
import { reply, text, toolCall } from "../agent/scripted-client.ts";
import { toolResultsOf } from "../agent/fixtures.ts";
import { bridgedSession, lifecycleExtension, readRecord } from "../support/bridge-harness.ts";
import { behaveExtension, hostsShutDownAfterEach, waitFor } from "../support/extensions.ts";

const host = hostsShutDownAfterEach();
let root: string;
beforeEach(() => {
  root = tempDir("zot-flow-");
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function echoTool(extension: string): RegisteredTool {
  return { name: "py_echo", description: "", schema: {}, deferred: false, interactive: false, extension };
}

async function started(name: string, modes: readonly string[]) {
  const created = host([behaveExtension(join(root, "exts"), name, modes)], { home: join(root, "home"), cwd: root });
  await created.manager.start();
  const connection = created.manager.connection(name)!;
  expect(connection).toBeDefined();
  return { ...created, connection };
}

const texts = (outcome: ToolOutcome): string => outcome.content.map((block) => (block.type === "text" ? block.text : "")).join("");

describe("request flow control (real extensions)", () => {
  test("the reply deadline starts when a call is sent: calls that waited longer than it in the host still succeed", async () => {
    const { connection } = await started("waves", ["async-tool=0.5"]);
    const calls = MAX_IN_FLIGHT_REQUESTS * 6;
    const begun = Date.now();
    // Six waves of 0.5 s: the last calls wait about 2.5 s in the host, longer than their 2 s deadline.
    const outcomes = await Promise.all(
      Array.from({ length: calls }, (_, i) => callExtensionTool(connection, echoTool("waves"), { n: i }, { timeoutMs: 2_000 })),
    );
    expect(Date.now() - begun).toBeGreaterThanOrEqual(2_500);
    expect(outcomes.map(texts)).toEqual(Array.from({ length: calls }, (_, i) => `echo: {"n": ${i}}`));
  }, 30_000);

  test("cancelling a call that waits in the host sends nothing (no tool_call, no tool_cancel)", async () => {
    const record = join(root, "frames.jsonl");
    const cancels = join(root, "cancels.txt");
    const { connection } = await started("holder", ["async-tool=30", `record=${record}`, `cancel-log=${cancels}`]);
    const running = Array.from({ length: MAX_IN_FLIGHT_REQUESTS }, (_, i) => callExtensionTool(connection, echoTool("holder"), { n: i }, { timeoutMs: 60_000 }));
    const controller = new AbortController();
    const waiting = callExtensionTool(connection, echoTool("holder"), { n: "waiting" }, { signal: controller.signal });
    expect(await waitFor(() => readRecord(record).filter((frame) => frame.type === "tool_call").length === MAX_IN_FLIGHT_REQUESTS)).toBe(true);
    controller.abort();
    expect(await waiting).toMatchObject({ isError: true, status: "cancelled" });
    // A frame sent after the abort would arrive before this command's answer: nothing was sent.
    const probe = await connection.request({ type: "command_invoked", id: "probe", name: "greet" }, "command_response", { timeoutMs: 10_000 });
    expect(probe.type).toBe("command_response");
    const received = readRecord(record);
    expect(received.filter((frame) => frame.type === "tool_call").map((frame) => (frame.args as { n: unknown }).n)).toEqual(
      Array.from({ length: MAX_IN_FLIGHT_REQUESTS }, (_, i) => i),
    );
    expect(existsSync(cancels)).toBe(false);
    connection.kill();
    for (const outcome of await Promise.all(running)) expect(outcome.status).toBe("failed");
  }, 30_000);

  test("a waiting call fails unsent once the extension answered nothing for its deadline", async () => {
    const record = join(root, "frames.jsonl");
    const { connection } = await started("stuck", ["async-tool=30", `record=${record}`]);
    // Calls with no deadline (like interactive tools) hold every slot.
    const holding = Array.from({ length: MAX_IN_FLIGHT_REQUESTS }, (_, i) =>
      connection.request({ type: "tool_call", id: `hold-${i}`, name: "py_echo", args: {} }, "tool_result").catch(() => undefined),
    );
    const outcome = await callExtensionTool(connection, echoTool("stuck"), { n: "late" }, { timeoutMs: 300 });
    expect(outcome).toMatchObject({ isError: true, status: "timed_out" });
    expect(texts(outcome)).toMatch(/not sent: waited [\d.]+ s for a free request slot while the extension answered none of its 16 requests in flight/);
    expect(readRecord(record).some((frame) => frame.type === "tool_call" && JSON.stringify(frame.args).includes("late"))).toBe(false);
    connection.kill();
    await Promise.all(holding);
  }, 30_000);

  test("a crash fails every waiting call at once, long before any deadline", async () => {
    const { connection } = await started("crashy", ["crash-on-tool"]);
    const begun = Date.now();
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) => callExtensionTool(connection, echoTool("crashy"), { n: i }, { timeoutMs: 60_000 })),
    );
    expect(Date.now() - begun).toBeLessThan(30_000);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("failed");
      expect(texts(outcome)).toContain("extension disconnected: exited (status 7)");
    }
  }, 30_000);

  test("a slash command does not wait behind a burst of tool calls", async () => {
    const { manager, connection } = await started("busy", ["async-tool=30"]);
    const burst = Array.from({ length: 500 }, (_, i) => callExtensionTool(connection, echoTool("busy"), { n: i }, { timeoutMs: 60_000 }));
    const invoked = await manager.invokeCommand("greet", "there", { timeoutMs: 10_000 });
    expect(invoked.response).toMatchObject({ action: "display", display: "hello there from busy" });
    connection.kill();
    await Promise.all(burst);
  }, 30_000);

  test("an extension that stops reading is still disconnected, and the calls waiting for it fail at once", async () => {
    const { connection, ui } = await started("deaf", ["never-read"]);
    const waiting = Array.from({ length: 300 }, (_, i) => callExtensionTool(connection, echoTool("deaf"), { n: i }, { timeoutMs: 60_000 }));
    const pad = "p".repeat(32 * 1024);
    for (let i = 0; i < 5_000 && !connection.closed; i++) connection.send({ type: "event", event: "turn_start", step: i, pad });
    expect(connection.closed).toBe(true);
    expect(ui.notes.find((note) => note.level === "failed")?.message).toContain("outbound queue overflow");
    for (const outcome of await Promise.all(waiting)) expect(texts(outcome)).toContain("extension disconnected: stopped reading its stdin");
  }, 30_000);

  test("tools that call_tool back into their own extension never deadlock on the slots their callers hold", async () => {
    const dir = lifecycleExtension(join(root, "exts"), "relayer", ["call-tool", "deferred=hidden"]);
    const { manager } = host([dir], { home: join(root, "home"), cwd: root });
    await manager.start();
    const calls = MAX_IN_FLIGHT_REQUESTS * 3;
    // Every relay call holds a slot while its call_tool of "loader" (same extension) runs.
    const { session, client } = bridgedSession(
      manager,
      [reply(Array.from({ length: calls }, (_, i) => toolCall(`r${i}`, "relay", { target: "loader", args: {} }))), reply([text("done")])],
      [],
      { parallelTools: true },
    );
    await session.prompt("relay a lot");
    const results = toolResultsOf(client.requests[1]!.messages.at(-1)).map((result) => result.text);
    expect(results).toEqual(Array.from({ length: calls }, () => "relayed: enabled"));
  }, 30_000);
});
