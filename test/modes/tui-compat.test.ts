/**
 * Chat-screen commands of the original zot (docs/compat.md), dist/zot in a
 * real PTY: `/study` sends its fixed prompt to the model as a normal turn;
 * the hidden `/settings` says there is no settings screen and where they are.
 */
import { describe, expect, test } from "bun:test";
import { STUDY_PROMPT } from "../../src/modes/interactive/commands/core.ts";
import type { ModeEnv } from "./helpers.ts";
import { requestTexts } from "./helpers.ts";
import { TEST_MS, startChat, useChatEnv, waitIdle } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

describe("the original's commands", () => {
  test("/study sends the study prompt to the model and shows the answer", async () => {
    env.server.enqueue({ type: "text", text: "This project is a tiny demo." });
    const tui = await startChat(env);
    tui.type("/study");
    tui.press("enter");
    await tui.waitForText("This project is a tiny demo.");
    await waitIdle(tui);
    expect(env.server.requests).toHaveLength(1);
    expect(requestTexts(env.server.requests[0])).toContain(STUDY_PROMPT.slice(0, 60));
  }, TEST_MS);

  test("/settings (hidden) says it is disabled and points to config.json; nothing goes to the model", async () => {
    const tui = await startChat(env);
    tui.type("/settings");
    tui.press("enter");
    await tui.waitForText("/settings is disabled");
    await tui.waitForText("config.json");
    expect(env.server.requests).toHaveLength(0);
  }, TEST_MS);
});
