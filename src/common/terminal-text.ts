/**
 * Outside text (model output, tool output, extension names, notes and
 * messages, error lines quoting a server) made safe for a terminal. The one
 * sanitizer zot applies wherever such text is written to a TTY; pipes and
 * files get the raw text.
 *
 * Kept: printable text (including all of Unicode from U+00A0 up), "\n",
 * "\t", and SGR colour/style sequences `ESC [ <digits ; :> m`.
 * Dropped, together with their whole payload: every other CSI sequence
 * (cursor moves, erase, scroll regions, mode changes such as the alternate
 * screen or mouse reporting, `CSI > … m` key-modifier settings), OSC (window
 * title, OSC 8 hyperlinks, OSC 52 clipboard writes; terminated by BEL or ST),
 * DCS / SOS / PM / APC strings, two- and three-character ESC sequences
 * (`ESC c` reset, `ESC 7`, `ESC ( 0` charset switches, …), the 8-bit C1
 * forms of all of these (U+0080–U+009F, including the 8-bit CSI U+009B even
 * when it spells an SGR), DEL and every other C0 control: "\r" (a carriage
 * return could overwrite what is already on the line, so CRLF becomes LF)
 * and backspace included. A sequence cut off by the end of the text is
 * dropped; a streaming sanitizer holds it across chunks instead, so a
 * sequence split between two streamed deltas is recognised whole. An SGR
 * longer than MAX_SGR_LENGTH parameter characters is dropped.
 *
 * escapeJsonForTerminal keeps JSON output (--json, rpc) byte-for-byte
 * equivalent for a parser while escaping the C1 and DEL characters that
 * JSON allows raw in strings; C0 controls are already escaped by JSON.
 */
import { isatty } from "node:tty";

/** Longest SGR parameter string kept (`38;2;255;255;255;48;2;…`); longer ones are dropped. */
export const MAX_SGR_LENGTH = 256;

/** Anything besides printable text, "\n" and "\t": the slow path is needed. */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const C1_CSI = 0x9b;
const C1_ST = 0x9c;

const State = {
  Ground: 0,
  Escape: 1,
  EscapeIntermediate: 2,
  Csi: 3,
  /** OSC, DCS, SOS, PM, APC: payload discarded until BEL / ST. */
  ControlString: 4,
  ControlStringEscape: 5,
} as const;
type State = (typeof State)[keyof typeof State];

function isKeptControl(code: number): boolean {
  return code === 0x0a || code === 0x09;
}

function isPlain(code: number): boolean {
  return (code >= 0x20 && code < 0x7f) || code >= 0xa0 || isKeptControl(code);
}

/** `ESC ]`, `ESC P`, `ESC X`, `ESC ^`, `ESC _`: the string-carrying sequences. */
function opensControlString(code: number): boolean {
  return code === 0x5d || code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f;
}

/** 8-bit OSC, DCS, SOS, PM, APC. */
function isC1ControlString(code: number): boolean {
  return code === 0x9d || code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f;
}

/**
 * Stateful sanitizer for text arriving in pieces (streamed deltas): push()
 * returns what is safe to show so far and holds an unfinished escape
 * sequence until the next piece completes (or discards) it.
 */
export class TerminalTextSanitizer {
  #state: State = State.Ground;
  /** SGR candidate parameters collected so far (Csi state). */
  #params = "";
  /** The CSI in progress can still be an SGR worth keeping. */
  #sgr = false;

  push(chunk: string): string {
    if (this.#state === State.Ground && !UNSAFE.test(chunk)) return chunk;
    let out = "";
    let runStart = 0;
    let i = 0;
    while (i < chunk.length) {
      const code = chunk.charCodeAt(i);
      if (this.#state === State.Ground) {
        if (isPlain(code)) {
          i++;
          continue;
        }
        if (i > runStart) out += chunk.slice(runStart, i);
        this.#enterFromGround(code);
        i++;
        runStart = i;
        continue;
      }
      const emitted = this.#step(code);
      if (emitted === undefined) {
        // The sequence was aborted by this character: read it again as text.
        runStart = i;
        continue;
      }
      out += emitted;
      i++;
      runStart = i;
    }
    if (this.#state === State.Ground && i > runStart) out += chunk.slice(runStart, i);
    return out;
  }

  /** Forgets an unfinished sequence (the text ended in the middle of it). */
  reset(): void {
    this.#state = State.Ground;
    this.#params = "";
    this.#sgr = false;
  }

  #enterFromGround(code: number): void {
    if (code === ESC) this.#state = State.Escape;
    else if (code === C1_CSI) this.#startCsi(false);
    else if (isC1ControlString(code)) this.#state = State.ControlString;
    // any other C0, DEL or C1 control is dropped
  }

  #startCsi(keepable: boolean): void {
    this.#state = State.Csi;
    this.#params = "";
    this.#sgr = keepable;
  }

