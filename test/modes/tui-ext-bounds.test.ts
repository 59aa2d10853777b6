/**
 * A huge text from an extension on the chat screen (dist/zot in a PTY, the
 * cmd-actions fixture): a 3,000,000-character `display` is laid out up to
 * 256 Ki characters and ends with a line saying how much was left out
 * (wrapping all of it took a second and hundreds of MB); the screen stays
 * responsive.
 */
import { expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { MAX_EXTENSION_TEXT_CHARS } from "../../src/modes/interactive/chat.ts";
import { MODES_FIXTURES, type ModeEnv } from "./helpers.ts";
import { TEST_MS, editorRow, rowsWith, startChat, useChatEnv, waitForCommand } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

test("a 3 MB display is cut at 256 Ki characters with a note; the editor still answers", async () => {
  const actions = join(env.base, "cmd-actions");
  cpSync(join(MODES_FIXTURES, "cmd-actions"), actions, { recursive: true });
  const tui = await startChat(env, { args: ["--ext", actions] });
  await waitForCommand(tui, "big");
  tui.type("/big");
  tui.press("enter");
  const left = (3_000_000 - MAX_EXTENSION_TEXT_CHARS).toLocaleString("en-US");
  await tui.waitForText(`[… ${left} more characters from the extension not shown]`);
  expect(rowsWith(tui.screen.all(), "END-OF-BIG")).toEqual([]);
  tui.type("still here");
  await tui.waitFor(() => editorRow(tui).includes("still here"), "the editor to show typed text");
}, TEST_MS);
