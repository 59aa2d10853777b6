import { afterEach, describe, expect, test } from "bun:test";
import { reflowedRows, rowsAboveCursorAfterReflow } from "../../src/tui/frame.ts";
import { TmuxScreen } from "../support/tmux-screen.ts";
import { Renderer } from "../../src/tui/renderer.ts";
import { RendererHarness } from "./harness.ts";

const SYNC_ON = "\x1b[?2026h";
const SYNC_OFF = "\x1b[?2026l";

let harnesses: RendererHarness[] = [];
function harness(columns: number, rows: number, fps?: number): RendererHarness {
  const h = new RendererHarness(columns, rows, fps === undefined ? {} : { maxFramesPerSecond: fps });
  harnesses.push(h);
  return h;
}
afterEach(() => {
  for (const h of harnesses) h.dispose();
  harnesses = [];
});

/** Every `CSI n A` in a frame, summed. */
function rowsUp(frame: string): number {
  let up = 0;
  for (const match of frame.matchAll(/\x1b\[(\d*)A/g)) up += Number(match[1] || "1");
  return up;
}

function waitTimers(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe("Renderer frames", () => {
  test("one synchronized write per frame, cursor hidden while drawing and parked at the view's cursor", async () => {
    const h = harness(40, 10);
    await h.show({ lines: ["› hello", "status"], cursor: { row: 0, col: 7 } });
    expect(h.writes.length).toBe(1);
    const frame = h.writes[0]!;
    expect(frame.startsWith(`${SYNC_ON}\x1b[?25l`)).toBe(true);
    expect(frame.endsWith(`\x1b[?25h${SYNC_OFF}`)).toBe(true);
    expect(h.screenText()).toEqual(["› hello", "status"]);
    expect(h.screen.cursor()).toEqual({ row: 0, col: 7 });
    // No cursor: it stays hidden.
    await h.show({ lines: ["› hello", "status"] });
    expect(h.writes.length).toBe(2);
    expect(h.writes[1]!.includes("\x1b[?25h")).toBe(false);
    expect(h.renderer.stats.frames).toBe(2);
  });

  test("an identical view writes nothing; requestFrame coalesces many requests into one frame", async () => {
    const h = harness(40, 10);
    await h.show({ lines: ["a", "b"], cursor: { row: 1, col: 1 } });
    h.view = { lines: ["a", "b"], cursor: { row: 1, col: 1 } }; // equal, not the same array
    h.renderer.flush();
    h.renderer.requestFrame();
    await waitTimers(60);
    expect(h.writes.length).toBe(1);
    for (let i = 0; i < 50; i++) {
      h.view = { lines: ["a", `b ${i}`] };
      h.renderer.requestFrame();
    }
    expect(h.writes.length).toBe(1); // nothing synchronous
    await waitTimers(60);
    expect(h.writes.length).toBe(2);
    await h.settle();
    expect(h.screenText()).toEqual(["a", "b 49"]);
  });

  test("frames are spaced by maxFramesPerSecond", async () => {
    const h = harness(40, 10, 10); // at most one frame per 100 ms
    await h.show({ lines: ["0"] });
    h.view = { lines: ["1"] };
    h.renderer.requestFrame();
    await waitTimers(20);
    // Not yet: the first frame was less than 100 ms ago (a timer wait, not a timed assertion on speed).
    expect(h.writes.length).toBe(1);
    for (let waited = 0; h.writes.length < 2 && waited < 5000; waited += 20) await waitTimers(20);
    expect(h.writes.length).toBe(2);
  });

  test("a one-row change rewrites only that row", async () => {
    const h = harness(80, 24);
    const rows = Array.from({ length: 10 }, (_, i) => `row ${i} ${"x".repeat(40)}`);
    await h.show({ lines: rows, cursor: { row: 8, col: 3 } });
    const changed = [...rows];
    changed[5] = "row 5 changed";
    await h.show({ lines: changed, cursor: { row: 8, col: 3 } });
    const frame = h.writes[1]!;
    expect(frame).toContain("row 5 changed");
    for (const [i, row] of rows.entries()) if (i !== 5) expect(frame).not.toContain(row);
    expect(h.screenText()).toEqual(changed);
    expect(h.screen.cursor()).toEqual({ row: 8, col: 3 });
    // The whole frame: sync on/off, hide/show, two moves, erase-line, the row.
    expect(Buffer.byteLength(frame)).toBeLessThan(Buffer.byteLength("row 5 changed") + 50);
  });

  test("a row that only grew at its end gets just the new text, in the colour in force there; a changed row is rewritten whole", async () => {
    const h = harness(80, 24);
    const rest = ["────", "› ", "status"];
    await h.show({ lines: ["the answer so far\x1b[0m", ...rest], cursor: { row: 2, col: 2 } });
    await h.show({ lines: ["the answer so far and more\x1b[0m", ...rest], cursor: { row: 2, col: 2 } });
    const grown = h.writes[1]!;
    expect(grown).toContain(" and more");
    expect(grown).not.toContain("the answer so far");
    expect(grown).not.toContain("\x1b[K");
    expect(h.screenText()[0]).toBe("the answer so far and more");
    // A changed word is not an append; a combining mark continuing the last letter is not split off it.
    await h.show({ lines: ["the answer so fat and more", ...rest], cursor: { row: 2, col: 2 } });
    expect(h.writes[2]!).toContain("the answer so fat and more");
    await h.show({ lines: ["the answer so fat and more\u0301", ...rest], cursor: { row: 2, col: 2 } });
    expect(h.writes[3]!).toContain("the answer so fat and more\u0301");
    // A coloured row grows in the colour in force at its end (the SGRs since its last reset, replayed).
    await h.show({ lines: ["\x1b[1mbold \x1b[31mred\x1b[0m", ...rest], cursor: { row: 2, col: 2 } });
    await h.show({ lines: ["\x1b[1mbold \x1b[31mred still\x1b[0m more", ...rest], cursor: { row: 2, col: 2 } });
    expect(h.writes[5]!).toContain("\x1b[1m\x1b[31m still\x1b[0m more");
    expect(h.writes[5]!).not.toContain("bold");
    expect(h.screenText()[0]).toBe("bold red still more");
  });

  test("a shrinking live region is erased below with CSI J, never CSI 2J / 3J", async () => {
    const h = harness(40, 10);
    await h.show({ lines: ["a", "b", "c", "d", "e"] });
    await h.show({ lines: ["a", "b"] });
    expect(h.writes[1]).toContain("\x1b[J");
    expect(h.screenText()).toEqual(["a", "b"]);
    await h.show({ lines: [] });
    expect(h.screenText()).toEqual([]);
    await h.show({ lines: ["x"] });
    expect(h.screenText()).toEqual(["x"]);
    const counts = h.screen.counts();
    expect(counts.screenClears).toBe(0);
    expect(counts.scrollbackClears).toBe(0);
  });

  test("committed lines go into scrollback once, in order, above the live region", async () => {
    const h = harness(30, 6);
    await h.show({ lines: ["live 1", "live 2"], cursor: { row: 1, col: 0 } });
    for (let i = 0; i < 20; i++) h.renderer.commit([`commit ${i}`]);
    h.renderer.flush();
    await h.settle();
    expect(h.writes.length).toBe(2); // all twenty commits in one frame
    const expected = [...Array.from({ length: 20 }, (_, i) => `commit ${i}`), "live 1", "live 2"];
    expect(h.screen.all().slice(0, 22)).toEqual(expected);
    expect(h.screen.screen().slice(-2)).toEqual(["live 1", "live 2"]);
    // A line holding "\n" is several lines.
    h.renderer.commit(["x\ny"]);
    h.renderer.flush();
    await h.settle();
    expect(h.screen.all().slice(20, 24)).toEqual(["x", "y", "live 1", "live 2"]);
  });

  test("after commits, the rows that moved down are not rewritten (a streaming tail that commits its top line)", async () => {
    const h = harness(40, 20);
    const tail = ["para line 1", "para line 2", "para line 3", "› prompt", "status"];
    await h.show({ lines: tail, cursor: { row: 3, col: 2 } });
    h.renderer.commit(["para line 1"]);
    await h.show({ lines: tail.slice(1), cursor: { row: 2, col: 2 } });
    const frame = h.writes[1]!;
    expect(frame).toContain("para line 1");
    for (const row of tail.slice(1)) expect(frame).not.toContain(row);
    expect(h.screenText()).toEqual(tail);
  });

  test("a line exactly as wide as the terminal (pending wrap) does not push the next row down", async () => {
    const h = harness(10, 6);
    await h.show({ lines: ["0123456789", "abcdefghij", "x"], cursor: { row: 2, col: 1 } });
    expect(h.screenText()).toEqual(["0123456789", "abcdefghij", "x"]);
    h.renderer.commit(["ABCDEFGHIJ"]);
    await h.show({ lines: ["0123456789", "short", "y"], cursor: { row: 1, col: 5 } });
    expect(h.screenText()).toEqual(["ABCDEFGHIJ", "0123456789", "short", "y"]);
    expect(h.screen.cursor()).toEqual({ row: 2, col: 5 });
    // The cursor's row and the row below it are one wrapped line (xterm.js reflow: renderer.ts #writeRows).
    expect(h.screen.logicalLines().filter((l) => l !== "").map((l) => l.trimEnd())).toEqual(["ABCDEFGHIJ", "0123456789", `short${" ".repeat(5)}y`]);
  });

  test("lines are sanitised and fitted: control sequences removed, tabs expanded, cut with an ellipsis", async () => {
    const h = harness(20, 8);
    h.renderer.commit(["commit\x1b[2J\x1b[Hok", "x".repeat(50)]);
    await h.show({
      lines: ["a\tb", "\x1b]0;title\x07t\x1b[5Aitle", "cr\rlf\nnl", "\x1b[31mred text that is far too long\x1b[0m", "中文中文中文中文中文中文"],
    });
    expect(h.screenText()).toEqual(["commitok", `${"x".repeat(19)}…`, "a   b", "title", "crlf nl", "red text that is fa…", "中文中文中文中文中…"]);
    const counts = h.screen.counts();
    expect(counts.screenClears).toBe(0);
    // The colour is closed at the end of the row.
    expect(h.writes.join("")).toContain("fa\x1b[0m…\x1b[0m");
  });

  test("the live region is clipped to rows - 1, keeping the bottom or the cursor row", async () => {
    const h = harness(20, 6);
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    await h.show({ lines });
    expect(h.screenText()).toEqual(["line 25", "line 26", "line 27", "line 28", "line 29"]);
    expect(h.renders.at(-1)).toEqual({ width: 20, height: 5 });
    await h.show({ lines, cursor: { row: 2, col: 4 } });
    expect(h.screenText()).toEqual(["line 2", "line 3", "line 4", "line 5", "line 6"]);
    expect(h.screen.cursor()).toEqual({ row: 0, col: 4 });
    expect(h.screen.scrollback().filter((row) => row !== "")).toEqual([]);
  });

  test("a cursor outside the view is clamped into it", async () => {
    const h = harness(20, 6);
    await h.show({ lines: ["ab", "cd"], cursor: { row: 9, col: 99 } });
    expect(h.screen.cursor()).toEqual({ row: 1, col: 19 });
    await h.show({ lines: ["ab", "cd"], cursor: { row: -3, col: Number.NaN } });
    expect(h.screen.cursor()).toEqual({ row: 0, col: 0 });
  });

  test("clearScreen is the only CSI 2J (and 3J with scrollback), and redraws the live region at the top", async () => {
    const h = harness(20, 6);
    h.renderer.commit(["old 1", "old 2"]);
    await h.show({ lines: ["live"], cursor: { row: 0, col: 4 } });
    h.renderer.commit(["before clear"]);
    h.renderer.clearScreen({ scrollback: false });
    await h.settle();
    expect(h.screen.counts().screenClears).toBe(1);
    expect(h.screen.counts().scrollbackClears).toBe(0);
    expect(h.screenText()).toEqual(["live"]);
    expect(h.renderer.stats.screenClears).toBe(1);
    h.renderer.commit(["after"]);
    h.renderer.clearScreen({ scrollback: true });
    await h.settle();
    expect(h.screen.counts().scrollbackClears).toBe(1);
    expect(h.screen.all().filter((row) => row !== "")).toEqual(["live"]);
    h.renderer.commit(["new"]);
    h.renderer.flush();
    await h.settle();
    expect(h.screenText()).toEqual(["new", "live"]);
  });

  test("stop() erases the live region and shows the cursor; keepLive leaves it; nothing is written after", async () => {
    const h = harness(20, 6);
    h.renderer.commit(["kept"]);
    await h.show({ lines: ["live 1", "live 2"], cursor: { row: 0, col: 2 } });
    h.renderer.stop();
    await h.settle();
    expect(h.screenText()).toEqual(["kept"]);
    expect(h.screen.cursor()).toEqual({ row: 1, col: 0 });
    const last = h.writes.at(-1)!;
    expect(last).toContain("\x1b[?25h");
    const count = h.writes.length;
    h.renderer.commit(["late"]);
    h.renderer.requestFrame();
    h.renderer.flush();
    h.renderer.resize();
    h.renderer.clearScreen({ scrollback: true });
    await waitTimers(40);
    expect(h.writes.length).toBe(count);

    const k = harness(20, 6);
    await k.show({ lines: ["live 1", "live 2"], cursor: { row: 0, col: 2 } });
    k.renderer.stop({ keepLive: true });
    await k.settle();
    expect(k.screenText()).toEqual(["live 1", "live 2"]);
    expect(k.screen.cursor()).toEqual({ row: 2, col: 0 });
  });

  test("the first frame starts at column 0 of the cursor's row and erases below it", async () => {
    const h = harness(20, 6);
    await h.screen.write("$ zot\r\nleftover\x1b[1A\x1b[3G");
    h.screen.resize(20, 6);
    await h.show({ lines: ["live"] });
    expect(h.screenText()).toEqual(["live"]);
  });

  test("frame cost does not grow with history: the same bytes for a one-row change after 10 or 5,000 commits", async () => {
    const bytesAfter = async (history: number): Promise<number> => {
      const h = harness(80, 24);
      await h.show({ lines: ["stream", "› ", "status 0"], cursor: { row: 1, col: 2 } });
      for (let i = 0; i < history; i++) h.renderer.commit([`message ${i} ${"word ".repeat(10)}`]);
      h.renderer.flush();
      const before = h.renderer.stats.bytes;
      const rendersBefore = h.renders.length;
      await h.show({ lines: ["stream more", "› ", "status 0"], cursor: { row: 1, col: 2 } });
      expect(h.renders.length - rendersBefore).toBe(1);
      return h.renderer.stats.bytes - before;
    };
    const small = await bytesAfter(10);
    const large = await bytesAfter(5000);
    expect(large).toBe(small);
  });
});

describe("Renderer full-screen views (the alternate screen)", () => {
  test("a full-screen view leaves the main screen as it was; lines committed meanwhile arrive after it, in order", async () => {
    const h = harness(30, 8);
    for (let i = 0; i < 3; i++) h.renderer.commit([`chat ${i}`]);
    await h.show({ lines: ["live", "› prompt"], cursor: { row: 1, col: 9 } });
    const mainBefore = h.screen.all();
    await h.show({ lines: ["help · title", "line 1", "line 2"], fullScreen: true });
    expect(h.writes.at(-1)).toContain("\x1b[?1049h");
    expect(h.screenText().slice(0, 3)).toEqual(["help · title", "line 1", "line 2"]);
    // A change redraws only the changed row, absolutely placed; commits wait for the main screen.
    h.renderer.commit(["chat 3"]);
    await h.show({ lines: ["help · title", "line 1 changed", "line 2"], fullScreen: true });
    expect(h.writes.at(-1)).not.toContain("chat 3");
    expect(h.writes.at(-1)).not.toContain("line 2");
    expect(h.screenText()[1]).toBe("line 1 changed");
    // Back: the main screen exactly as it was, then the waiting commit and the live region after it.
    await h.show({ lines: ["live", "› prompt"], cursor: { row: 1, col: 9 } });
    expect(h.writes.at(-1)).toContain("\x1b[?1049l");
    expect(mainBefore.slice(0, 3)).toEqual(["chat 0", "chat 1", "chat 2"]);
    expect(h.screen.all().filter((row) => row !== "")).toEqual(["chat 0", "chat 1", "chat 2", "chat 3", "live", "› prompt"]);
    expect(h.screen.cursor()).toEqual({ row: h.screenText().indexOf("› prompt"), col: 9 });
    expect(h.renderer.stats.screenClears).toBe(0);
  });

  test("a resize while a full-screen view is up redraws it, and the main region is redrawn whole on return", async () => {
    const h = harness(40, 8);
    h.renderer.commit(["chat line"]);
    await h.show({ lines: ["live", "› prompt"], cursor: { row: 1, col: 2 } });
    await h.show({ lines: ["viewer", "body"], fullScreen: true });
    await h.resize(30, 8);
    expect(h.screenText().slice(0, 2)).toEqual(["viewer", "body"]);
    await h.show({ lines: ["live", "› prompt"], cursor: { row: 1, col: 2 } });
    expect(h.screen.all().filter((row) => row !== "")).toEqual(["chat line", "live", "› prompt"]);
  });

  test("stop() while a full-screen view is up goes back to the main screen first", async () => {
    const h = harness(30, 6);
    await h.show({ lines: ["live"] });
    await h.show({ lines: ["viewer"], fullScreen: true });
    h.renderer.stop();
    await h.settle();
    expect(h.writes.at(-1)).toContain("\x1b[?1049l");
  });
});

describe("Renderer resize", () => {
  test("120 → 40 → 100 columns: no stale fragments above the editor, committed lines intact", async () => {
    const h = harness(120, 30);
    const committed = ["first committed line", "second committed line"];
    h.renderer.commit(committed);
    const live = (width: number) => ({
      lines: [`streaming ${"tail ".repeat(22)}`.slice(0, width), "─".repeat(width), "› a prompt being typed", `status ${width}`],
      cursor: { row: 2, col: 22 },
    });
    await h.show(live(120));
    for (const width of [40, 100]) {
      h.view = live(width);
      await h.resize(width, 30);
      const expected = live(width).lines.map((line) => line.trimEnd());
      expect(h.screenText()).toEqual([...committed, ...expected]);
      expect(h.screen.cursor()).toEqual({ row: 4, col: 22 });
    }
    expect(h.screen.counts().screenClears).toBe(0);
  });

  test("resize when the live region sits at the bottom under a full screen of history", async () => {
    const h = harness(100, 12);
    for (let i = 0; i < 40; i++) h.renderer.commit([`history ${i} ${"h".repeat(60)}`]);
    const view = { lines: ["s".repeat(95), "› typed", "status bar"], cursor: { row: 1, col: 7 } };
    await h.show(view);
    await h.resize(30, 12);
    const rows = h.screenText();
    expect(rows.slice(-3)).toEqual(["s".repeat(29) + "…", "› typed", "status bar"]);
    // Above the live region only history, reflowed by the terminal; no piece of the old 95-column row.
    for (const row of rows.slice(0, -3)) expect(row.startsWith("s")).toBe(false);
    const logical = h.screen.logicalLines().filter((l) => l !== "");
    expect(logical.slice(0, 40)).toEqual(Array.from({ length: 40 }, (_, i) => `history ${i} ${"h".repeat(60)}`));
    expect(logical.length).toBe(42); // "› typed" and the status bar below it are one wrapped line (#writeRows)
  });

  test("a height shrink redraws the clipped region with nothing stale on screen", async () => {
    const h = harness(40, 20);
    h.renderer.commit(["c1", "c2"]);
    const lines = Array.from({ length: 10 }, (_, i) => `live ${i}`);
    await h.show({ lines, cursor: { row: 9, col: 6 } });
    await h.resize(40, 6);
    expect(h.screenText().slice(-5)).toEqual(["live 5", "live 6", "live 7", "live 8", "live 9"]);
    expect(h.screen.cursor()).toEqual({ row: 4, col: 6 });
    await h.resize(40, 20);
    expect(h.screen.screen().filter((row) => row.startsWith("live")).length).toBe(10);
    expect(h.screen.counts().screenClears).toBe(0);
  });

  test("the rows to move up follow the reflow (measured in tmux: the cursor lands on the wrapped part holding its column)", () => {
    // Rows of 20, 5 and 15 columns, cursor at the end of the third, narrowed to 8: 3 + 1 rows above, cursor on part 2 of 2.
    const cols = (n: number) => "x".repeat(n);
    expect(rowsAboveCursorAfterReflow([cols(20), cols(5), cols(15)], 2, 15, 8)).toBe(5);
    // Cursor left of the new width: first part.
    expect(rowsAboveCursorAfterReflow([cols(20), cols(16)], 1, 7, 8)).toBe(3);
    // Cursor past the row's content: never below its last part.
    expect(rowsAboveCursorAfterReflow([cols(20), cols(10)], 1, 16, 8)).toBe(4);
    // Empty rows take one row; a wider terminal changes nothing.
    expect(rowsAboveCursorAfterReflow(["", "", cols(30)], 2, 0, 100)).toBe(2);
    // xterm.js: the line holding the cursor (its row and the rows below, chained by the renderer) is not re-wrapped.
    expect(rowsAboveCursorAfterReflow([cols(20), cols(15), cols(30)], 1, 12, 8, "xterm.js")).toBe(3);
  });

  test("a wide character that does not fit at a row's end takes the next row whole", () => {
    expect(reflowedRows("中文中文中", 3)).toBe(5); // ceil(10 / 3) would say 4
    expect(reflowedRows("\x1b[31mabcdef\x1b[0m", 3)).toBe(2);
    expect(reflowedRows("", 3)).toBe(1);
  });

  test("the resize frame moves up exactly the reflowed rows and never further", async () => {
    const h = harness(60, 30);
    h.renderer.commit(["keep me"]);
    await h.show({ lines: ["w".repeat(60), "x".repeat(25), "› prompt"], cursor: { row: 2, col: 8 } });
    const before = h.writes.length;
    await h.resize(20, 30);
    expect(rowsUp(h.writes[before]!)).toBe(3 + 2);
    expect(h.screenText()).toEqual(["keep me", `${"w".repeat(19)}…`, `${"x".repeat(19)}…`, "› prompt"]);
  });

  test("a height-only change forgets which rows below exist (a taller region then makes new rows, never overwrites)", async () => {
    const h = harness(40, 14);
    for (let i = 0; i < 30; i++) h.renderer.commit([`c${i}`]);
    await h.show({ lines: Array.from({ length: 8 }, (_, i) => `tall ${i}`), cursor: { row: 7, col: 0 } });
    await h.show({ lines: ["a", "b"], cursor: { row: 1, col: 1 } });
    await h.resize(40, 12);
    const lines = ["r0", "r1", "r2", "r3", "r4", "r5", "r6"];
    await h.show({ lines, cursor: { row: 6, col: 2 } });
    expect(h.screenText().slice(-7)).toEqual(lines);
    const logical = h.screen.logicalLines().filter((l) => l !== "");
    expect(logical).toEqual([...Array.from({ length: 30 }, (_, i) => `c${i}`), ...lines]);
  });

  test("a resize back to the size drawn at redraws the region (the terminal was narrower in between and cut the cursor's line)", async () => {
    const h = harness(40, 10);
    h.renderer.commit(["committed"]);
    const view = { lines: ["x".repeat(30), "› typed text here", "status"], cursor: { row: 1, col: 17 } };
    await h.show(view);
    h.screen.resize(10, 10); // the renderer hears only of the last size
    h.screen.resize(40, 10);
    h.renderer.resize();
    await h.settle();
    expect(h.writes.length).toBe(2);
    expect(h.screenText()).toEqual(["committed", ...view.lines]);
    expect(h.screen.cursor()).toEqual({ row: 2, col: 17 });
  });
});

test("a Renderer with a zero or nonsense size falls back to 80x24", () => {
  const writes: string[] = [];
  const renderer = new Renderer({ size: { columns: 0, rows: Number.NaN }, write: (d) => writes.push(d) }, { renderLive: () => ({ lines: ["abc"] }) });
  renderer.flush();
  expect(writes.length).toBe(1);
  renderer.stop();
});

test.skipIf(!TmuxScreen.available())("Ctrl+L in tmux (scroll-on-clear): the history gets the committed lines, no copy of the live region", async () => {
  const screen = new TmuxScreen(40, 10);
  try {
    let view = { lines: ["streaming tail", "› draft", "status"], cursor: { row: 1, col: 7 } };
    const renderer = new Renderer(
      { reflow: "cursor-line", size: { columns: 40, rows: 10 }, write: (data) => screen.write(data) },
      { renderLive: () => view },
    );
    renderer.commit(["committed 1", "committed 2"]);
    renderer.flush();
    renderer.clearScreen({ scrollback: false });
    view = { lines: ["streaming tail more", "› draft", "status"], cursor: { row: 1, col: 7 } };
    renderer.flush();
    await screen.settle();
    const all = screen.logicalLines(screen.rows).filter((line) => line.trim() !== "");
    expect(all).toEqual(["committed 1", "committed 2", "streaming tail more", "› draft", "status"]);
    renderer.stop();
  } finally {
    screen.dispose();
  }
});
