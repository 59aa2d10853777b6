import { describe, expect, test } from "bun:test";
import { LineReader } from "../../src/common/line-reader.ts";

function collect(maxBytes?: number) {
  const lines: string[] = [];
  const overflows: number[] = [];
  const reader = new LineReader({ line: (l) => lines.push(l), overflow: (n) => overflows.push(n) }, maxBytes);
  return { reader, lines, overflows };
}

const enc = new TextEncoder();

describe("LineReader", () => {
  test("splits on LF only, strips one trailing CR", () => {
    const { reader, lines } = collect();
    reader.push(enc.encode('{"a":1}\r\n{"b":"x\u2028y\u2029z"}\n\r\r\n'));
    expect(lines).toEqual(['{"a":1}', '{"b":"x\u2028y\u2029z"}', "\r"]);
  });

  test("lines split across chunks and inside multi-byte characters", () => {
    const { reader, lines } = collect();
    const bytes = enc.encode('{"t":"héllo 🌍"}\n{"t":"二"}\n');
    for (let i = 0; i < bytes.length; i++) reader.push(bytes.subarray(i, i + 1));
    expect(lines).toEqual(['{"t":"héllo 🌍"}', '{"t":"二"}']);
  });

  test("a final line without LF is delivered at end of stream", () => {
    const { reader, lines } = collect();
    reader.push(enc.encode('{"a":1}\n{"b":2}'));
    expect(lines).toEqual(['{"a":1}']);
    reader.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  test("a line over the limit overflows once and stops, without buffering it", () => {
    const { reader, lines, overflows } = collect(16);
    reader.push(enc.encode("short\n"));
    reader.push(enc.encode("0123456789"));
    expect(reader.buffered).toBe(10);
    reader.push(enc.encode("0123456789\nnext\n"));
    expect(lines).toEqual(["short"]);
    expect(overflows.length).toBe(1);
    expect(reader.buffered).toBe(0);
    reader.push(enc.encode("more\n"));
    expect(lines).toEqual(["short"]);
  });

  test("a line of exactly the limit passes; one byte more overflows", () => {
    const ok = collect(8);
    ok.reader.push(enc.encode("12345678\n"));
    expect(ok.lines).toEqual(["12345678"]);
    const bad = collect(8);
    bad.reader.push(enc.encode("123456789\n"));
    expect(bad.overflows.length).toBe(1);
  });

  test("property: any chunking of a valid byte stream yields the same frames", () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const alphabet = ["a", "é", "🌍", "二", "\u2028", "\r", " ", '"', "\\"];
    for (let round = 0; round < 200; round++) {
      const frames: string[] = [];
      const count = 1 + Math.floor(random() * 8);
      for (let i = 0; i < count; i++) {
        let text = "";
        const len = Math.floor(random() * 40);
        for (let j = 0; j < len; j++) text += alphabet[Math.floor(random() * alphabet.length)];
        frames.push(JSON.stringify({ type: "notify", message: text }));
      }
      const bytes = enc.encode(frames.map((f) => `${f}${random() < 0.3 ? "\r" : ""}\n`).join(""));
      const { reader, lines } = collect();
      let offset = 0;
      while (offset < bytes.length) {
        const size = 1 + Math.floor(random() * 17);
        reader.push(bytes.slice(offset, offset + size));
        offset += size;
      }
      reader.end();
      expect(lines).toEqual(frames);
    }
  });
});

describe("LineReader skip-line mode (RPC stdin)", () => {
  test("an over-long line is reported once and skipped; reading goes on with the next line", () => {
    const lines: string[] = [];
    const overflows: number[] = [];
    const reader = new LineReader({ line: (l) => lines.push(l), overflow: (n) => overflows.push(n) }, 8, "skip-line");
    reader.push(enc.encode("ok\n0123"));
    reader.push(enc.encode("456789abc"));
    reader.push(enc.encode("def\nnext\n123456789\nlast"));
    reader.end();
    expect(lines).toEqual(["ok", "next", "last"]);
    expect(overflows.length).toBe(2);
    expect(reader.buffered).toBe(0);
  });

  test("any chunking of a stream with over-long lines yields the same lines", () => {
    const text = "a\n" + "x".repeat(50) + "\nb🌍\n" + "y".repeat(9) + "\nc\n";
    const bytes = enc.encode(text);
    for (let size = 1; size <= bytes.length; size++) {
      const lines: string[] = [];
      const reader = new LineReader({ line: (l) => lines.push(l), overflow: () => {} }, 8, "skip-line");
      for (let i = 0; i < bytes.length; i += size) reader.push(bytes.slice(i, i + size));
      reader.end();
      expect(lines).toEqual(["a", "b🌍", "c"]);
    }
  });
});
