/**
 * The chat screen end to end (dist/zot in a real PTY, @xterm/headless as the
 * screen, the stand-in model server): a streamed answer is rendered as
 * markdown while it streams (never raw first), single newlines are kept,
 * every line shows once; line 1 of a 150-line answer is in the terminal's
 * scrollback while the answer still streams; Esc cancels the running turn;
 * wide characters (CJK, emoji, ZWJ sequences, combining marks) are laid out
 * within the terminal width and never cut; a whole session writes no screen
 * or scrollback clear. Assertions are on the emulated screen and scrollback.
 */
import { describe, expect, test } from "bun:test";
import { requestTexts, type ModeEnv } from "./helpers.ts";
import { PROMPT, TEST_MS, busy, expectNoClears, occurrences, rowsWith, squeezed, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

const MULTI_BLOCK = [
  "# Release notes",
  "",
  "The **first** paragraph has two lines",
  "joined by a single newline.",
  "",
  "```ts",
  "const answer = 42;",
  "```",
  "",
  "- item one",
  "- item two",
  "",
  "Last paragraph with `inline code`.",
].join("\n");

/** Raw markdown a user must never see on screen: a heading's #, a fence, a source bullet, closed emphasis markers. */
function rawMarkdown(rows: readonly string[]): string | undefined {
  return rows.find(
    (row) => /^\s*#{1,6} \S/.test(row) || /^\s*```/.test(row) || /^\s*[-*] item/.test(row) || row.includes("**first**") || row.includes("`inline code`"),
  );
}

describe("streamed answers", () => {
  test("a multi-block answer is rendered as markdown while it streams, keeps single newlines, and shows each line once", async () => {
    env.server.enqueue({ type: "text", text: MULTI_BLOCK, chunks: 80, delayMs: 12 });
    const tui = await startChat(env);

    // Every intermediate screen, as the bytes arrive: never raw markdown; and the
    // heading and code block already rendered while the last paragraph has not come.
    const rawSeen = new Set<string>();
    let renderedWhileStreaming = false;
    tui.onParsed(() => {
      const rows = tui.screen.all();
      const raw = rawMarkdown(rows);
      if (raw !== undefined) rawSeen.add(raw);
      const streaming = !rows.some((row) => row.includes("Last paragraph"));
      if (streaming && rows.some((row) => row.trim() === "Release notes") && rows.some((row) => row.includes("const answer = 42;"))) {
        renderedWhileStreaming = true;
      }
    });

    tui.type("show the notes");
    tui.press("enter");
    await tui.waitForText("Last paragraph with inline code.");
    await waitIdle(tui);
    const all = tui.screen.all();

    expect([...rawSeen]).toEqual([]);
    expect(renderedWhileStreaming).toBe(true);
    // Rendered: the heading without its #, the fence gone, bullets, inline code without backticks.
    expect(rowsWith(all, "Release notes").map((row) => row.trim())).toEqual(["Release notes"]);
    expect(rowsWith(all, "```")).toEqual([]);
    expect(rowsWith(all, /^\s*\S\s+item one$/)).toHaveLength(1);
    expect(rowsWith(all, /^\s*\S\s+item two$/)).toHaveLength(1);
    // Single newline kept: the second line of the paragraph is on a row of its own.
    const first = all.findIndex((row) => row.includes("The first paragraph has two lines"));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(all[first]).not.toContain("joined");
    expect(all[first + 1]?.trim()).toBe("joined by a single newline.");
    // Nothing shown twice (a block committed and also still drawn live, or re-committed).
    for (const text of ["Release notes", "The first paragraph", "joined by a single", "const answer = 42;", "item one", "item two", "Last paragraph"]) {
      expect({ text, times: occurrences(all, text) }).toEqual({ text, times: 1 });
    }
    expect(requestTexts(env.server.requests[0])).toContain("show the notes");
    expectNoClears(tui);
  }, TEST_MS);

  test("line 1 of a 150-line answer is in scrollback while the answer still streams; every line once, in order; Esc cancels the turn", async () => {
    const lines = Array.from({ length: 150 }, (_, i) => `line ${String(i + 1).padStart(3, "0")} of the long answer`);
    // The whole text streams, then the reply never ends: the turn is still running.
    env.server.enqueue({ type: "stall", text: lines.join("\n") });
    const tui = await startChat(env, { columns: 100, rows: 30 });
    tui.type("long one");
    tui.press("enter");

    await tui.waitForText("line 150 of the long answer", "screen");
    await tui.waitFor(() => tui.screen.scrollback().some((row) => row.trim() === "line 001 of the long answer"), "line 1 in the scrollback");
    expect(busy(tui)).toBe(true);
    const streaming = tui.screen.all().map((row) => row.trim());
    const positions = lines.map((line) => streaming.indexOf(line));
    expect(positions.filter((at) => at === -1)).toEqual([]); // single newlines kept: each line is a row
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    for (const line of lines) expect({ line, times: streaming.filter((row) => row === line).length }).toEqual({ line, times: 1 });

    // Esc stops the running turn: the spinner goes, the partial answer stays, the next prompt works.
    tui.press("escape");
    await waitIdle(tui, "the turn to stop after Esc");
    const after = tui.screen.all().map((row) => row.trim());
    for (const line of lines) expect({ line, times: after.filter((row) => row === line).length }).toEqual({ line, times: 1 });

    env.server.enqueue({ type: "text", text: "answer after the cancel" });
    tui.type("next question");
    tui.press("enter");
    await tui.waitForText("answer after the cancel");
    await waitIdle(tui);
    expect(env.server.requests).toHaveLength(2);
    expect(requestTexts(env.server.requests[1])).toContain("next question");
    expectNoClears(tui);
  }, TEST_MS);

  test("wide characters: CJK, emoji, ZWJ sequences and combining marks wrap within 40 columns and are never cut", async () => {
    const paragraphs = [
      "日本語のテキストは全角文字で書かれていて、端末の幅を超えると次の行に折り返されます。",
      "絵文字: 🎉 ✅ ⚠️ 👍🏽 👨‍👩‍👧 🚀 と text mixed together with 中文 and 한국어 글자",
      "Combining marks: e\u0301te\u0301, cafe\u0301, n\u0303o, and a tab\there.",
    ];
    env.server.enqueue({ type: "text", text: paragraphs.join("\n\n"), chunks: 30, delayMs: 10 });
    // No resize here: "cursor-line" so zot writes every row on its own (with "xterm.js" it makes the rows from the
    // editor down one wrapped line on purpose, docs/tui.md, which would look like an over-wide line below).
    const tui = await startChat(env, { columns: 40, rows: 24, env: { ZOT_TUI_REFLOW: "cursor-line" } });
    const overwide: string[] = [];
    tui.onParsed(() => {
      // A line zot writes wider than the terminal is wrapped by the terminal: a continuation row.
      for (const line of tui.screen.logicalLines()) if (Bun.stringWidth(line) > 40) overwide.push(line);
    });
    tui.type("wide");
    tui.press("enter");
    await tui.waitForText("here.");
    await waitIdle(tui);

    expect(overwide).toEqual([]);
    const all = tui.screen.all();
    for (const row of all) expect(Bun.stringWidth(row)).toBeLessThanOrEqual(40);
    // Every character of the answer is there, in order: wrapping moved text to the next row, nothing was cut or split inside a cluster.
    const shown = squeezed(all);
    for (const paragraph of paragraphs) expect(shown).toContain(paragraph.replace(/\s+/g, ""));
    expectNoClears(tui);
  }, TEST_MS);
});

describe("a whole session", () => {
  test("prompts, a tool call, the slash popup, a resize and /exit write no CSI 2J or 3J, and the terminal is restored", async () => {
    env.server.enqueue(
      { type: "text", text: "first answer", chunks: 5, delayMs: 5 },
      { type: "tool_calls", text: "Running it.", calls: [{ name: "bash", arguments: { command: "echo from-the-tool" } }] },
      { type: "text", text: "second answer" },
    );
    const tui = await startChat(env);
    tui.type("one");
    tui.press("enter");
    await tui.waitForText("first answer");
    await waitIdle(tui);
    tui.type("two");
    tui.press("enter");
    await tui.waitForText("from-the-tool");
    await tui.waitForText("second answer");
    await waitIdle(tui);
    tui.type("/");
    await tui.waitForText("summarise the older part", "screen");
    tui.press("escape");
    await tui.waitFor(() => rowsWith(tui.screen.all(), "summarise the older part").length === 0, "the popup to close");
    await tui.resize(60);
    await tui.waitFor(() => tui.screen.screen().some((row) => row.trimStart().startsWith(PROMPT)), "the editor after the resize");
    tui.press("ctrl+u");
    tui.type("/exit");
    tui.press("enter");
    expect(await tui.exitCode()).toBe(0);

    expectNoClears(tui);
    const raw = tui.raw();
    // Restored: bracketed paste off and the cursor visible after the last write.
    expect(raw.lastIndexOf("\x1b[?2004l")).toBeGreaterThan(raw.lastIndexOf("\x1b[?2004h"));
    expect(raw.lastIndexOf("\x1b[?25h")).toBeGreaterThanOrEqual(raw.lastIndexOf("\x1b[?25l"));
  }, TEST_MS);
});
