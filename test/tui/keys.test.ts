import { describe, expect, test } from "bun:test";
import { KeyDecoder } from "../../src/tui/keys.ts";
import type { Key } from "../../src/tui/types.ts";

function k(name: string, mods: { ctrl?: boolean; alt?: boolean; shift?: boolean } = {}): Key {
  return { kind: "key", name, ctrl: mods.ctrl ?? false, alt: mods.alt ?? false, shift: mods.shift ?? false };
}

/** The keys of `chunks`, then what a quiet time after them gives (a paste is held until then, or until its end is known). */
function decode(...chunks: string[]): Key[] {
  const decoder = new KeyDecoder();
  return [...chunks.flatMap((chunk) => decoder.feed(chunk)), ...decoder.flushPaste()];
}

/** Every way of cutting `input` into two chunks decodes to the same keys. */
function expectSplitInvariant(input: string, expected: Key[]): void {
  expect(decode(input)).toEqual(expected);
  for (let cut = 1; cut < input.length; cut++) {
    const decoder = new KeyDecoder();
    const keys = [...decoder.feed(input.slice(0, cut)), ...decoder.feed(input.slice(cut)), ...decoder.flushPaste()];
    // Text runs may be split in two at the cut; join adjacent text keys before comparing.
    expect(joinText(keys)).toEqual(joinText(expected));
  }
}

function joinText(keys: Key[]): Key[] {
  const out: Key[] = [];
  for (const key of keys) {
    const last = out[out.length - 1];
    if (key.kind === "text" && last?.kind === "text") out[out.length - 1] = { kind: "text", text: last.text + key.text };
    else out.push(key);
  }
  return out;
}

