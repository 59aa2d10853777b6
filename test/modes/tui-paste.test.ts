/**
 * Bracketed pastes that carry terminal sequences, end to end (dist/zot in a
 * real PTY): a terminal that does not filter what it pastes sends a copied
 * `ESC [ 201 ~` as is, which ends the paste early; the rest of the copied
 * text, carriage returns included, must not be typed (it would send a
 * prompt the user never saw). Pasted escape sequences are shown inert.
 */
import { describe, expect, test } from "bun:test";
import { requestTexts, type ModeEnv } from "./helpers.ts";
import { TEST_MS, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

describe("paste injection", () => {
  test("an early paste end inside a paste does not type the rest: nothing is sent until Enter, and it is sent as one prompt", async () => {
    env.server.enqueue({ type: "text", text: "one answer" }, { type: "text", text: "a second answer" });
    const tui = await startChat(env, { columns: 80, rows: 24 });
    tui.paste("look at this\x1b[201~\rinjected-prompt\r");
    // The whole paste is in the editor (its lines under the prompt mark), the typed text after it.
    await tui.waitForText(/^\s+injected-prompt$/, "screen");
    tui.type("and-typed");
    await tui.waitForText(/^\s+and-typed$/, "screen");
    // The paste's escape sequence is not drawn as such: no raw ESC [ 201 ~ reached the screen.
    expect(tui.screen.all().some((row) => row.includes("\x1b"))).toBe(false);
    tui.press("enter");
    await tui.waitForText("one answer");
    await waitIdle(tui);
    expect(env.server.requests.length).toBe(1);
    const prompt = requestTexts(env.server.requests[0]);
    expect(prompt).toContain("look at this");
    expect(prompt).toContain("injected-prompt");
    expect(prompt).toContain("and-typed");
  }, TEST_MS);
});
