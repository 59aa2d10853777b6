import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ExtensionManager } from "../../src/ext/manager.ts";
import { textOutcome } from "../../src/tools/types.ts";
import { defineTool, echoTool, toolResultsOf } from "../agent/fixtures.ts";
import { reply, text, toolCall } from "../agent/scripted-client.ts";
import { tempDir } from "../support/binary.ts";
import { bridgedSession, lifecycleExtension, readRecord, startedHostsShutDownAfterEach } from "../support/bridge-harness.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const startHost = startedHostsShutDownAfterEach();

/** Runs one model message of relay calls and returns the texts the model got back. */
async function relay(manager: ExtensionManager, calls: Record<string, unknown>[], tools = [echoTool()], parallelTools = false) {
  const { session, client } = bridgedSession(
    manager,
    [reply(calls.map((args, i) => toolCall(`r${i}`, "relay", args))), reply([text("done")])],
    tools,
    { parallelTools },
  );
  await session.prompt("relay");
  return { results: toolResultsOf(client.requests[1]!.messages.at(-1)).map((r) => r.text), session };
}

describe("call_tool", () => {
  test("concurrent calls with distinct ids; no transcript message; events carry origin_extension", async () => {
    const root = tempDir();
    const record = join(root, "observer.jsonl");
    const { manager } = await startHost([
      lifecycleExtension(root, "relayer", ["call-tool"]),
      lifecycleExtension(root, "observer", ["events=tool_call,tool_result,permission_decision", `record=${record}`]),
    ]);
    const slowEcho = defineTool("echo", async (args) => {
      await Bun.sleep(150);
      return textOutcome(`echo: ${String(args.text)}`);
    });
    const started = Date.now();
    const { results, session } = await relay(manager, [{ target: "echo", args: { text: "one" } }, { target: "echo", args: { text: "two" } }], [slowEcho], true);
    expect(results).toEqual(["relayed: echo: one", "relayed: echo: two"]);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(session.messages.length).toBe(4);
    await manager.shutdown();
    const nested = readRecord(record).filter((f) => f.tool_name === "echo");
    expect(nested.map((f) => `${f.event}:${f.origin_extension}`)).toEqual(expect.arrayContaining([
      "tool_call:relayer", "permission_decision:relayer", "tool_result:relayer",
    ]));
  });

  test("chains: at most four calls including the original; repeated names and unknown parents refused", async () => {
    const root = tempDir();
    const { manager } = await startHost([
      lifecycleExtension(root, "x1", ["chain=echo"]),
      lifecycleExtension(root, "x2", ["chain=hop_echo"]),
      lifecycleExtension(root, "x3", ["chain=hop_hop_echo"]),
      lifecycleExtension(root, "x4", ["chain=hop_hop_hop_echo"]),
      lifecycleExtension(root, "relayer", ["call-tool"]),
    ]);
    const deep = bridgedSession(manager, [reply([toolCall("d3", "hop_hop_hop_echo", { text: "deep" }), toolCall("d4", "hop_hop_hop_hop_echo", { text: "deeper" })]), reply([text("ok")])], [echoTool()]);
    await deep.session.prompt("go");
    const [three, four] = toolResultsOf(deep.client.requests[1]!.messages.at(-1)).map((r) => r.text);
    expect(three).toBe("relayed: relayed: relayed: echo: deep");
    expect(four).toContain("call chain limit reached (at most 4");
    const { results } = await relay(manager, [{ target: "relay", args: { target: "echo" } }, { target: "echo", args: { text: "x" }, parent: "tool-999999" }]);
    expect(results[0]).toContain('tool "relay" is already in this call chain');
    expect(results[1]).toContain('unknown or expired parent_id "tool-999999"');
  });

  test("without parent_id: refused while a host-invoked tool of that extension runs; capability required", async () => {
    const root = tempDir();
    const { manager } = await startHost([lifecycleExtension(root, "relayer", ["call-tool"]), lifecycleExtension(root, "nocap", ["call-tool", "no-cap", "relay-name=relay2"])]);
    const { results } = await relay(manager, [{ target: "echo", args: { text: "x" }, no_parent: true }]);
    expect(results[0]).toContain("call_tool without parent_id is refused while a host-invoked tool of this extension is running");
    const nocap = bridgedSession(manager, [reply([toolCall("n1", "relay2", { target: "echo", args: { text: "x" } })]), reply([text("ok")])], [echoTool()]);
    await nocap.session.prompt("go");
    expect(toolResultsOf(nocap.client.requests[1]!.messages.at(-1))[0]!.text).toBe('ERROR relayed: call_tool needs the "call_tool" capability in hello');
  });

  test("cancellation: call_tool_cancel and a cancelled parent end the nested call", async () => {
    const root = tempDir();
    const { manager } = await startHost([lifecycleExtension(root, "relayer", ["call-tool"])]);
    const seen: string[] = [];
    const waits = defineTool("waits", (_args, ctx) => new Promise((resolve) => {
      ctx.signal.addEventListener("abort", () => {
        seen.push("aborted");
        resolve(textOutcome("stopped", true, { status: "cancelled" }));
      }, { once: true });
    }));
    const { results } = await relay(manager, [{ target: "waits", cancel_after: 0.2 }], [waits]);
    expect(seen).toEqual(["aborted"]);
    expect(results[0]).toStartWith("ERROR relayed:");

    const controller = new AbortController();
    const parentCancelled = bridgedSession(manager, [reply([toolCall("p1", "relay", { target: "waits" })])], [waits]);
    const prompt = parentCancelled.session.prompt("go", { signal: controller.signal });
    await Bun.sleep(300);
    controller.abort();
    expect((await prompt).status).toBe("aborted");
    expect(seen).toEqual(["aborted", "aborted"]);
  });

  test("results are bounded to 256 KiB and marked truncated", async () => {
    const { manager } = await startHost([lifecycleExtension(tempDir(), "relayer", ["call-tool"])]);
    const big = defineTool("big", () => textOutcome("é".repeat(200 * 1024)));
    const { results } = await relay(manager, [{ target: "big" }], [big]);
    expect(results[0]).toEndWith(" [truncated]");
    const body = results[0]!.slice("relayed: ".length, -" [truncated]".length);
    expect(Buffer.byteLength(body)).toBe(256 * 1024);
  });
});