  /**
   * One character inside a sequence. Returns the text to emit ("" mostly, a
   * complete SGR at its final byte), or undefined when the character ended
   * the sequence without belonging to it and must be read again as text.
   */
  #step(code: number): string | undefined {
    switch (this.#state) {
      case State.Escape:
        if (code === 0x5b) this.#startCsi(true);
        else if (opensControlString(code)) this.#state = State.ControlString;
        else if (code >= 0x20 && code <= 0x2f) this.#state = State.EscapeIntermediate;
        else if (code >= 0x30 && code <= 0x7e) this.#state = State.Ground;
        else if (code === ESC) this.#state = State.Escape;
        else if (code === CAN || code === SUB) this.#state = State.Ground;
        else return this.#abort();
        return "";
      case State.EscapeIntermediate:
        if (code >= 0x20 && code <= 0x2f) return "";
        if (code >= 0x30 && code <= 0x7e) this.#state = State.Ground;
        else if (code === ESC) this.#state = State.Escape;
        else if (code === CAN || code === SUB) this.#state = State.Ground;
        else return this.#abort();
        return "";
      case State.Csi:
        return this.#csi(code);
      case State.ControlString:
        if (code === BEL || code === C1_ST || code === CAN || code === SUB) this.#state = State.Ground;
        else if (code === ESC) this.#state = State.ControlStringEscape;
        return "";
      case State.ControlStringEscape:
        if (code === 0x5c) {
          this.#state = State.Ground;
          return "";
        }
        // An ESC that is not ST ends the string and starts a new sequence.
        this.#state = State.Escape;
        return this.#step(code);
      case State.Ground:
        return undefined;
    }
  }

  #csi(code: number): string | undefined {
    if (code >= 0x30 && code <= 0x3f) {
      // Parameter bytes: only digits, ";" and ":" can make an SGR.
      if (this.#sgr && code <= 0x3b) {
        if (this.#params.length < MAX_SGR_LENGTH) this.#params += String.fromCharCode(code);
        else this.#sgr = false;
      } else this.#sgr = false;
      return "";
    }
    if (code >= 0x20 && code <= 0x2f) {
      this.#sgr = false;
      return "";
    }
    if (code >= 0x40 && code <= 0x7e) {
      const keep = this.#sgr && code === 0x6d;
      const params = this.#params;
      this.reset();
      return keep ? `\x1b[${params}m` : "";
    }
    if (code === ESC) {
      this.reset();
      this.#state = State.Escape;
      return "";
    }
    if (code === CAN || code === SUB) {
      this.reset();
      return "";
    }
    return this.#abort();
  }

  #abort(): undefined {
    this.reset();
    return undefined;
  }
}

/**
 * For a byte stream (a log file read in chunks): decodes UTF-8 across chunk
 * boundaries and sanitizes across them; each call returns the text that is
 * safe to show so far.
 */
export function createByteStreamSanitizer(): (chunk: Uint8Array) => string {
  const decoder = new TextDecoder();
  const sanitizer = new TerminalTextSanitizer();
  return (chunk) => sanitizer.push(decoder.decode(chunk, { stream: true }));
}

/** One complete text made safe for a terminal (an unfinished trailing sequence is dropped). */
export function sanitizeTerminalText(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return new TerminalTextSanitizer().push(text);
}

const JSON_UNSAFE = /[\x7f-\x9f]/g;

/** A JSON text with DEL and C1 characters written as \u escapes (same value for any parser). */
export function escapeJsonForTerminal(json: string): string {
  return json.replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

let stdoutTerminal: boolean | undefined;
let stderrTerminal: boolean | undefined;

export function stdoutIsTerminal(): boolean {
  stdoutTerminal ??= isatty(1);
  return stdoutTerminal;
}

export function stderrIsTerminal(): boolean {
  stderrTerminal ??= isatty(2);
  return stderrTerminal;
}

/** Text for stdout: sanitized when stdout is a terminal, raw otherwise. */
export function forStdout(text: string): string {
  return stdoutIsTerminal() ? sanitizeTerminalText(text) : text;
}

/** A JSON line for stdout: C1 / DEL escaped when stdout is a terminal, raw otherwise. */
export function jsonForStdout(line: string): string {
  return stdoutIsTerminal() ? escapeJsonForTerminal(line) : line;
}

/** Text for stderr: sanitized when stderr is a terminal, raw otherwise. */
export function forStderr(text: string): string {
  return stderrIsTerminal() ? sanitizeTerminalText(text) : text;
}
