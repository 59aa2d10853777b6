/**
 * The editor's popups and pastes on the chat screen end to end (dist/zot in
 * a real PTY): the slash-command popup opens on `/` with descriptions,
 * filters as you type, Tab completes the selected command, and once it
 * closes nothing of it is left on the screen or in the scrollback (also
 * when the screen is full, so the popup pushes content up); a paste of 60
 * lines collapses to `[pasted text #1 +60 lines]` in the editor and the
 * model receives the full text on submit.
 */
import { describe, expect, test } from "bun:test";
import { requestMessages, type ModeEnv } from "./helpers.ts";
import { PROMPT, TEST_MS, expectNoClears, rowsWith, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

// Descriptions of built-in commands (src/modes/interactive/commands.ts): they only ever show in the popup.
const COMPACT_DESCRIPTION = "summarise the older part";
const MODEL_DESCRIPTION = "switch to one";
const HELP_DESCRIPTION = "commands and keys";

/** The editor row: the prompt then the text. */
function editorRow(rows: readonly string[]): string | undefined {
  return [...rows].reverse().find((row) => row.trimStart().startsWith(PROMPT));
}

describe("the slash popup", () => {
  test("opens on /, filters as you type, Tab completes, and leaves nothing behind when it closes", async () => {
    // A full screen first: the popup then has to push committed content up.
    const filler = Array.from({ length: 40 }, (_, i) => `filler row ${String(i + 1).padStart(2, "0")}`);
    env.server.enqueue({ type: "text", text: filler.join("\n\n") });
    const tui = await startChat(env, { columns: 100, rows: 24 });
    tui.type("fill the screen");
    tui.press("enter");
    await tui.waitForText("filler row 40");
    await waitIdle(tui);
    expect(tui.screen.scrollback().length).toBeGreaterThan(0);

    tui.type("/");
    await tui.waitForText(COMPACT_DESCRIPTION, "screen");
    const opened = tui.screen.screen();
    expect(rowsWith(opened, HELP_DESCRIPTION)).toHaveLength(1);
    expect(rowsWith(opened, MODEL_DESCRIPTION)).toHaveLength(1);
    // Built-ins with their names.
    expect(rowsWith(opened, /\bhelp\b.*commands and keys/)).toHaveLength(1);
    expect(rowsWith(opened, /\bcompact\b.*summarise the older part/)).toHaveLength(1);

    tui.type("mo");
    await tui.waitFor(() => rowsWith(tui.screen.screen(), COMPACT_DESCRIPTION).length === 0 || undefined, "the popup to filter on /mo");
    const filtered = tui.screen.screen();
    expect(rowsWith(filtered, MODEL_DESCRIPTION)).toHaveLength(1);
    expect(rowsWith(filtered, HELP_DESCRIPTION)).toEqual([]);

    tui.press("tab");
    await tui.waitFor(() => /\/model\s*$/.test(editorRow(tui.screen.screen()) ?? "") || undefined, "Tab to complete /model in the editor");
    // Clear the draft and close whatever is open.
    tui.press("ctrl+u");
    tui.press("escape");
    await tui.waitFor(() => rowsWith(tui.screen.screen(), MODEL_DESCRIPTION).length === 0 || undefined, "the popup to close");
    await tui.waitFor(() => editorRow(tui.screen.screen())?.trim() === PROMPT || undefined, "an empty editor");

    const all = tui.screen.all();
    for (const description of [COMPACT_DESCRIPTION, MODEL_DESCRIPTION, HELP_DESCRIPTION]) expect(rowsWith(all, description)).toEqual([]);
    // The filler is intact, once each, in order.
    const trimmed = all.map((row) => row.trim());
    const positions = filler.map((line) => trimmed.indexOf(line));
    expect(positions.filter((at) => at === -1)).toEqual([]);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    for (const line of filler) expect(trimmed.filter((row) => row === line)).toHaveLength(1);
    expectNoClears(tui);
  }, TEST_MS);
});

describe("pastes", () => {
  test("a 60-line paste collapses to [pasted text #1 +60 lines] and the model receives the full text", async () => {
    const pasted = Array.from({ length: 60 }, (_, i) => `pasted line ${String(i + 1).padStart(2, "0")}`).join("\n");
    env.server.enqueue({ type: "text", text: "got your paste" });
    const tui = await startChat(env);
    tui.type("look at this: ");
    tui.paste(pasted);
    await tui.waitForText("[pasted text #1 +60 lines]", "screen");
    const editing = tui.screen.all();
    expect(rowsWith(editing, "pasted line 30")).toEqual([]);
    expect(editorRow(tui.screen.screen())).toContain("look at this: [pasted text #1 +60 lines]");

    tui.press("enter");
    await tui.waitForText("got your paste");
    await waitIdle(tui);
    const user = requestMessages(env.server.requests[0]).find((message) => message.role === "user");
    expect(JSON.stringify(user?.content)).toContain(JSON.stringify(`look at this: ${pasted}`).slice(1, -1));
    expectNoClears(tui);
  }, TEST_MS);
});
