/**
 * extensions.md's subscription and interception frames (the guard in
 * test/fixtures/spec-examples/guard-py) through dist/zot in print mode:
 * the documented block / modified_args / replace_text responses take
 * effect as documented (the model sees the block reason as the tool
 * error; the tool runs the rewritten args; the user sees the replacement
 * text while the model keeps its original), a blocked turn fails the print
 * run, and the events arrive with the documented payload fields and in the
 * "Ordering, delivery, and privacy" sequence.
 */
import { expect, test } from "bun:test";
import { parseJsonLines, requestTexts, toolResultsSent, type ModeEnv } from "../modes/helpers.ts";
import { TEST_MS, startChat, waitIdle, useChatEnv } from "../modes/tui-chat.ts";
import { copyExample, frames, type Frame } from "./support.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

test("block, modified_args and replace_text do what extensions.md says; events in the documented order", async () => {
  const dir = copyExample(env.base, "guard-py", "guard");
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_rm", name: "bash", arguments: { command: "rm -rf /tmp/foo" } }] },
    { type: "tool_calls", calls: [{ id: "call_ls", name: "bash", arguments: { command: "ls" } }] },
    { type: "text", text: "here is your api key: sk-ant-123" },
  );
  const result = await env.run(["-p", "go", "--ext", dir, ...env.providerArgs()]);
  // Nothing but the note that says what the rewritten call really runs (docs/extensions.md).
  expect(result.stderr).toBe('zot: [guard] rewrote the arguments of bash; it runs with {"command":"echo GUARDED: ls"}\n');
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("[redacted]\n");
  expect(toolResultsSent(env.server.requests[1]).get("call_rm")).toBe('refused: matches danger pattern "rm -rf"');
  expect(toolResultsSent(env.server.requests[2]).get("call_ls")).toContain("GUARDED: ls");
  // The transcript keeps the model's original args.
  expect(requestTexts(env.server.requests[2])).toContain('"command":"ls"');

  const got = frames(dir);
  const events = got.filter((frame) => frame.type === "event" || frame.type === "event_intercept");
  const sequence = events.map((frame) => `${frame.type === "event" ? "" : "intercept:"}${String(frame.event)}`);
  // reference notes §4.2: the turn_start event goes out before the BeforeTurn hook (its interception).
  expect(sequence).toEqual([
    "session_start",
    "user_prompt_submit",
    "turn_start",
    "intercept:turn_start",
    "tool_call",
    "turn_end",
    "intercept:tool_call",
    "permission_decision",
    "tool_result",
    "turn_start",
    "intercept:turn_start",
    "tool_call",
    "turn_end",
    "intercept:tool_call",
    "permission_decision",
    "tool_result",
    "turn_start",
    "intercept:turn_start",
    "intercept:assistant_message",
    "assistant_message",
    "turn_end",
  ]);
  const notifications = got.filter((frame) => frame.type === "event");
  for (const frame of notifications) {
    expect(typeof frame.session_id).toBe("string");
    expect(frame.cwd).toBe(env.cwd);
    expect(typeof frame.sequence).toBe("number");
  }
  const sequences = notifications.map((frame) => frame.sequence as number);
  expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
  expect(new Set(sequences).size).toBe(sequences.length);

  const byEvent = (name: string): Frame[] => notifications.filter((frame) => frame.event === name);
  expect(byEvent("user_prompt_submit")[0]).toMatchObject({ text: "go" });
  expect(byEvent("turn_start").map((frame) => frame.step)).toEqual([1, 2, 3]);
  expect(byEvent("turn_end").map((frame) => frame.stop)).toEqual(["tool_use", "tool_use", "end"]);
  expect(byEvent("tool_call")[0]).toMatchObject({ tool_id: "call_rm", tool_name: "bash", tool_args: { command: "rm -rf /tmp/foo" } });
  expect(byEvent("assistant_message")[0]).toMatchObject({ text: "[redacted]" });
  const [blocked, rewritten] = byEvent("tool_result");
  expect(blocked).toMatchObject({ tool_id: "call_rm", tool_name: "bash", status: "blocked", executed: false, result: { is_error: true } });
  expect(rewritten).toMatchObject({ tool_id: "call_ls", tool_name: "bash", tool_args: { command: "echo GUARDED: ls" }, status: "completed", executed: true, result: { is_error: false } });
  const [denied, approved] = byEvent("permission_decision");
  expect(denied).toMatchObject({ tool_id: "call_rm", tool_name: "bash", decision: "denied", source: "policy", stage: "pre_execution" });
  expect(approved).toMatchObject({ tool_id: "call_ls", tool_name: "bash", decision: "approved", source: "yolo", stage: "pre_execution" });
  const intercepts = got.filter((frame) => frame.type === "event_intercept");
  expect(intercepts.find((frame) => frame.event === "turn_start")).toMatchObject({ step: 1 });
  expect(intercepts.find((frame) => frame.event === "assistant_message")).toMatchObject({ text: "here is your api key: sk-ant-123" });
  expect(intercepts.find((frame) => frame.event === "tool_call")).toMatchObject({ tool_id: "call_rm", tool_name: "bash", tool_args: { command: "rm -rf /tmp/foo" } });
});

