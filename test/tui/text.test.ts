import { describe, expect, test } from "bun:test";
import { displayText, ELLIPSIS, expandTabs, fitWidth, padToWidth, visibleWidth, wrapText } from "../../src/tui/text.ts";
import { seededRandom } from "../support/random.ts";

const SAMPLES = ["word", "中文字符", "😀", "👨‍👩‍👧", "👍🏽", "🇯🇵", "e\u0301", "\x1b[31m", "\x1b[0m", "\x1b[1;38;5;208m", " ", "  ", "supercalifragilistic", "ß", "☕", "…"];


function randomText(random: () => number): string {
  let text = "";
  const n = Math.floor(random() * 30);
  for (let i = 0; i < n; i++) text += SAMPLES[Math.floor(random() * SAMPLES.length)];
  return text;
}

/** Visible text without SGR and spaces, to compare what wrapping kept. */
function letters(text: string): string {
  return Bun.stripANSI(text).replace(/ /g, "");
}

describe("text", () => {
  test("visibleWidth counts wide, emoji, ZWJ and combining the way Bun does; SGR is zero", () => {
    expect(visibleWidth("abc")).toBe(3);
    expect(visibleWidth("中文")).toBe(4);
    expect(visibleWidth("👨‍👩‍👧")).toBe(2);
    expect(visibleWidth("e\u0301")).toBe(1);
    expect(visibleWidth("\x1b[31mred\x1b[0m")).toBe(3);
  });

  test("expandTabs uses 4-column stops per line, measuring wide characters", () => {
    expect(expandTabs("a\tb")).toBe("a   b");
    expect(expandTabs("中\tb\n\tc")).toBe("中  b\n    c");
    expect(expandTabs("none")).toBe("none");
  });

  test("displayText keeps SGR and newlines, drops other controls, expands tabs", () => {
    expect(displayText("\x1b[31mred\x1b[0m\x1b[2J\x1b]0;t\x07\r\n\tx")).toBe("\x1b[31mred\x1b[0m\n    x");
  });

  test("fitWidth cuts with an ellipsis, never splits a wide character, closes colours", () => {
    expect(fitWidth("hello", 5)).toBe("hello");
    expect(fitWidth("hello world", 8)).toBe(`hello w${ELLIPSIS}`);
    expect(fitWidth("中文中文", 5)).toBe(`中文${ELLIPSIS}`);
    expect(fitWidth("\x1b[31mredredred", 4)).toBe(`\x1b[31mred\x1b[0m${ELLIPSIS}`);
    expect(fitWidth("abc", 0)).toBe(ELLIPSIS);
  });

  test("wrapText breaks at spaces, hard-breaks long words, carries SGR across rows", () => {
    expect(wrapText("the quick brown fox", 10)).toEqual(["the quick", "brown fox"]);
    expect(wrapText("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
    expect(wrapText("a\nb", 10)).toEqual(["a", "b"]);
    expect(wrapText("  indented text here", 10)).toEqual(["  indented", "text here"]);
    expect(wrapText("中a", 1)).toEqual([ELLIPSIS, "a"]); // a wide character cannot fit one column
    expect(wrapText("\x1b[31mred words here\x1b[0m", 9)).toEqual(["\x1b[31mred words\x1b[0m", "\x1b[31mhere\x1b[0m"]);
  });

  test("random text: no function returns a line wider than its width, and wrapping keeps every character", () => {
    const random = seededRandom(42);
    for (let i = 0; i < 2000; i++) {
      const text = randomText(random);
      const width = 1 + Math.floor(random() * 30);
      const fitted = fitWidth(text, width);
      expect(Bun.stringWidth(fitted)).toBeLessThanOrEqual(width);
      const padded = padToWidth(text, width);
      expect(Bun.stringWidth(padded)).toBe(width);
      const rows = wrapText(text, width);
      for (const row of rows) expect(Bun.stringWidth(row), JSON.stringify({ text, width, row })).toBeLessThanOrEqual(width);
      if (width >= 2) expect(letters(rows.join(""))).toBe(letters(text));
    }
  });
});
