/**
 * KeyDecoder: raw terminal input (raw mode, UTF-8 text) to Keys. Pure: no
 * I/O, no timers. One decoder per input stream; feed() takes chunks as they
 * arrive and keeps what is cut at a chunk end (an escape sequence, a
 * bracketed paste, its end marker) for the next chunk.
 *
 * - Printable runs become one `text` Key; a bracketed paste one `paste` Key
 *   (CRLF and CR normalised to "\n"), however many chunks it spans.
 * - Paste injection: a terminal that does not filter what it pastes sends a
 *   copied `ESC [ 201 ~` as is, ending the paste early, and the rest of the
 *   copied text (`\r` included) would be typed. So after a paste ends, the
 *   paste and the input after it are held (pendingPaste()): when another
 *   paste end arrives with no paste start before it (the real end, now a
 *   stray one), everything up to it, the early end marker included, was
 *   pasted text; a paste start gives the held paste and decodes the rest;
 *   the caller calls flushPaste() after a short quiet time (~50 ms), which
 *   gives the paste and decodes the held input as keys.
 * - Ctrl+letter (0x01–0x1a) is `{name:"a"…"z", ctrl}`, except Tab (0x09),
 *   Enter (0x0d) and Backspace (0x08, 0x7f); Ctrl+Space (0x00) is "space".
 * - CSI / SS3 keys: arrows, Home/End, PgUp/PgDn, Insert/Delete, F1–F12, with
 *   xterm modifiers (`CSI 1;5C`, `CSI 3;2~`), Shift+Tab (`CSI Z`), xterm
 *   modifyOtherKeys (`CSI 27;mod;code ~`) and kitty `CSI code;mod u`.
 *   Modifier bits beyond Shift/Alt/Ctrl (super, caps lock, num lock) are
 *   ignored; kitty key releases are dropped.
 * - ESC before a key is Alt (`ESC b` → {name:"b", alt}; `ESC ESC [ A` → Alt+Up).
 *   A lone ESC at the end of the input is held: pendingEscape() says so and
 *   the caller calls flushEscape() after a short wait (~30 ms) if no more
 *   input came, which turns what is held into Escape (or Alt+[ / Alt+O).
 * - Terminal replies (kitty flags `CSI ? n u`, DA1 `CSI ? … c`, any
 *   `CSI ?`/`CSI >` report, OSC `ESC ] digit…`, DCS `ESC P >|…`, kitty APC
 *   `ESC _ G…`, each up to BEL/ST) and unknown
 *   sequences are consumed and produce no Key. A sequence that grows past
 *   MAX_SEQUENCE characters without ending is dropped.
 */
import type { Key, KeyName } from "./types.ts";

const ESC = "\x1b";
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
/** Longest escape sequence (or terminal reply) held while waiting for its end. */
export const MAX_SEQUENCE = 512;

const CSI_LETTER: Readonly<Record<string, KeyName>> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
  P: "f1",
  Q: "f2",
  R: "f3",
  S: "f4",
};

const CSI_TILDE: Readonly<Record<number, KeyName>> = {
  1: "home",
  2: "insert",
  3: "delete",
  4: "end",
  5: "pageup",
  6: "pagedown",
  7: "home",
  8: "end",
  11: "f1",
  12: "f2",
  13: "f3",
  14: "f4",
  15: "f5",
  17: "f6",
  18: "f7",
  19: "f8",
  20: "f9",
  21: "f10",
  23: "f11",
  24: "f12",
};

/** kitty functional key codes (private use area) that have a name here. */
const KITTY_FUNCTIONAL: Readonly<Record<number, KeyName>> = {
  57414: "enter", // keypad enter
  57417: "left",
  57418: "right",
  57419: "up",
  57420: "down",
  57421: "pageup",
  57422: "pagedown",
  57423: "home",
  57424: "end",
  57425: "insert",
  57426: "delete",
};

interface Modifiers {
  readonly shift: boolean;
  readonly alt: boolean;
  readonly ctrl: boolean;
}

const NONE: Modifiers = { shift: false, alt: false, ctrl: false };

function key(name: KeyName, mods: Modifiers = NONE): Key {
  return { kind: "key", name, ctrl: mods.ctrl, alt: mods.alt, shift: mods.shift };
}