describe("KeyDecoder", () => {
  test("text runs, control keys, Ctrl+letters", () => {
    expect(decode("héllo 世界")).toEqual([{ kind: "text", text: "héllo 世界" }]);
    expect(decode("ab\rc")).toEqual([{ kind: "text", text: "ab" }, k("enter"), { kind: "text", text: "c" }]);
    expect(decode("\t\x7f\x08")).toEqual([k("tab"), k("backspace"), k("backspace")]);
    expect(decode("\x03\x01\x1a\n")).toEqual([k("c", { ctrl: true }), k("a", { ctrl: true }), k("z", { ctrl: true }), k("j", { ctrl: true })]);
    expect(decode("\x00")).toEqual([k("space", { ctrl: true })]);
    expect(decode("\x1f")).toEqual([k("_", { ctrl: true })]);
    expect(decode("a\x85b")).toEqual([{ kind: "text", text: "ab" }]); // C1 control dropped
  });

  test("CSI and SS3 keys with xterm modifiers", () => {
    expect(decode("\x1b[A\x1b[B\x1b[C\x1b[D\x1b[H\x1b[F")).toEqual([k("up"), k("down"), k("right"), k("left"), k("home"), k("end")]);
    expect(decode("\x1bOA\x1bOH\x1bOF\x1bOP\x1bOM")).toEqual([k("up"), k("home"), k("end"), k("f1"), k("enter")]);
    expect(decode("\x1b[1;5C")).toEqual([k("right", { ctrl: true })]);
    expect(decode("\x1b[1;3D")).toEqual([k("left", { alt: true })]);
    expect(decode("\x1b[1;2A")).toEqual([k("up", { shift: true })]);
    expect(decode("\x1b[1;8H")).toEqual([k("home", { shift: true, alt: true, ctrl: true })]);
    expect(decode("\x1b[3~\x1b[2~\x1b[5~\x1b[6~\x1b[1~\x1b[4~\x1b[7~\x1b[8~")).toEqual([
      k("delete"), k("insert"), k("pageup"), k("pagedown"), k("home"), k("end"), k("home"), k("end"),
    ]);
    expect(decode("\x1b[3;5~\x1b[5;2~")).toEqual([k("delete", { ctrl: true }), k("pageup", { shift: true })]);
    expect(decode("\x1b[15~\x1b[24~\x1b[1;5P")).toEqual([k("f5"), k("f12"), k("f1", { ctrl: true })]);
    expect(decode("\x1b[Z")).toEqual([k("tab", { shift: true })]);
  });

  test("xterm modifyOtherKeys CSI 27;mod;code ~", () => {
    expect(decode("\x1b[27;5;99~")).toEqual([k("c", { ctrl: true })]);
    expect(decode("\x1b[27;2;13~")).toEqual([k("enter", { shift: true })]);
    expect(decode("\x1b[27;3;13~")).toEqual([k("enter", { alt: true })]);
    expect(decode("\x1b[27;6;65~")).toEqual([k("a", { ctrl: true, shift: true })]);
    expect(decode("\x1b[27;2;65~")).toEqual([{ kind: "text", text: "A" }]);
  });

  test("kitty CSI u", () => {
    expect(decode("\x1b[27u")).toEqual([k("escape")]);
    expect(decode("\x1b[13;2u")).toEqual([k("enter", { shift: true })]);
    expect(decode("\x1b[13;3u")).toEqual([k("enter", { alt: true })]);
    expect(decode("\x1b[99;5u")).toEqual([k("c", { ctrl: true })]);
    expect(decode("\x1b[97;7u")).toEqual([k("a", { ctrl: true, alt: true })]);
    expect(decode("\x1b[9;2u")).toEqual([k("tab", { shift: true })]);
    expect(decode("\x1b[127;5u")).toEqual([k("backspace", { ctrl: true })]);
    expect(decode("\x1b[32;5u")).toEqual([k("space", { ctrl: true })]);
    expect(decode("\x1b[99;69u")).toEqual([k("c", { ctrl: true })]); // caps lock bit ignored
    expect(decode("\x1b[97:65;6u")).toEqual([k("a", { ctrl: true, shift: true })]); // shifted-key sub-field
    expect(decode("\x1b[99;5:3u")).toEqual([]); // release dropped
    expect(decode("\x1b[57414u")).toEqual([k("enter")]); // keypad enter
    expect(decode("\x1b[57441;2u")).toEqual([]); // left shift alone: no key
  });

  test("Alt as an ESC prefix", () => {
    expect(decode("\x1bb")).toEqual([k("b", { alt: true })]);
    expect(decode("\x1bB")).toEqual([k("b", { alt: true, shift: true })]);
    expect(decode("\x1b\r")).toEqual([k("enter", { alt: true })]);
    expect(decode("\x1b\x7f")).toEqual([k("backspace", { alt: true })]);
    expect(decode("\x1b\x01")).toEqual([k("a", { ctrl: true, alt: true })]);
    expect(decode("\x1b ")).toEqual([k("space", { alt: true })]);
    expect(decode("\x1b\x1b[A")).toEqual([k("up", { alt: true })]);
    expect(decode("\x1b世")).toEqual([k("世", { alt: true })]);
    expect(decode("\x1b😀x")).toEqual([k("😀", { alt: true }), { kind: "text", text: "x" }]);
  });

  test("a lone ESC is held until flushEscape", () => {
    const decoder = new KeyDecoder();
    expect(decoder.feed("\x1b")).toEqual([]);
    expect(decoder.pendingEscape()).toBe(true);
    expect(decoder.flushEscape()).toEqual([k("escape")]);
    expect(decoder.pendingEscape()).toBe(false);
    expect(decoder.flushEscape()).toEqual([]);
    // The rest of a sequence arriving in time completes it.
    expect(decoder.feed("\x1b")).toEqual([]);
    expect(decoder.feed("[A")).toEqual([k("up")]);
    // ESC [ alone, then nothing: Alt+[.
    expect(decoder.feed("\x1b[")).toEqual([]);
    expect(decoder.pendingEscape()).toBe(true);
    expect(decoder.flushEscape()).toEqual([k("[", { alt: true })]);
    expect(decoder.feed("\x1b\x1b")).toEqual([]);
    expect(decoder.flushEscape()).toEqual([k("escape"), k("escape")]);
    // A longer unfinished sequence is not a key press: it keeps waiting.
    expect(decoder.feed("\x1b[1;5")).toEqual([]);
    expect(decoder.pendingEscape()).toBe(false);
    expect(decoder.feed("C")).toEqual([k("right", { ctrl: true })]);
  });

  test("sequences cut at every chunk boundary", () => {
    expectSplitInvariant("ab\x1b[1;5Ccd\x1b[99;5u\x1bOA\x1b[3~é", [
      { kind: "text", text: "ab" },
      k("right", { ctrl: true }),
      { kind: "text", text: "cd" },
      k("c", { ctrl: true }),
      k("up"),
      k("delete"),
      { kind: "text", text: "é" },
    ]);
  });

  test("bracketed paste spanning chunks, CRLF and CR normalised", () => {
    const input = "x\x1b[200~line 1\r\nline 2\rline 3\n\x1b[A\x1b[201~y";
    expectSplitInvariant(input, [
      { kind: "text", text: "x" },
      { kind: "paste", text: "line 1\nline 2\nline 3\n\x1b[A" },
      { kind: "text", text: "y" },
    ]);
    // CRLF cut between chunks is still one newline.
    expect(decode("\x1b[200~a\r", "\nb\x1b[201~")).toEqual([{ kind: "paste", text: "a\nb" }]);
    // A paste in many small chunks.
    const decoder = new KeyDecoder();
    const keys: Key[] = [];
    for (const ch of "\x1b[200~hello\x1b[201~") keys.push(...decoder.feed(ch));
    keys.push(...decoder.flushPaste());
    expect(keys).toEqual([{ kind: "paste", text: "hello" }]);
    expect(decoder.pendingEscape()).toBe(false);
  });

  test("paste injection: an early paste end inside the pasted text does not end the paste", () => {
    // A terminal that does not filter pastes sends the copied ESC [ 201 ~ as is; the real end follows, now stray.
    expectSplitInvariant("\x1b[200~hello\x1b[201~\rinjected\r\x1b[201~z", [
      { kind: "paste", text: "hello\x1b[201~\ninjected\n" },
      { kind: "text", text: "z" },
    ]);
    // Twice over, and across many small chunks.
    const decoder = new KeyDecoder();
    const keys: Key[] = [];
    for (const ch of "\x1b[200~a\x1b[201~\x03b\x1b[201~c\x1b[201~") keys.push(...decoder.feed(ch));
    expect(keys).toEqual([]);
    expect(decoder.pendingPaste()).toBe(true);
    keys.push(...decoder.flushPaste());
    expect(keys).toEqual([{ kind: "paste", text: "a\x1b[201~\x03b\x1b[201~c" }]);
    expect(decoder.pendingPaste()).toBe(false);
    // A paste start ends the hold at once; keys between two pastes stay keys.
    expect(decoder.feed("\x1b[200~one\x1b[201~x\r\x1b[200~two\x1b[201~")).toEqual([
      { kind: "paste", text: "one" },
      { kind: "text", text: "x" },
      k("enter"),
    ]);
    expect(decoder.flushPaste()).toEqual([{ kind: "paste", text: "two" }]);
    // Without a stray end, what followed the paste is typed after the quiet time.
    expect(decode("\x1b[200~p\x1b[201~\x1b[A\r")).toEqual([{ kind: "paste", text: "p" }, k("up"), k("enter")]);
  });

  test("terminal replies are consumed, never keys", () => {
    expect(decode("\x1b[?1u\x1b[?62;22c")).toEqual([]);
    expect(decode("a\x1b[?0u", "\x1b[?64;1;2;4c", "b")).toEqual([{ kind: "text", text: "a" }, { kind: "text", text: "b" }]);
    expect(decode("\x1b[>1;10;0c\x1b[I\x1b[O")).toEqual([]);
    expect(decode("\x1b]11;rgb:0000/0000/0000\x07z")).toEqual([{ kind: "text", text: "z" }]);
    expect(decode("\x1bP>|kitty(0.35)\x1b\\z")).toEqual([{ kind: "text", text: "z" }]);
    expectSplitInvariant("\x1b[?1u\x1b[?62c", []);
  });

  test("malformed and unknown input never throws and never becomes text garbage", () => {
    expect(decode("\x1b[99;5;u")).toEqual([k("c", { ctrl: true })]);
    expect(decode("\x1b[;u\x1b[u\x1b[99999999u")).toEqual([]);
    expect(decode("\x1b[1;5X")).toEqual([]);
    expect(decode("\x1b[201~")).toEqual([]);
    // A CSI interrupted by a control character: the sequence is dropped and the character read again.
    expect(decode("\x1b[12\r")).toEqual([k("enter")]);
    // An endless parameter run is dropped once it passes the bound.
    expect(decode(`\x1b[${"1".repeat(600)}`)).toEqual([]);
    expect(decode(`\x1b[${"1".repeat(600)}`, "a")).toEqual([{ kind: "text", text: "a" }]);
    // Random bytes: no exception.
    let seed = 7;
    const decoder = new KeyDecoder();
    for (let n = 0; n < 2000; n++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      decoder.feed(String.fromCharCode(seed % 3 === 0 ? 0x1b : seed % 128));
    }
  });
});
