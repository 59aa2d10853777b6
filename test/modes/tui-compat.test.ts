/**
 * Chat-screen commands of the original zot (docs/compat.md), dist/zot in a
 * real PTY: `/study` sends its fixed prompt to the model as a normal turn;
 * the hidden `/settings` says there is no settings screen and where they are;
 * `/session tree` shows this directory's sessions with a fork under its source.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
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

  test("/session tree shows a fork under the session it came from and marks the current one", async () => {
    env.server.enqueue({ type: "text", text: "one" }, { type: "text", text: "two" });
    expect((await env.run(["-p", "the parent question", ...env.providerArgs()])).code).toBe(0);
    const [parent] = env.sessionFiles();
    expect((await env.run(["-p", "the fork question", "--fork", parent!, ...env.providerArgs()])).code).toBe(0);
    const parentId = (JSON.parse(readFileSync(parent!, "utf8").split("\n")[0]!) as { meta: { id: string } }).meta.id;
    const tui = await startChat(env, { args: ["--session", parent!] });
    tui.type("/session tree");
    tui.press("enter");
    await tui.waitForText("session tree (forks under their source):").catch((err: unknown) => {
      throw new Error(`${String(err)}\n${tui.screen.all().join("\n")}`);
    });
    const rows = tui.screen.all();
    const parentRow = rows.findIndex((row) => row.startsWith(`  ${parentId.slice(0, 8)}  `));
    expect(parentRow).toBeGreaterThanOrEqual(0);
    expect(rows[parentRow]).toContain("(current)");
    expect(rows[parentRow + 1]).toContain("└─ ");
    expect(rows[parentRow + 1]).not.toContain("(current)");
    expect(env.server.requests).toHaveLength(2);
  }, TEST_MS);
});
