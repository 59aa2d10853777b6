/**
 * The Ctrl+O full-output view end to end (dist/zot in a real PTY): a line of
 * tool output wider than the terminal is wrapped, not cut, so its end can
 * be read (the view is the place to see all of a call's output).
 */
import { describe, expect, test } from "bun:test";
import { type ModeEnv } from "./helpers.ts";
import { TEST_MS, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

describe("Ctrl+O view", () => {
  test("a tool output line wider than the terminal is wrapped in the view, its end readable", async () => {
    // printf with %s: the marker is not in the command line the view shows above the output.
    const command = `printf 'error: ${"long-message-part ".repeat(8)}%s\\n' TAIL-OF-LINE`;
    env.server.enqueue({ type: "tool_calls", calls: [{ name: "bash", arguments: { command } }] }, { type: "text", text: "checked" });
    const tui = await startChat(env, { columns: 60, rows: 24 });
    tui.type("go");
    tui.press("enter");
    await tui.waitForText("checked");
    await waitIdle(tui);
    tui.press("ctrl+o");
    await tui.waitForText("tool output", "screen");
    await tui.waitForText("TAIL-OF-LINE", "screen");
    for (const row of tui.screen.screen()) expect(Bun.stringWidth(row)).toBeLessThanOrEqual(60);
    tui.press("escape");
    await tui.waitFor(() => !tui.screen.screen().some((row) => row.startsWith("tool output")) || undefined, "the view to close");
  }, TEST_MS);
});
