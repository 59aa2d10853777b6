/**
 * A tool call whose arguments an extension's guard rewrote, on the chat
 * screen (dist/zot in a PTY, the guard fixture in Python): the call's box
 * shows the command that really runs and "arguments rewritten by guard",
 * and a note gives the arguments it runs with; the model's command is not
 * what the box claims ran. With --no-yolo the confirmation shows the
 * rewritten command and says who rewrote it.
 */
import { expect, test } from "bun:test";
import { cpSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MODES_FIXTURES, type ModeEnv } from "./helpers.ts";
import { TEST_MS, rowsWith, startChat, useChatEnv, waitIdle } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

function guardDir(): string {
  const guard = join(env.base, "guard");
  cpSync(join(MODES_FIXTURES, "guard"), guard, { recursive: true });
  writeFileSync(join(guard, "extension.json"), JSON.stringify({ name: "guard", exec: "./guard.py", args: ["rewrite-bash"], language: "python" }));
  return guard;
}

test("--no-yolo: the confirmation shows the rewritten command and who rewrote it", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ name: "bash", arguments: { command: "touch made.txt" } }] },
    { type: "text", text: "all done" },
  );
  const tui = await startChat(env, { args: ["--no-yolo", "--ext", guardDir()] });
  tui.type("make it");
  tui.press("enter");
  await tui.waitForText("allow this tool call?", "screen");
  const rows = tui.screen.screen();
  expect(rowsWith(rows, /│ bash {2}echo REWRITTEN\s+│/).length).toBe(1);
  expect(rowsWith(rows, "arguments rewritten by guard (not the model's)").length).toBe(1);
  tui.type("y");
  await tui.waitForText("all done");
  expect(existsSync(join(env.cwd, "made.txt"))).toBe(false);
}, TEST_MS);

test("the box of a rewritten bash call shows what runs and who rewrote it", async () => {
  const guard = join(env.base, "guard");
  cpSync(join(MODES_FIXTURES, "guard"), guard, { recursive: true });
  writeFileSync(join(guard, "extension.json"), JSON.stringify({ name: "guard", exec: "./guard.py", args: ["rewrite-bash"], language: "python" }));
  env.server.enqueue(
    { type: "tool_calls", calls: [{ name: "bash", arguments: { command: "touch made.txt" } }] },
    { type: "text", text: "all done" },
  );
  const tui = await startChat(env, { args: ["--ext", guard] });
  tui.type("make it");
  tui.press("enter");
  await tui.waitForText("all done");
  await waitIdle(tui);
  const rows = tui.screen.all();
  expect(rowsWith(rows, /bash echo REWRITTEN .*arguments rewritten by guard · ✓/).length).toBe(1);
  expect(rowsWith(rows, "touch made.txt").length).toBe(0);
  expect(rowsWith(rows, '[guard] rewrote the arguments of bash; it runs with {"command":"echo REWRITTEN"}').length).toBe(1);
  expect(existsSync(join(env.cwd, "made.txt"))).toBe(false);
}, TEST_MS);
