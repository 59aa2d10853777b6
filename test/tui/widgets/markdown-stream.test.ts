import { describe, expect, test } from "bun:test";
import { visibleWidth } from "../../../src/tui/text.ts";
import { createTheme } from "../../../src/tui/theme.ts";
import { MarkdownStream, renderMarkdown } from "../../../src/tui/widgets/markdown-stream.ts";
import { seededRandom } from "../../support/random.ts";

const colour = createTheme(true);
const plain = createTheme(false);
const stripSgr = (s: string) => s.replace(/\x1b\[[0-9;:]*m/g, "");


const WORDS = ["alpha", "beta", "gamma", "**bold**", "`code`", "*em*", "[link](http://x.y/z)", "日本語", "👍🏽", "e\u0301", "~~gone~~", "averyveryverylongwordthatneverends", "|", "x"];
const BLOCKS: ((r: () => number) => string)[] = [
  (r) => `${"#".repeat(1 + Math.floor(r() * 3))} ${words(r, 4)}`,
  (r) => lines(r, 1 + Math.floor(r() * 6), () => words(r, 12)),
  (r) => words(r, 80),
  (r) => lines(r, 1 + Math.floor(r() * 5), (i) => `${r() < 0.3 ? "  " : ""}${r() < 0.5 ? "-" : `${i + 1}.`} ${words(r, 6)}`),
  (r) => `- ${words(r, 3)}\n  - ${words(r, 3)}\n    - ${words(r, 2)}\n- ${words(r, 3)}`,
  (r) => "```" + (r() < 0.5 ? "ts" : "") + "\n" + lines(r, 1 + Math.floor(r() * 8), () => `  const x = "${words(r, 5)}";\t// ${words(r, 2)}`) + "\n```",
  (r) => "```python\n" + lines(r, 3, () => `print(${words(r, 3)})`), // unclosed until the next fence, or forever
  (r) => `| a | b |\n|---|:-:|\n` + lines(r, 1 + Math.floor(r() * 4), () => `| ${words(r, 2)} | ${words(r, 3)} |`),
  (r) => lines(r, 1 + Math.floor(r() * 4), () => `> ${words(r, 8)}`),
  (r) => `${words(r, 5)}\n${r() < 0.5 ? "===" : "---"}`,
  () => "---",
  (r) => `${words(r, 4)}\r\n${words(r, 4)}\x1b[2J\x1b]0;title\x07 \x1b[31mred\x1b[0m\x9b1;1H done`,
  (r) => `    indented code ${words(r, 3)}\n    more`,
];

function words(r: () => number, max: number): string {
  const n = 1 + Math.floor(r() * max);
  return Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(" ");
}
function lines(r: () => number, n: number, line: (i: number) => string): string {
  return Array.from({ length: n }, (_, i) => line(i)).join("\n");
}
function document(r: () => number): string {
  const n = 1 + Math.floor(r() * 8);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    parts.push(BLOCKS[Math.floor(r() * BLOCKS.length)]!(r));
    parts.push(r() < 0.8 ? "\n\n" : "\n");
  }
  if (r() < 0.5) parts.pop();
  return parts.join("");
}
function deltas(r: () => number, text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const n = r() < 0.2 ? 1 : 1 + Math.floor(r() * 12);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

function streamed(text: string, pieces: readonly string[], width: number, r: () => number, options = { theme: colour }): string[] {
  const stream = new MarkdownStream(options);
  const out: string[] = [];
  for (const piece of pieces) {
    stream.append(piece);
    if (r() < 0.7) out.push(...stream.takeCommitted(width));
    if (r() < 0.5) stream.render(width);
  }
  stream.finish();
  if (r() < 0.5) out.push(...stream.takeCommitted(width));
  out.push(...stream.render(width));
  return out;
}

describe("MarkdownStream", () => {
  test("property: committed rows plus the final render equal the whole text drawn at once, however it is cut", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = seededRandom(seed);
      const text = document(r);
      const width = [1, 2, 5, 20, 40, 80, 133][seed % 7]!;
      const whole = renderMarkdown(text, width, { theme: colour });
      const got = streamed(text, deltas(r, text), width, r);
      if (got.join("\n") !== whole.join("\n")) {
        throw new Error(`seed ${seed} width ${width}\n${JSON.stringify(text)}\nwhole:\n${whole.join("\n")}\nstreamed:\n${got.join("\n")}`);
      }
      for (const row of whole) expect(visibleWidth(row)).toBeLessThanOrEqual(width);
    }
  });

  test("control sequences and SGR from the model are stripped, CRLF is a newline, even split mid-sequence", () => {
    const text = "one\r\ntwo \x1b[31mred\x1b[0m \x1b]8;;http://evil\x07link\x1b]8;;\x07 \x1b[2J\x1b[Hend\x07";
    for (let cut = 1; cut < text.length; cut++) {
      const stream = new MarkdownStream({ theme: plain });
      stream.append(text.slice(0, cut));
      stream.append(text.slice(cut));
      stream.finish();
      const rows = [...stream.takeCommitted(80), ...stream.render(80)];
      expect(rows).toEqual(["one", "two red link end"]);
    }
  });

  test("single newlines are kept; lists, tables and fences are not disturbed", () => {
    const rows = renderMarkdown("first line\nsecond line\n\n- a\n- b\n\n| h | i |\n|---|---|\n| 1 | 2 |\n\n```\nx\ny\n```", 40, { theme: plain });
    expect(rows).toEqual([
      "first line",
      "second line",
      "  * a",
      "  * b",
      "",
      "+-----+-----+",
      "| h   | i   |",
      "+-----+-----+",
      "| 1   | 2   |",
      "+-----+-----+",
      "",
      "+-",
      "| x",
      "| y",
      "+-",
    ]);
  });

  test("draws what Bun.markdown.ansi draws for ordinary answers (hard breaks aside)", () => {
    const docs = [
      "# Title\n\nSome text with **bold** and `code`.\n\n## Steps\n\n1. one\n2. two\n3. three\n\n```ts\nconst x = 1;\n```\n\nDone.",
      "- a\n- b\n  - nested\n- c\n\n> quoted text\n\n---\n\nend",
      "| a | b |\n|---|---|\n| 1 | 2 |\n\ntext after",
    ];
    for (const doc of docs) {
      for (const width of [30, 80]) {
        const expected = Bun.markdown.ansi(doc, { columns: width }).replace(/\n+$/, "").split("\n").map(stripSgr);
        expect(renderMarkdown(doc, width, { theme: colour }).map(stripSgr)).toEqual(expected);
      }
    }
  });

  test("a complete block is committed at once; in a long paragraph or code block only the last line or two stay live", () => {
    const stream = new MarkdownStream({ theme: plain });
    stream.append("# Head\n");
    expect(stream.takeCommitted(40)).toEqual(["Head", "===="]);
    stream.append("\n");
    for (let i = 0; i < 200; i++) stream.append(`line ${i} of a long paragraph\n`);
    const committed = stream.takeCommitted(40);
    expect(committed.length).toBeGreaterThanOrEqual(199);
    expect(stream.render(40).length).toBeLessThanOrEqual(2);
    stream.append("\n```ts\n");
    for (let i = 0; i < 300; i++) stream.append(`let v${i} = ${i};\n`);
    stream.append("let partial");
    expect(stream.takeCommitted(40).length).toBeGreaterThanOrEqual(300);
    expect(stream.render(40)).toEqual(["| let partial"]);
  });

  test("an unclosed fence is closed at finish()", () => {
    expect(renderMarkdown("```\ncode", 20, { theme: plain })).toEqual(["+-", "| code", "+-"]);
  });

  test("a width change between calls repeats nothing and loses nothing", () => {
    for (let seed = 1; seed <= 100; seed++) {
      const r = seededRandom(seed * 7919);
      const text = document(r).replace(/\|/g, "/"); // tables re-lay their borders per width; the words are what we follow
      const stream = new MarkdownStream({ theme: plain });
      const out: string[] = [];
      for (const piece of deltas(r, text)) {
        stream.append(piece);
        const width = 10 + Math.floor(r() * 100);
        out.push(...stream.takeCommitted(width));
        const live = stream.render(width);
        for (const row of live) expect(visibleWidth(row)).toBeLessThanOrEqual(width);
      }
      stream.finish();
      out.push(...stream.render(57));
      const words = (rows: readonly string[]) => rows.join(" ").split(/[\s+|*=-]+/).filter((w) => w !== "").join(" ");
      // Word wrap may split an over-long word differently per width: compare with those rejoined.
      const squash = (s: string) => s.replace(/ /g, "");
      expect(squash(words(out))).toEqual(squash(words(renderMarkdown(text, 57, { theme: plain }))));
    }
  });

  test("thinking text is dimmed and carries no other colours", () => {
    const rows = renderMarkdown("**bold** thought\n\n```ts\nconst x = 1;\n```", 40, { theme: colour, dim: true });
    for (const row of rows.filter((row) => row !== "")) {
      expect(row.startsWith("\x1b[2m")).toBe(true);
      expect(row.replace(/^\x1b\[2m/, "").replace(/\x1b\[22m$/, "")).not.toContain("\x1b");
    }
    expect(renderMarkdown("plain", 40, { theme: plain, dim: true })).toEqual(["plain"]);
  });

  test("render() returns the same array while nothing changed, a new one after a delta or another width", () => {
    const stream = new MarkdownStream({ theme: colour });
    stream.append("hello **wor");
    const a = stream.render(30);
    expect(stream.render(30)).toBe(a);
    expect(stream.render(31)).not.toBe(a);
    const b = stream.render(31);
    stream.append("ld**");
    expect(stream.render(31)).not.toBe(b);
  });

  test("every row fits every width from 1 to 200 with hostile content", () => {
    const nasty = "# 日本語の見出し 👨‍👩‍👧‍👦\n\n" + "ｗｉｄｅ".repeat(30) + "\n\n```\n\t\tindented 日本語 " + "x".repeat(300) + "\n```\n\n| 日本 | 👍🏽 |\n|---|---|\n| e\u0301 | " + "y".repeat(90) + " |\n\n- " + "z".repeat(250);
    for (let width = 1; width <= 200; width++) {
      const stream = new MarkdownStream({ theme: colour });
      stream.append(nasty.slice(0, 150));
      for (const row of stream.render(width)) expect(visibleWidth(row)).toBeLessThanOrEqual(width);
      stream.append(nasty.slice(150));
      stream.finish();
      for (const row of [...stream.takeCommitted(width), ...stream.render(width)]) expect(visibleWidth(row)).toBeLessThanOrEqual(width);
    }
  });
});
