/**
 * A mistyped slash command on the chat screen (dist/zot in a real PTY):
 * `/modle` is reported with "did you mean /model?" and runs nothing (no
 * model request); while it is typed, the slash popup says "did you mean
 * /model?" under "no matches"; a word close to nothing keeps the plain pointer to /help;
 * `/model claude-sonet-4` offers the close model ids. A first run without
 * a key on `--provider openai` offers the OpenAI login first.
 */
import { describe, expect, test } from "bun:test";
import { TuiPty } from "../support/tui-pty.ts";
import type { ModeEnv } from "./helpers.ts";
import { TEST_MS, rowsWith, startChat, useChatEnv, waitIdle } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

describe("mistyped slash commands", () => {
  test("/modle: did you mean /model?; /zzzz: only the pointer to /help; /model with a typo: the close ids", async () => {
    const tui = await startChat(env);
    // An argument after the word: the command popup (which would complete the word) is closed.
    tui.type("/modle x");
    tui.press("enter");
    await tui.waitForText("unknown command /modle (did you mean /model?) — type /help for the list");
    await waitIdle(tui);

    tui.type("/zzzz x");
    tui.press("enter");
    await tui.waitForText("unknown command /zzzz — type /help for the list");

    tui.type("/model claude-sonet-4");
    tui.press("enter");
    await tui.waitForText(/unknown model "claude-sonet-4" \(did you mean \/model claude-sonnet-4-5/);
    await waitIdle(tui);
    expect(rowsWith(tui.screen.all(), "unknown command /modle")).toHaveLength(1);
    expect(env.server.requests).toHaveLength(0);
  }, TEST_MS);
});

describe("the slash popup", () => {
  test("/modle matches nothing: the popup says did you mean /model?; /zzzz: only no matches", async () => {
    const tui = await startChat(env);
    tui.type("/modle");
    await tui.waitForText("did you mean /model?", "screen");
    const rows = tui.screen.screen();
    const matchesAt = rows.findIndex((row) => row.includes("no matches"));
    expect(matchesAt).toBeGreaterThanOrEqual(0);
    expect(rows[matchesAt + 1]).toContain("did you mean /model?");

    // A word close to nothing: no suggestion line.
    tui.press("ctrl+u");
    tui.type("/zzzz");
    await tui.waitFor(() => rowsWith(tui.screen.screen(), "did you mean").length === 0 && rowsWith(tui.screen.screen(), "no matches").length === 1, "the popup for /zzzz");

    // Typing on to a match replaces the line with the list.
    tui.press("ctrl+u");
    tui.type("/mod");
    await tui.waitForText("/model", "screen");
    expect(rowsWith(tui.screen.screen(), "did you mean")).toEqual([]);
    expect(env.server.requests).toHaveLength(0);
  }, TEST_MS);
});

describe("the first run without a key", () => {
  test("`zot --provider openai` opens the login dialog on openai: Enter asks for the OpenAI key", async () => {
    // No --api-key: zot starts keyless and asks.
    const tui = await TuiPty.start({ home: env.home, cwd: env.cwd, args: ["--provider", "openai", "--base-url", env.server.openaiBaseUrl] });
    await tui.waitForText("no API key found: pick a provider to log in", "screen");
    tui.press("enter");
    await tui.waitForText("API key for openai", "screen");
    expect(rowsWith(tui.screen.screen(), "API key for anthropic")).toEqual([]);
  }, TEST_MS);
});
