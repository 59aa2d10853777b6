/**
 * The terminal sanitizer on hostile input: what survives is printable text,
 * "\n", "\t" and SGR colours; every other control sequence disappears with
 * its payload, also when a streamed text splits it across chunks.
 */
import { describe, expect, test } from "bun:test";
import {
  MAX_SGR_LENGTH,
  createByteStreamSanitizer,
  TerminalTextSanitizer,
  escapeJsonForTerminal,
  sanitizeTerminalText as clean,
} from "../../src/common/terminal-text.ts";

const ESC = "\x1b";
const BEL = "\x07";
const ST = `${ESC}\\`;

/** Every way of feeding `text` in pieces: each split point, and one character at a time. */
function streamedResults(text: string): string[] {
  const results: string[] = [];
  for (let cut = 0; cut <= text.length; cut++) {
    const sanitizer = new TerminalTextSanitizer();
    results.push(sanitizer.push(text.slice(0, cut)) + sanitizer.push(text.slice(cut)));
  }
  const sanitizer = new TerminalTextSanitizer();
  results.push([...text].map((ch) => sanitizer.push(ch)).join(""));
  return results;
}

function expectClean(input: string, expected: string): void {
  expect(clean(input)).toBe(expected);
  for (const result of streamedResults(input)) expect(result).toBe(expected);
}

describe("sanitizeTerminalText", () => {
  test("plain text, newlines, tabs and Unicode pass unchanged (the same string)", () => {
    const text = "hello\n\tworld — ünïcödé 日本語 🎉";
    expect(clean(text)).toBe(text);
    expect(new TerminalTextSanitizer().push(text)).toBe(text);
  });

  test("SGR colours are kept, including 256-colour, truecolour and colon forms", () => {
    const text = `${ESC}[31mred${ESC}[0m ${ESC}[1;38;5;208mx${ESC}[m ${ESC}[38;2;1;2;3my${ESC}[4:3mz${ESC}[39m`;
    expectClean(text, text);
  });

  test("OSC 52 clipboard writes vanish with their payload (BEL and ST terminated)", () => {
    expectClean(`a${ESC}]52;c;ZWNobyBwd25lZA==${BEL}b`, "ab");
    expectClean(`a${ESC}]52;c;ZWNobyBwd25lZA==${ST}b`, "ab");
    expectClean(`a\x9d52;c;ZWNobw==\x9cb`, "ab");
  });

  test("window title, OSC 8 hyperlinks and colour queries vanish", () => {
    expectClean(`${ESC}]0;pwned${BEL}title`, "title");
    expectClean(`${ESC}]2;pwned${ST}title`, "title");
    expectClean(`${ESC}]8;;https://evil.example/${ST}click${ESC}]8;;${ST}`, "click");
    expectClean(`${ESC}]11;?${BEL}q`, "q");
  });

  test("cursor moves, erases, scroll regions and mode changes vanish", () => {
    expectClean(`a${ESC}[2J${ESC}[H${ESC}[10;20H${ESC}[3Ab${ESC}[K${ESC}[1;5r`, "ab");
    expectClean(`${ESC}[?1049hALT${ESC}[?1049l`, "ALT");
    expectClean(`${ESC}[?25l${ESC}[?1000h${ESC}[?2004l${ESC}[6n.`, ".");
    expectClean(`${ESC}[>4;2mkeys`, "keys");
    expectClean(`${ESC}[?31mprivate`, "private");
    expectClean(`${ESC}[31 mintermediate`, "intermediate");
  });

  test("single-character and charset escapes vanish", () => {
    expectClean(`${ESC}cRIS${ESC}7${ESC}8${ESC}M${ESC}=${ESC}>`, "RIS");
    expectClean(`${ESC}(0lqqk${ESC}(B`, "lqqk");
    expectClean(`${ESC}#8x`, "x");
  });

  test("DCS, SOS, PM and APC strings vanish; only ST (or BEL) ends them", () => {
    expectClean(`a${ESC}P1$r0m${ST}b`, "ab");
    expectClean(`a${ESC}Xsos${ST}b${ESC}^pm${ST}c${ESC}_Gf=100;AAAA${ST}d`, "abcd");
    expectClean(`a${ESC}Ptmux;${ESC}${ESC}]0;x${BEL}${ST}b`, "ab");
  });

  test("8-bit C1 controls vanish, 8-bit CSI with its parameters", () => {
    expectClean("a\x9b2Jb\x9b31mc\x85d\x84\x8d\x9ce", "abcde");
    expectClean("a\x90dcs\x9cb", "ab");
  });

  test("C0 controls other than \\n and \\t vanish: \\r, backspace, bell, DEL", () => {
    expectClean("safe\rEVIL", "safeEVIL");
    expectClean("line\r\nnext", "line\nnext");
    expectClean("abc\b\b\bxyz", "abcxyz");
    expectClean("ding\x07\x00\x0b\x0c\x0e\x7f.", "ding.");
  });

  test("an incomplete sequence at the end is dropped, never printed in part", () => {
    for (const tail of [ESC, `${ESC}[`, `${ESC}[31`, `${ESC}]0;tit`, `${ESC}]0;title${ESC}`, `${ESC}(`, "\x9b3", `${ESC}P`]) {
      expect(clean(`ok${tail}`)).toBe("ok");
    }
  });

  test("a sequence aborted by a stray character gives that character back as text", () => {
    expectClean(`${ESC}[31\nm`, "\nm");
    expectClean(`${ESC}é`, "é");
    expectClean(`${ESC}[12${ESC}[32mgreen`, `${ESC}[32mgreen`);
    expectClean(`${ESC}[1\x18x`, "x");
    expectClean(`${ESC}]0;t${ESC}[31mred`, `${ESC}[31mred`);
  });

  test("an over-long SGR is dropped, but bounded work and memory", () => {
    const long = `${ESC}[${"1;".repeat(MAX_SGR_LENGTH)}mx`;
    expect(clean(long)).toBe("x");
    const sanitizer = new TerminalTextSanitizer();
    let out = sanitizer.push(`${ESC}[`);
    for (let i = 0; i < 10_000; i++) out += sanitizer.push("1;".repeat(100));
    out += sanitizer.push("mdone");
    expect(out).toBe("done");
  });

  test("streaming: one sanitizer across deltas holds a split sequence until it completes", () => {
    const sanitizer = new TerminalTextSanitizer();
    expect(sanitizer.push(`hello ${ESC}]52;c;`)).toBe("hello ");
    expect(sanitizer.push("c2VjcmV0")).toBe("");
    expect(sanitizer.push(`${BEL}world ${ESC}[3`)).toBe("world ");
    expect(sanitizer.push("2mgreen")).toBe(`${ESC}[32mgreen`);
    expect(sanitizer.push(`${ESC}`)).toBe("");
    expect(sanitizer.push("[2J!")).toBe("!");
    sanitizer.push(`${ESC}]0;`);
    sanitizer.reset();
    expect(sanitizer.push("fresh")).toBe("fresh");
  });
});