/** xterm/kitty modifier parameter: 1 + bit field (1 Shift, 2 Alt, 4 Ctrl, 8 Super, …). */
function modifiers(param: string | undefined): Modifiers {
  const value = Number.parseInt(param ?? "", 10);
  if (!Number.isFinite(value) || value < 2) return NONE;
  const bits = value - 1;
  return { shift: (bits & 1) !== 0, alt: (bits & 2) !== 0, ctrl: (bits & 4) !== 0 };
}

function withAlt(k: Key): Key {
  if (k.kind === "key") return { ...k, alt: true };
  if (k.kind === "text") {
    // Alt + a typed character: a named key (lower case letter, Shift kept).
    const lower = k.text.toLowerCase();
    return key(lower === " " ? "space" : lower, { shift: lower !== k.text, alt: true, ctrl: false });
  }
  return k;
}

/** A control character (not ESC) as a key. */
function controlKey(code: number): Key | undefined {
  if (code === 0x0d) return key("enter");
  if (code === 0x09) return key("tab");
  if (code === 0x7f || code === 0x08) return key("backspace");
  if (code === 0x00) return key("space", { shift: false, alt: false, ctrl: true });
  if (code >= 0x01 && code <= 0x1a) return key(String.fromCharCode(code + 0x60), { shift: false, alt: false, ctrl: true });
  if (code >= 0x1c && code <= 0x1f) return key(String.fromCharCode(code + 0x40), { shift: false, alt: false, ctrl: true });
  return undefined;
}

/** A key given as a Unicode code point plus modifiers (kitty CSI u, modifyOtherKeys). */
function codepointKey(code: number, mods: Modifiers): Key | undefined {
  if (code === 13) return key("enter", mods);
  if (code === 9) return key("tab", mods);
  if (code === 27) return key("escape", mods);
  if (code === 127 || code === 8) return key("backspace", mods);
  if (code === 32 && (mods.ctrl || mods.alt)) return key("space", mods);
  if (!Number.isInteger(code)) return undefined;
  const functional = KITTY_FUNCTIONAL[code];
  if (functional !== undefined) return key(functional, mods);
  if (code < 32 || (code >= 0x7f && code < 0xa0) || code > 0x10ffff || (code >= 0xe000 && code <= 0xf8ff) || code >= 0xf0000) {
    return undefined;
  }
  const char = String.fromCodePoint(code);
  if (!mods.ctrl && !mods.alt) return { kind: "text", text: mods.shift ? char.toUpperCase() : char };
  const lower = char.toLowerCase();
  return key(lower, { ...mods, shift: mods.shift || lower !== char });
}

/** The key for a complete CSI sequence (params and final byte), or undefined (a reply or unknown: consumed). */
function csiKey(params: string, final: string): Key | undefined {
  const first = params[0];
  if (first === "?" || first === ">" || first === "<" || first === "=") return undefined; // terminal replies
  if (final === "u") {
    const [codes, mods, event] = splitKitty(params);
    if (event === "3") return undefined; // release
    return codepointKey(Number.parseInt(codes, 10), modifiers(mods));
  }
  const fields = params.split(";");
  if (final === "~") {
    const number = Number.parseInt(fields[0] ?? "", 10);
    if (number === 27) {
      const code = Number.parseInt(fields[2] ?? "", 10);
      return Number.isFinite(code) ? codepointKey(code, modifiers(fields[1])) : undefined;
    }
    const name = CSI_TILDE[number];
    return name === undefined ? undefined : key(name, modifiers(fields[1]?.split(":")[0]));
  }
  if (final === "Z") return key("tab", { ...modifiers(fields[1]), shift: true });
  const name = CSI_LETTER[final];
  if (name === undefined) return undefined;
  return key(name, modifiers(fields[1]?.split(":")[0]));
}

/** kitty `code[:shifted[:base]];mods[:event];text` → [code, mods, event]. */
function splitKitty(params: string): [string, string | undefined, string | undefined] {
  const [codeField = "", modField] = params.split(";");
  const code = codeField.split(":")[0] ?? "";
  const [mods, event] = modField === undefined ? [undefined, undefined] : modField.split(":");
  return [code, mods, event];
}

function ss3Key(final: string): Key | undefined {
  if (final === "M") return key("enter");
  const name = CSI_LETTER[final];
  return name === undefined ? undefined : key(name);
}

