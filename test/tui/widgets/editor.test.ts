import { describe, expect, test } from "bun:test";
import { visibleWidth } from "../../../src/tui/text.ts";
import { createTheme } from "../../../src/tui/theme.ts";
import type { Key } from "../../../src/tui/types.ts";
import { Editor } from "../../../src/tui/widgets/editor.ts";
import { caretRow, layoutRows, NEWLINE, unitsOf } from "../../../src/tui/widgets/editor-layout.ts";
import { seededRandom } from "../../support/random.ts";

const theme = createTheme(false);
const key = (name: string, mods: { ctrl?: boolean; alt?: boolean; shift?: boolean } = {}): Key => ({
  kind: "key",
  name,
  ctrl: mods.ctrl ?? false,
  alt: mods.alt ?? false,
  shift: mods.shift ?? false,
});
const type = (text: string): Key => ({ kind: "text", text });
const paste = (text: string): Key => ({ kind: "paste", text });

function editor(text = "", options: { maxRows?: number; prompt?: string } = {}): Editor {
  const e = new Editor({ theme, ...options });
  if (text !== "") e.setText(text);
  return e;
}
/** The text with "|" where the caret is (found through the rendered caret position at a wide width). */
function withCaret(e: Editor): string {
  const lines = e.render(200);
  const { row, col } = e.cursor(200);
  const line = lines[row]!.slice(2);
  let used = 0;
  let cut = 0;
  for (const { segment } of new Intl.Segmenter().segment(line)) {
    if (used >= col - 2) break;
    used += Bun.stringWidth(segment);
    cut += segment.length;
  }
  const rows = lines.map((l) => l.slice(2));
  rows[row] = line.slice(0, cut) + "|" + line.slice(cut);
  return rows.join("\n");
}


