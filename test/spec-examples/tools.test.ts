/**
 * extensions.md's tool frames (test/fixtures/spec-examples/tools-py)
 * through dist/zot: a deferred tool is hidden until a loader's
 * activate_tools result names it, then the model can call it; the
 * interactive tool is refused with a tool error in print mode; the
 * before_agent_start reply replaces the system prompt exactly (print, JSON
 * and RPC); notify goes to stderr as `[<ext>] <level>: <message>` in print
 * mode and to ext_notify / ext_clear_notes events in RPC mode.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { TEST_MS, startChat, waitIdle, useChatEnv } from "../modes/tui-chat.ts";
import { parseJsonLines, requestToolNames, toolResultsSent, type ModeEnv } from "../modes/helpers.ts";
import { copyExample } from "./support.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

function systemOf(index: number): unknown {
  const system = (env.server.requests[index]?.body as { system?: unknown } | undefined)?.system;
  if (Array.isArray(system)) return system.map((block) => (block as { text?: string }).text ?? "").join("");
  return system;
}

test("deferred weather appears after activate_tools; ask_user refused headless; the system prompt replaced; notify on stderr", async () => {
  const dir = copyExample(env.base, "tools-py", "tools");
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_ask", name: "ask_user", arguments: { question: "?" } }] },
    { type: "tool_calls", calls: [{ id: "call_load", name: "load_tools", arguments: {} }] },
    { type: "tool_calls", calls: [{ id: "call_w", name: "weather", arguments: { city: "Berlin" } }] },
    { type: "text", text: "foggy" },
  );
  const result = await env.run(["-p", "weather?", "--ext", dir, ...env.providerArgs()]);
  expect(result.stdout).toBe("foggy\n");
  expect(result.code).toBe(0);
  expect(result.stderr).toContain("[tools] info: refreshed cache (12 entries)");

  expect(requestToolNames(env.server.requests[0])).not.toContain("weather");
  expect(requestToolNames(env.server.requests[0])).toContain("load_tools");
  expect(requestToolNames(env.server.requests[0])).toContain("ask_user");
  const asked = env.server.requests[1]?.body as { messages: { content: unknown }[] };
  expect(JSON.stringify(asked.messages.at(-1))).toContain('"is_error":true');
  expect(toolResultsSent(env.server.requests[2]).get("call_load")).toBe("Enabled weather lookup");
  expect(requestToolNames(env.server.requests[2])).toContain("weather");
  expect(toolResultsSent(env.server.requests[3]).get("call_w")).toBe("Berlin: 16°C, fog");
  for (let i = 0; i < 4; i += 1) expect(systemOf(i)).toBe("The complete replacement system prompt");
});

test("before_agent_start in JSON mode; RPC gets ext_notify and ext_clear_notes", async () => {
  const dir = copyExample(env.base, "tools-py", "tools");
  env.server.enqueue({ type: "text", text: "plain" });
  const json = await env.run(["--json", "hi", "--ext", dir, ...env.providerArgs()]);
  expect(json.code).toBe(0);
  expect(systemOf(0)).toBe("The complete replacement system prompt");
  expect(parseJsonLines(json.stdout).at(-1)).toEqual({ type: "done" });

  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_load", name: "load_tools", arguments: {} }] },
    { type: "tool_calls", calls: [{ id: "call_w", name: "weather", arguments: { city: "Berlin" } }] },
    { type: "text", text: "foggy" },
  );
  const rpc = await env.run(["rpc", "--ext", join(env.base, "tools"), ...env.providerArgs()], {
    stdin: '{"id":"p","type":"prompt","message":"weather?"}\n',
  });
  expect(rpc.code).toBe(0);
  const lines = parseJsonLines(rpc.stdout);
  expect(lines).toContainEqual({ type: "ext_notify", extension: "tools", level: "info", message: "refreshed cache (12 entries)" });
  const notifyAt = lines.findIndex((line) => line.type === "ext_notify");
  const clearAt = lines.findIndex((line) => line.type === "ext_clear_notes");
  expect(clearAt).toBeGreaterThan(notifyAt);
  expect(lines[clearAt]).toMatchObject({ type: "ext_clear_notes", extension: "tools" });
  expect(systemOf(1)).toBe("The complete replacement system prompt");
  expect(lines.at(-1)).toEqual({ type: "done" });
});

test("chat: a prompt typed at once already gets the replaced system prompt (the extension joins first)", async () => {
  const dir = copyExample(env.base, "tools-py", "tools");
  env.server.enqueue({ type: "text", text: "answered" });
  const tui = await startChat(env, { args: ["--ext", dir] });
  tui.type("hi");
  tui.press("enter");
  await tui.waitForText("answered");
  await waitIdle(tui);
  expect(systemOf(0)).toBe("The complete replacement system prompt");
}, TEST_MS);
