/**
 * extensions.md's command_response actions and one-way frames (the /demo
 * command of test/fixtures/spec-examples/commands-py) through dist/zot's
 * chat screen: display, insert, notify + clear_notes, error, call_tool
 * (a skill the extension ships), the Todos panel (open_panel, panel_key,
 * panel_render, panel_close both ways), prompt, submit, and tool_prompt
 * (the skill shortcut recorded as a tool call + result before the turn).
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TuiPty } from "../support/tui-pty.ts";
import { requestMessages, toolResultsSent, type ModeEnv } from "../modes/helpers.ts";
import { PROMPT, TEST_MS, rowsWith, startChat, waitIdle, useChatEnv } from "../modes/tui-chat.ts";
import { copyExample, frames, waitForCommand } from "./support.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

function has(tui: TuiPty, text: string): boolean {
  return rowsWith(tui.screen.screen(), text).length > 0;
}

async function demo(tui: TuiPty, action: string): Promise<void> {
  tui.type(`/demo ${action}`);
  tui.press("enter");
}

test("display, insert, notify/clear_notes, error, call_tool and the panel", async () => {
  const dir = copyExample(env.base, "commands-py", "demo");
  const tui = await startChat(env, { args: ["--ext", dir] });
  await waitForCommand(tui, "demo");

  await demo(tui, "display");
  await tui.waitForText("displayed by demo", "screen");

  await demo(tui, "insert");
  await tui.waitFor(() => tui.screen.screen().some((row) => row.startsWith(`${PROMPT} inserted by demo`)), "the insert in the editor");
  tui.press("ctrl+u");

  await demo(tui, "notify");
  await tui.waitForText("[demo] refreshed cache (12 entries)", "screen");
  await demo(tui, "clear");
  await tui.waitFor(() => !has(tui, "refreshed cache"), "clear_notes to remove the note");

  await demo(tui, "error");
  await tui.waitForText("demo failed on purpose", "screen");

  await demo(tui, "calltool");
  await tui.waitForText("call_tool skill is_error=False: # Skill: example", "screen");
  const reply = frames(dir).find((frame) => frame.type === "tool_result" && frame.id === "request-1");
  expect(reply).toMatchObject({ name: "skill", is_error: false });
  expect(JSON.stringify(reply?.content)).toContain("EXAMPLE SKILL BODY");

  await demo(tui, "open_panel");
  await tui.waitForText("□ ship panel api", "screen");
  expect(has(tui, "Todos")).toBe(true);
  expect(has(tui, "↑/↓ navigate - a add - x complete - esc close")).toBe(true);
  tui.press("down");
  tui.type("x");
  await tui.waitForText("✓ ship panel api", "screen");
  tui.type("q");
  await tui.waitFor(() => !has(tui, "ship panel api"), "the extension's panel_close to close the panel");
  const keys = frames(dir).filter((frame) => frame.type === "panel_key");
  expect(keys.slice(0, 3)).toEqual([
    { type: "panel_key", panel_id: "todos-main", key: "down" },
    { type: "panel_key", panel_id: "todos-main", key: "rune", text: "x" },
    { type: "panel_key", panel_id: "todos-main", key: "rune", text: "q" },
  ]);

  await demo(tui, "open_panel");
  await tui.waitForText("□ ship panel api", "screen");
  tui.press("escape");
  await tui.waitFor(() => !has(tui, "ship panel api"), "Esc to close the panel");
  await tui.waitFor(() => frames(dir).some((frame) => frame.type === "panel_close"), "panel_close sent to the extension");
  expect(frames(dir).find((frame) => frame.type === "panel_close")).toEqual({ type: "panel_close", panel_id: "todos-main" });
  // Ctrl+C closes it too (and does not count toward exiting zot).
  await demo(tui, "open_panel");
  await tui.waitForText("□ ship panel api", "screen");
  tui.press("ctrl+c");
  await tui.waitFor(() => !has(tui, "ship panel api"), "Ctrl+C to close the panel");
  await tui.waitFor(() => frames(dir).filter((frame) => frame.type === "panel_close").length === 2, "a second panel_close");
  // None of it reached the model.
  expect(env.server.requests.length).toBe(0);
}, TEST_MS);

test("prompt, submit and tool_prompt reach the model as documented", async () => {
  const dir = copyExample(env.base, "commands-py", "demo");
  env.server.enqueue({ type: "text", text: "answer one" }, { type: "text", text: "answer two" }, { type: "text", text: "answer three" });
  const tui = await startChat(env, { args: ["--ext", dir] });
  await waitForCommand(tui, "demo");

  await demo(tui, "prompt");
  await tui.waitForText("answer one");
  await waitIdle(tui);
  await demo(tui, "submit");
  await tui.waitForText("answer two");
  await waitIdle(tui);
  await demo(tui, "tool_prompt");
  await tui.waitForText("answer three");
  await waitIdle(tui);

  expect(JSON.stringify(requestMessages(env.server.requests[0]))).toContain("Show today's weather for Berlin in one line.");
  expect(JSON.stringify(requestMessages(env.server.requests[1]))).toContain("Summarize the selected workspace.");
  const third = requestMessages(env.server.requests[2]);
  const tail = third.slice(-3);
  // extensions.md: the prompt is submitted, the tool runs, the call + result pair is recorded, then the model turn.
  expect(tail.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
  expect(JSON.stringify(tail[0])).toContain("and push");
  expect(JSON.stringify(tail[1])).toContain('"name":"skill"');
  expect(JSON.stringify(tail[1])).toContain("developer:commit");
  expect([...toolResultsSent(env.server.requests[2]).values()].join()).toContain("COMMIT SKILL BODY");
}, TEST_MS);

test("print mode: tool_prompt as the first thing in a session sends prompt, call, result (the transcript opens with the user)", async () => {
  const dir = copyExample(env.base, "commands-py", "demo");
  env.server.enqueue({ type: "text", text: "pushed" });
  const result = await env.run(["-p", "/demo tool_prompt", "--ext", dir, ...env.providerArgs()]);
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe("pushed\n");
  const messages = requestMessages(env.server.requests[0]);
  expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
  expect(JSON.stringify(messages[0])).toContain("and push");
  expect(JSON.stringify(messages[1])).toContain('"name":"skill"');
  expect(JSON.stringify(messages[2])).toContain("COMMIT SKILL BODY");
  // The session file keeps the same order.
  const [file] = env.sessionFiles();
  const roles = readFileSync(file ?? "", "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, unknown>).filter((row) => row.type === "message").map((row) => (row.message as { role: string }).role);
  expect(roles.slice(0, 3)).toEqual(["user", "assistant", "tool"]);
});