/** Outcome of reading one escape sequence at the start of the input. */
type Parsed = { readonly key: Key | undefined; readonly length: number } | "incomplete" | "paste";

function normalisePaste(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** Length of the longest suffix of text that is a proper prefix of marker. */
function partialSuffix(text: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, text.length); length > 0; length--) {
    if (marker.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}

export class KeyDecoder {
  /** Input held back: an unfinished escape sequence (or a partial paste end marker while pasting). */
  #pending = "";
  /** Pieces of the paste in progress; undefined when not inside a paste. */
  #paste: string[] | undefined;
  /** A paste that ended, held with the input after it until its end is known to be the real one (pendingPaste()). */
  #afterPaste: { text: string; held: string; scanned: number } | undefined;

  feed(chunk: string): Key[] {
    if (this.#afterPaste !== undefined) return this.#holdAfterPaste(chunk);
    const keys: Key[] = [];
    let input = this.#pending + chunk;
    this.#pending = "";
    let text = "";
    const flushText = (): void => {
      if (text !== "") keys.push({ kind: "text", text });
      text = "";
    };
    let i = 0;
    while (i < input.length) {
      if (this.#paste !== undefined) {
        const end = input.indexOf(PASTE_END, i);
        if (end === -1) {
          const keep = partialSuffix(input, PASTE_END);
          this.#paste.push(input.slice(i, input.length - keep));
          this.#pending = input.slice(input.length - keep);
          return keys;
        }
        this.#paste.push(input.slice(i, end));
        flushText();
        this.#afterPaste = { text: this.#paste.join(""), held: "", scanned: 0 };
        this.#paste = undefined;
        keys.push(...this.#holdAfterPaste(input.slice(end + PASTE_END.length)));
        return keys;
      }
      const code = input.charCodeAt(i);
      if (code === 0x1b) {
        flushText();
        const parsed = this.#escape(input, i);
        if (parsed === "incomplete") {
          this.#pending = input.slice(i);
          return keys;
        }
        if (parsed === "paste") {
          this.#paste = [];
          i += PASTE_START.length;
          continue;
        }
        if (parsed.key !== undefined) keys.push(parsed.key);
        i += parsed.length;
        continue;
      }
      if (code < 0x20 || code === 0x7f) {
        flushText();
        const control = controlKey(code);
        if (control !== undefined) keys.push(control);
        i += 1;
        continue;
      }
      if (code >= 0x80 && code < 0xa0) {
        i += 1; // C1 controls are never text
        continue;
      }
      // A run of printable text up to the next control character.
      let j = i + 1;
      while (j < input.length) {
        const c = input.charCodeAt(j);
        if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0)) break;
        j += 1;
      }
      text += input.slice(i, j);
      i = j;
    }
    flushText();
    input = "";
    return keys;
  }

  /** Input after a paste end: a stray paste end in it makes it part of the paste; a paste start, or flushPaste(), ends the hold. */
  #holdAfterPaste(chunk: string): Key[] {
    const state = this.#afterPaste!;
    state.held += chunk;
    for (;;) {
      const from = Math.max(0, state.scanned - (PASTE_START.length - 1));
      const end = state.held.indexOf(PASTE_END, from);
      const start = state.held.indexOf(PASTE_START, from);
      if (end !== -1 && (start === -1 || end < start)) {
        // The paste's real end: what came since the early end was pasted too.
        state.text += PASTE_END + state.held.slice(0, end);
        state.held = state.held.slice(end + PASTE_END.length);
        state.scanned = 0;
        continue;
      }
      if (start !== -1) return this.flushPaste();
      state.scanned = state.held.length;
      return [];
    }
  }

  /** A paste ended and is held with the input after it (see the header): call flushPaste() after a quiet time. */
  pendingPaste(): boolean {
    return this.#afterPaste !== undefined;
  }

  /** No stray paste end came: the held paste, then the held input decoded as keys. */
  flushPaste(): Key[] {
    const state = this.#afterPaste;
    if (state === undefined) return [];
    this.#afterPaste = undefined;
    return [{ kind: "paste", text: normalisePaste(state.text) }, ...this.feed(state.held)];
  }

  /** A lone ESC (or an ESC sequence that may be Alt+key) is held, waiting for more input. */
  pendingEscape(): boolean {
    return this.#paste === undefined && this.#pending.startsWith(ESC) && this.#pending.length <= 2;
  }

  /** No more input came after the held ESC: it was Escape (or Alt+"[" / Alt+"O" …). */
  flushEscape(): Key[] {
    if (!this.pendingEscape()) return [];
    const held = this.#pending;
    this.#pending = "";
    if (held === ESC) return [key("escape")];
    if (held === `${ESC}${ESC}`) return [key("escape"), key("escape")];
    // ESC + "[" / "O" / "]" / "P" / "_" that no more bytes followed: Alt + that character.
    return this.feed(held.slice(1)).map(withAlt);
  }

  #escape(input: string, at: number): Parsed {
    const next = input[at + 1];
    if (next === undefined) return "incomplete";
    if (next === "[") return this.#csi(input, at);
    if (next === "O") {
      const final = input[at + 2];
      if (final === undefined) return "incomplete";
      return { key: ss3Key(final), length: 3 };
    }
    if (next === "]" || next === "P" || next === "_") {
      // A terminal reply (OSC n…, DCS >|… / DCS 1$r…, APC G…) or Alt+"]" / Alt+"P" / Alt+"_".
      const after = input[at + 2];
      if (after === undefined) return "incomplete";
      if (/[0-9]/.test(after) && next === "]") return controlString(input, at);
      if (/[>!0-9+$=]/.test(after) && next === "P") return controlString(input, at);
      if (after === "G" && next === "_") return controlString(input, at);
    }
    if (next === ESC) {
      // ESC ESC [ … / ESC ESC O …: Alt + that key. Otherwise the first ESC is Escape.
      const after = input[at + 2];
      if (after === undefined) return "incomplete";
      if (after === "[" || after === "O") {
        const inner = this.#escape(input, at + 1);
        if (inner === "incomplete" || inner === "paste") return inner === "paste" ? { key: key("escape"), length: 1 } : inner;
        return { key: inner.key === undefined ? undefined : withAlt(inner.key), length: inner.length + 1 };
      }
      return { key: key("escape"), length: 1 };
    }
    // Alt + one character (a control character or a printable grapheme's first code point).
    const codePoint = input.codePointAt(at + 1) ?? 0;
    const width = codePoint > 0xffff ? 2 : 1;
    if (codePoint < 0x20 || codePoint === 0x7f) {
      const control = controlKey(codePoint);
      return { key: control === undefined ? undefined : withAlt(control), length: 2 };
    }
    if (codePoint >= 0x80 && codePoint < 0xa0) return { key: undefined, length: 2 };
    return { key: withAlt({ kind: "text", text: String.fromCodePoint(codePoint) }), length: 1 + width };
  }

  #csi(input: string, at: number): Parsed {
    let j = at + 2;
    while (j < input.length) {
      const c = input.charCodeAt(j);
      if (c >= 0x40 && c <= 0x7e) break; // final byte
      if (c < 0x20 || c > 0x3f) {
        // Not part of a CSI: drop what was read, read this character again.
        return { key: undefined, length: j - at };
      }
      j += 1;
    }
    if (j >= input.length) return j - at > MAX_SEQUENCE ? { key: undefined, length: j - at } : "incomplete";
    const params = input.slice(at + 2, j);
    const final = input[j]!;
    if (final === "~" && params === "200") return "paste";
    if (final === "~" && params === "201") return { key: undefined, length: j + 1 - at }; // stray paste end
    if (final === "M" && params === "") {
      // X10 mouse report: three bytes follow.
      if (input.length < j + 4) return "incomplete";
      return { key: undefined, length: j + 4 - at };
    }
    return { key: csiKey(params, final), length: j + 1 - at };
  }
}

/** OSC / DCS / APC / PM / SOS string (a terminal reply): consumed up to BEL or ST. */
function controlString(input: string, at: number): Parsed {
  for (let j = at + 2; j < input.length; j++) {
    const c = input.charCodeAt(j);
    if (c === 0x07) return { key: undefined, length: j + 1 - at };
    if (c === 0x1b) {
      if (j + 1 >= input.length) break;
      if (input[j + 1] === "\\") return { key: undefined, length: j + 2 - at };
      return { key: undefined, length: j - at }; // an ESC that is not ST ends it
    }
  }
  return input.length - at > MAX_SEQUENCE ? { key: undefined, length: input.length - at } : "incomplete";
}