describe("random input", () => {
  /** What may reach the terminal: text, \n, \t and whole SGR sequences, nothing else. */
  const SAFE_OUTPUT = /^(?:[^\x00-\x1f\x7f-\x9f]|[\n\t]|\x1b\[[0-9;:]*m)*$/;
  const ALPHABET = ["\x1b", "[", "]", "P", "\\", "\x07", "\x9b", "\x9c", "\x9d", ";", "0", "3", "m", "H", "?", "\r", "\n", "\b", "a", "é", "\x18", "(", " "];

  test("never lets a control character or non-SGR sequence through, whole or streamed", () => {
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 2000; round++) {
      const length = 1 + next(40);
      let text = "";
      for (let i = 0; i < length; i++) text += ALPHABET[next(ALPHABET.length)];
      expect(clean(text)).toMatch(SAFE_OUTPUT);
      const sanitizer = new TerminalTextSanitizer();
      const cut = next(text.length + 1);
      const streamed = sanitizer.push(text.slice(0, cut)) + sanitizer.push(text.slice(cut));
      expect(streamed).toBe(clean(text));
    }
  });
});

describe("createByteStreamSanitizer", () => {
  test("UTF-8 characters and escape sequences split between byte chunks come out whole", () => {
    const bytes = new TextEncoder().encode(`é日${ESC}]0;title${BEL}🎉${ESC}[1mb${ESC}[0m`);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const sanitize = createByteStreamSanitizer();
      expect(sanitize(bytes.subarray(0, cut)) + sanitize(bytes.subarray(cut))).toBe(`é日🎉${ESC}[1mb${ESC}[0m`);
    }
  });
});

describe("escapeJsonForTerminal", () => {
  test("C1 and DEL become \\u escapes that decode to the same string", () => {
    const value = { text: "a\x9b2Jb\x9d0;t\x07c\x7f — ok" };
    const line = escapeJsonForTerminal(JSON.stringify(value));
    expect(line).not.toMatch(/[\x7f-\x9f]/);
    expect(line).toContain("\\u009b");
    expect(JSON.parse(line)).toEqual(value);
  });
});