describe("Editor", () => {
  test("Enter submits; Alt+Enter, Shift+Enter and a backslash before the caret insert a newline", () => {
    const e = editor();
    e.handle(type("one"));
    expect(e.handle(key("enter", { alt: true }))).toEqual({ kind: "changed" });
    e.handle(type("two"));
    e.handle(key("enter", { shift: true }));
    e.handle(type("three\\"));
    e.handle(key("enter"));
    expect(e.text).toBe("one\ntwo\nthree\n");
    expect(e.handle(key("enter"))).toEqual({ kind: "submit", text: "one\ntwo\nthree\n" });
    expect(e.empty).toBe(true);
  });

  test("moves: ← → Home End Ctrl+A/E, word moves with Alt+←/→ and Alt+B/F", () => {
    const e = editor("alpha beta\ngamma delta");
    expect(withCaret(e)).toBe("alpha beta\ngamma delta|");
    e.handle(key("left", { alt: true }));
    expect(withCaret(e)).toBe("alpha beta\ngamma |delta");
    e.handle(key("b", { alt: true }));
    expect(withCaret(e)).toBe("alpha beta\n|gamma delta");
    e.handle(key("b", { alt: true }));
    expect(withCaret(e)).toBe("alpha |beta\ngamma delta");
    e.handle(key("f", { alt: true }));
    expect(withCaret(e)).toBe("alpha beta|\ngamma delta");
    e.handle(key("right", { alt: true }));
    expect(withCaret(e)).toBe("alpha beta\ngamma| delta");
    e.handle(key("home"));
    expect(withCaret(e)).toBe("alpha beta\n|gamma delta");
    e.handle(key("e", { ctrl: true }));
    expect(withCaret(e)).toBe("alpha beta\ngamma delta|");
    e.handle(key("a", { ctrl: true }));
    e.handle(key("left"));
    expect(withCaret(e)).toBe("alpha beta|\ngamma delta");
    e.handle(key("home"));
    e.handle(key("right"));
    expect(withCaret(e)).toBe("a|lpha beta\ngamma delta");
    e.handle(key("end"));
    expect(withCaret(e)).toBe("alpha beta|\ngamma delta");
  });

  test("deletes: Backspace, Delete, Ctrl+D, Ctrl+U/K, Ctrl+W, Alt+Backspace", () => {
    const e = editor("one two three");
    e.handle(key("backspace"));
    expect(e.text).toBe("one two thre");
    e.handle(key("w", { ctrl: true }));
    expect(e.text).toBe("one two ");
    e.handle(key("backspace", { alt: true }));
    expect(e.text).toBe("one ");
    e.handle(key("home"));
    e.handle(key("delete"));
    expect(e.text).toBe("ne ");
    e.handle(key("d", { ctrl: true }));
    expect(e.text).toBe("e ");
    e.handle(key("k", { ctrl: true }));
    expect(e.text).toBe("");
    expect(e.handle(key("d", { ctrl: true }))).toEqual({ kind: "ignored" });
    e.setText("first\nsecond line");
    e.handle(key("left"));
    e.handle(key("u", { ctrl: true }));
    expect(withCaret(e)).toBe("first\n|e");
    e.handle(key("u", { ctrl: true }));
    expect(withCaret(e)).toBe("first|e");
  });

  test("keys the app owns are ignored", () => {
    const e = editor("x");
    for (const k of [key("escape"), key("tab"), key("c", { ctrl: true }), key("l", { ctrl: true }), key("o", { ctrl: true }), key("pageup")]) {
      expect(e.handle(k)).toEqual({ kind: "ignored" });
    }
    expect(e.text).toBe("x");
  });

  test("soft wrap at word boundaries with exact caret columns for wide characters, emoji and combining marks", () => {
    const e = editor("hello world again", { prompt: "> " });
    expect(e.render(12)).toEqual(["> hello ", "  world ", "  again"]);
    expect(e.cursor(12)).toEqual({ row: 2, col: 7 });
    e.setText("日本語👨‍👩‍👧‍👦e\u0301x");
    expect(e.render(40)).toEqual(["> 日本語👨‍👩‍👧‍👦e\u0301x"]);
    expect(e.cursor(40)).toEqual({ row: 0, col: 2 + 6 + 2 + 1 + 1 });
    e.handle(key("left"));
    e.handle(key("left"));
    expect(e.cursor(40).col).toBe(2 + 6 + 2);
    e.handle(key("left"));
    expect(e.cursor(40).col).toBe(2 + 6);
    // A wide character never straddles the edge: it moves to the next row.
    e.setText("日本語日本語");
    expect(e.render(9)).toEqual(["> 日本語", "  日本語"]);
  });

  test("↑/↓ move between rows, then walk the history at the first and last row; ←/→ walk it on an empty editor", () => {
    const e = editor("", { prompt: "> " });
    e.setHistory(["first", "second"]);
    e.handle(type("draft"));
    e.handle(key("up"));
    expect(e.text).toBe("second");
    e.handle(key("up"));
    expect(e.text).toBe("first");
    e.handle(key("up"));
    expect(e.text).toBe("first");
    e.handle(key("down"));
    e.handle(key("down"));
    expect(e.text).toBe("draft");
    e.clear();
    e.handle(key("left"));
    expect(e.text).toBe("second");
    e.clear();
    e.handle(key("right"));
    expect(e.text).toBe("");
    // Rows of a wrapped line: ↑ moves up a row keeping the column.
    e.setText("aaaa bbbb cccc");
    e.render(9); // rows "aaaa " "bbbb " "cccc"
    e.handle(key("left"));
    expect(e.cursor(9)).toEqual({ row: 2, col: 5 });
    e.handle(key("up"));
    expect(e.cursor(9)).toEqual({ row: 1, col: 5 });
    e.handle(key("up"));
    expect(e.cursor(9)).toEqual({ row: 0, col: 5 });
    expect(e.text).toBe("aaaa bbbb cccc");
    e.handle(key("down"));
    e.handle(key("down"));
    expect(e.cursor(9)).toEqual({ row: 2, col: 5 });
  });

  test("a long paste becomes a numbered chip, expanded on submit; a short one is inserted as is", () => {
    const e = editor();
    const long = Array.from({ length: 60 }, (_, i) => `line ${i}`).join("\n");
    e.handle(type("see "));
    e.handle(paste(long));
    e.handle(type(" and "));
    e.handle(paste("a\nb"));
    e.handle(paste("x".repeat(1500)));
    expect(e.text).toBe("see [pasted text #1 +60 lines] and a\nb[pasted text #2 1500 chars]");
    expect(e.handle(key("enter"))).toEqual({ kind: "submit", text: `see ${long} and a\nb${"x".repeat(1500)}` });
    // Each draft numbers its chips from 1 again: after a submit, and after a clear (the original's "clear resets").
    e.handle(paste(long));
    expect(e.text).toBe("[pasted text #1 +60 lines]");
    e.clear();
    e.handle(paste(long));
    expect(e.text).toBe("[pasted text #1 +60 lines]");
  });

  test("a pasted text ending in a newline counts its lines as an editor does", () => {
    const e = editor();
    const lines = `${Array.from({ length: 10 }, (_, i) => `line ${i}`).join("\n")}\n`;
    e.handle(paste(lines));
    expect(e.text).toBe("[pasted text #1 +10 lines]");
    expect(e.handle(key("enter"))).toEqual({ kind: "submit", text: lines });
  });

  test("a chip is atomic: the caret steps over it and one Backspace deletes it whole", () => {
    const e = editor("look at ");
    e.insertChip("[file:src/a.ts]", "src/a.ts");
    e.insert(" now");
    expect(e.text).toBe("look at [file:src/a.ts] now");
    for (let i = 0; i < 4; i++) e.handle(key("left"));
    expect(withCaret(e)).toBe("look at [file:src/a.ts]| now");
    e.handle(key("left"));
    expect(withCaret(e)).toBe("look at |[file:src/a.ts] now");
    e.handle(key("right"));
    e.handle(key("backspace"));
    expect(e.text).toBe("look at  now");
    e.handle(key("z", { ctrl: true }));
    e.setText("");
    e.insertChip("[dir:src/]", "src/");
    expect(e.handle(key("enter"))).toEqual({ kind: "submit", text: "src/" });
  });

  test("trigger() finds /word at the start and @word after whitespace; replaceTrigger swaps the word", () => {
    const e = editor("/mo");
    expect(e.trigger()).toEqual({ char: "/", query: "mo" });
    e.replaceTrigger("/model ");
    expect(e.text).toBe("/model ");
    expect(e.trigger()).toBeUndefined();
    e.setText("fix @src/ma");
    expect(e.trigger()).toEqual({ char: "@", query: "src/ma" });
    e.replaceTrigger("");
    e.insertChip("[file:src/main.ts]", "src/main.ts");
    expect(e.text).toBe("fix [file:src/main.ts]");
    e.setText("mail a@b");
    expect(e.trigger()).toBeUndefined();
    e.setText("see /x");
    expect(e.trigger()).toBeUndefined();
    e.setText("@");
    expect(e.trigger()).toEqual({ char: "@", query: "" });
  });

  test("maxRows: the rows shown scroll to keep the caret visible", () => {
    const e = editor(Array.from({ length: 20 }, (_, i) => `row ${i}`).join("\n"), { maxRows: 5 });
    expect(e.render(40)).toEqual(["  row 15", "  row 16", "  row 17", "  row 18", "  row 19"]);
    expect(e.cursor(40)).toEqual({ row: 4, col: 8 });
    for (let i = 0; i < 6; i++) e.handle(key("up"));
    expect(e.render(40)[0]).toBe("  row 13");
    expect(e.cursor(40)).toEqual({ row: 0, col: 8 });
  });

  test("render() returns the same array until the text, the caret or the width changes", () => {
    const e = editor("abc");
    const a = e.render(30);
    expect(e.render(30)).toBe(a);
    e.handle(key("left"));
    expect(e.render(30)).not.toBe(a);
  });

  test("control sequences in typed or pasted text are dropped; tabs become spaces", () => {
    const e = editor();
    e.handle(paste("a\x1b[31mred\x1b[0m\tb\x1b]0;t\x07\r\nc"));
    expect(e.text).toBe("ared    b\nc");
  });

  test("every row fits every width from 1 to 200, the caret is inside the rows", () => {
    const r = seededRandom(42);
    const pieces = ["日本", "👨‍👩‍👧‍👦", "e\u0301", "word ", " ", "\n", "ｗｉｄｅ", "averyveryveryverylongword", "x"];
    const keys: Key[] = [key("left"), key("right"), key("up"), key("down"), key("backspace"), key("home"), key("end"), key("w", { ctrl: true })];
    for (let width = 1; width <= 200; width++) {
      const e = editor("", { maxRows: 1 + (width % 7) });
      for (let step = 0; step < 30; step++) {
        const x = r();
        if (x < 0.6) e.handle(type(pieces[Math.floor(r() * pieces.length)]!));
        else if (x < 0.65) e.insertChip("[pasted text #1 +60 lines]", "…");
        else e.handle(keys[Math.floor(r() * keys.length)]!);
        const lines = e.render(width);
        for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
        const c = e.cursor(width);
        expect(c.row).toBeGreaterThanOrEqual(0);
        expect(c.row).toBeLessThan(lines.length);
        expect(c.col).toBeLessThan(width);
      }
    }
  });
});

describe("layoutRows", () => {
  test("every unit lands on exactly one row, in order; rows fit (one hanging space or a lone wide unit aside)", () => {
    const r = seededRandom(7);
    const pieces = ["日", "👍🏽", "e\u0301", "ab", " ", "  ", "\n", "word"];
    for (let n = 0; n < 500; n++) {
      const text = Array.from({ length: Math.floor(r() * 30) }, () => pieces[Math.floor(r() * pieces.length)]).join("");
      const units = unitsOf(text);
      const columns = 1 + Math.floor(r() * 12);
      const rows = layoutRows(units, columns);
      let next = 0;
      for (const row of rows) {
        if (units[next] === NEWLINE && row.start === next + 1) next++;
        expect(row.start).toBe(next);
        next = row.end;
        const last = units[row.end - 1];
        if (row.width > columns) expect(last?.text === " " || row.end - row.start === 1).toBe(true);
      }
      expect(next).toBe(units.length);
      for (let caret = 0; caret <= units.length; caret++) {
        const row = rows[caretRow(rows, caret)]!;
        expect(caret >= row.start && caret <= row.end).toBe(true);
      }
    }
  });
});
