/**
 * Chat screen, found by an extension author's acceptance run: the POSIX
 * sh + jq guard of test/fixtures/extensions/author-shguard rewriting the
 * assistant's text (replace_text). Its original text must never be on the
 * screen, not even while it streams.
 */
import { expect, test } from "bun:test";
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES } from "../support/extensions.ts";
import type { ModeEnv } from "./helpers.ts";
import { TEST_MS, rowsWith, startChat, useChatEnv, waitForCommand, waitIdle } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

test("a guard's replace_text: the streamed original is never shown, the replacement is", async () => {
  const dir = join(env.home, "extensions", "shguard");
  cpSync(join(FIXTURES, "author-shguard"), dir, { recursive: true });
  writeFileSync(join(dir, "rules"), "redact sk-ant-[0-9]+\n");
  const tui = await startChat(env, { columns: 100, rows: 30 });
  await waitForCommand(tui, "sg");
  let shown = false;
  const stop = tui.onParsed(() => {
    if (tui.rowsOf("all").some((row) => row.includes("sk-ant"))) shown = true;
  });
  // Slow frames: the first text chunk is on zot's side for a while before the message ends.
  env.server.enqueue({ type: "text", text: "alpha sk-ant-111 beta gamma delta epsilon", chunks: 2, delayMs: 300 });
  tui.type("go");
  tui.press("enter");
  await tui.waitForText("alpha [redacted] beta gamma delta epsilon");
  await waitIdle(tui);
  stop();
  expect(shown).toBe(false);
}, TEST_MS);

test("while an extension's slash command is answered, the status bar says it waits for that extension, not for the model", async () => {
  const dir = join(env.home, "extensions", "shguard");
  cpSync(join(FIXTURES, "author-shguard"), dir, { recursive: true });
  writeFileSync(join(dir, "rules"), "cmd_delay 2\n");
  const tui = await startChat(env, { columns: 100, rows: 30 });
  await waitForCommand(tui, "sg");
  tui.type("/sg");
  tui.press("enter");
  await tui.waitForText("waiting for extension shguard (/sg)", "screen");
  expect(rowsWith(tui.screen.screen(), "waiting for the model")).toEqual([]);
  await tui.waitForText("[shguard] rules:");
  await waitIdle(tui);
}, TEST_MS);
