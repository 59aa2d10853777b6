/**
 * Resizing the chat screen while an answer streams, end to end (dist/zot in
 * a real PTY; the emulator reflows like a terminal window, then zot gets
 * SIGWINCH): 120 → 40 → 100 columns leaves no stale lines, with the cursor
 * on the editor above the two-row status bar. The answer and
 * the editor draft are made of unique tokens, so a fragment of an old live
 * row left above the editor shows as a token seen twice or a cut token;
 * every row is then either committed content, live content or blank.
 */
import { describe, expect, test } from "bun:test";
import { type ModeEnv } from "./helpers.ts";
import { MODEL, TEST_MS, expectNoClears, squeezed, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

const token = (prefix: string, n: number, digits: number): string => `${prefix}${String(n).padStart(digits, "0")}`;
const ANSWER_TOKENS = Array.from({ length: 320 }, (_, i) => token("w", i + 1, 3));
// A draft of two editor rows at 120 columns whose second row (the caret's) is wider than 40: xterm.js re-wraps it on the
// shrink unless it is one wrapped line with the status bar below it (renderer.ts #writeRows), and how far that moves the
// cursor depends on xterm.js's scrollback being full or not.
const DRAFT_TOKENS = Array.from({ length: 50 }, (_, i) => token("d", i + 1, 2));
// Eight paragraphs of 40 tokens (≈200 columns: 2 rows at 120, 5 at 40, 2 at 100).
const ANSWER = Array.from({ length: 8 }, (_, p) => ANSWER_TOKENS.slice(p * 40, p * 40 + 40).join(" ")).join("\n\n");

/** Words made of letters/digits in `rows` (decoration such as borders and bullets skipped). */
function words(rows: readonly string[]): string[] {
  return rows.flatMap((row) => row.split(/\s+/)).filter((word) => /[a-z0-9]/i.test(word));
}

/**
 * Every token of `expected` once and in order among the words of `rows`; a row
 * holding one of them holds nothing but them (no cut piece of another), and
 * no word anywhere is a cut token (`cut`).
 */
function expectTokensOnce(rows: readonly string[], expected: readonly string[], whole: RegExp, cut: RegExp): void {
  const tokenRows = rows.filter((row) => words([row]).some((word) => whole.test(word)));
  const strays = words(tokenRows).filter((word) => !whole.test(word));
  const cuts = words(rows).filter((word) => cut.test(word));
  expect({ strays, cuts }).toEqual({ strays: [], cuts: [] });
  expect(words(tokenRows).filter((word) => whole.test(word))).toEqual([...expected]);
}

describe("resize", () => {
  test("120 → 40 → 100 columns while an answer streams leaves no stale lines", async () => {
    env.server.enqueue({ type: "text", text: ANSWER, chunks: 200, delayMs: 40 });
    const tui = await startChat(env, { columns: 120, rows: 30 });
    tui.type("resize me");
    tui.press("enter");
    await tui.waitForText(/\bw010\b/, "screen");
    tui.type(DRAFT_TOKENS.join(" "));
    const draft = DRAFT_TOKENS.join("");
    await tui.waitFor(() => squeezed(tui.screen.screen()).includes(draft), "the draft in the editor");
    const modelLinesBefore = tui.screen.logicalLines().filter((line) => line.includes(MODEL)).length;

    await tui.waitForText(/\bw060\b/, "screen");
    await tui.resize(40);
    await tui.waitForText(/\bw150\b/, "screen");
    await tui.resize(100);
    await tui.waitForText(/\bw320\b/);
    await waitIdle(tui);

    const all = tui.screen.all();
    // The answer: each token once, in order, none cut (stale copies of the streaming tail would repeat or cut some).
    expectTokensOnce(all, ANSWER_TOKENS, /^w\d{3}$/, /^w\d{0,2}$/);
    // The draft is live (the editor): once, in order, on the screen; no copy of an older editor layout anywhere.
    expectTokensOnce(all, DRAFT_TOKENS, /^d\d{2}$/, /^d\d?$/);
    expectTokensOnce(tui.screen.screen(), DRAFT_TOKENS, /^d\d{2}$/, /^d\d?$/);
    // The status bar is live: no stale copy of it from an older width.
    expect(tui.screen.logicalLines().filter((line) => line.includes(MODEL)).length).toBe(modelLinesBefore);
    // Every screen row fits the new width; the live rows are at the bottom of the content, nothing stale below them.
    for (const row of tui.screen.screen()) expect(Bun.stringWidth(row)).toBeLessThanOrEqual(100);
    const screen = tui.screen.screen();
    const lastDraftRow = screen.findLastIndex((row) => /\bd\d{2}\b/.test(row));
    const lastAnswerRow = screen.findLastIndex((row) => /\bw\d{3}\b/.test(row));
    expect(lastAnswerRow).toBeLessThan(lastDraftRow);
    expectNoClears(tui);
  }, TEST_MS);
});