test("a blocked turn_start fails the print run with the reason, before any model call", async () => {
  const dir = copyExample(env.base, "guard-py", "guard");
  env.server.enqueue({ type: "text", text: "never" });
  const result = await env.run(["-p", "go", "--ext", dir, ...env.providerArgs()], { env: { GUARD_BLOCK_TURNS: "1" } });
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr).toContain("outside business hours");
  expect(env.server.requests.length).toBe(0);
});

// The prompt is typed as soon as the editor is up, as a script driving the original would (it waited for its
// extensions before showing the editor): the guard, still starting then, must see and intercept that first call.
test("--no-yolo chat: tool_confirmation_requested after the interception, then the user's permission_decision", async () => {
  const dir = copyExample(env.base, "guard-py", "guard");
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_echo", name: "bash", arguments: { command: "echo confirmed-run" } }] },
    { type: "text", text: "ran it" },
  );
  const tui = await startChat(env, { args: ["--no-yolo", "--ext", dir] });
  tui.type("run echo");
  tui.press("enter");
  await tui.waitForText("allow this tool call?", "screen");
  tui.type("y");
  await tui.waitForText("ran it");
  await waitIdle(tui);
  expect(toolResultsSent(env.server.requests[1]).get("call_echo")).toContain("confirmed-run");
  expect(frames(dir).filter((frame) => frame.type === "event").slice(0, 3).map((frame) => frame.event)).toEqual(["session_start", "user_prompt_submit", "turn_start"]);
  const got = frames(dir).filter((frame) => frame.type === "event" || frame.type === "event_intercept");
  const after = got.slice(got.findIndex((frame) => frame.type === "event" && frame.event === "turn_end"));
  expect(after.slice(0, 5).map((frame) => `${frame.type === "event" ? "" : "intercept:"}${String(frame.event)}`)).toEqual([
    "turn_end",
    "intercept:tool_call",
    "tool_confirmation_requested",
    "permission_decision",
    "tool_result",
  ]);
  expect(after[2]).toMatchObject({ tool_id: "call_echo", tool_name: "bash" });
  expect(typeof after[2]?.tool_preview).toBe("string");
  expect(String(after[2]?.tool_preview)).toContain("echo confirmed-run");
  expect(after[3]).toMatchObject({ tool_id: "call_echo", decision: "approved", source: "user", stage: "pre_execution" });
}, TEST_MS);

test("JSON and RPC: the assistant_message event carries the replacement text; the next request keeps the original", async () => {
  const dir = copyExample(env.base, "guard-py", "guard");
  env.server.enqueue({ type: "text", text: "here is your api key: sk-ant-123" });
  const json = await env.run(["--json", "key?", "--ext", dir, ...env.providerArgs()]);
  expect(json.code).toBe(0);
  const message = parseJsonLines(json.stdout).find((line) => line.type === "assistant_message");
  expect(message?.content).toEqual([{ type: "text", text: "[redacted]" }]);

  env.server.enqueue({ type: "text", text: "here is your api key: sk-ant-456" }, { type: "text", text: "fine" });
  const rpc = await env.run(["rpc", "--ext", dir, ...env.providerArgs()], {
    stdin: '{"id":"a","type":"prompt","message":"key?"}\n{"id":"b","type":"prompt","message":"again"}\n',
  });
  expect(rpc.code).toBe(0);
  const messages = parseJsonLines(rpc.stdout).filter((line) => line.type === "assistant_message");
  expect(messages.map((line) => line.content)).toEqual([[{ type: "text", text: "[redacted]" }], [{ type: "text", text: "fine" }]]);
  expect(requestTexts(env.server.requests[2])).toContain("sk-ant-456");
});
