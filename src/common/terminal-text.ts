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
 * sequence split between two streamed deltas is recognised whole. A
 * sequence interrupted by a character that cannot belong to it (CAN, SUB, a
 * newline, a non-ASCII letter) is dropped and that character is read again
 * as text. An SGR longer than MAX_SGR_LENGTH parameter characters is
 * dropped; nothing is buffered beyond that, whatever the input.
 *
 * escapeJsonForTerminal keeps JSON output (--json, rpc) equivalent for any
 * parser while escaping the C1 and DEL characters that JSON allows raw in
 * strings; C0 controls are already escaped by JSON.
 *
 * forStdout / forStderr / jsonForStdout apply these only when the stream is
 * a terminal and the text holds a control character (with NO_COLOR set,
 * forStdout / forStderr drop the SGR sequences too: common/no-color.ts); the isatty check
 * (libc's isatty when libc is open already, else node:tty) is made on first need, never at startup.
 */

import { isattyIfLoaded } from "./libc.ts";
import { noColorRequested, stripSgr } from "./no-color.ts";

/** Longest SGR parameter string kept (`38;2;255;255;255;48;2;…`); longer ones are dropped. */
export const MAX_SGR_LENGTH = 256;

/** Anything besides printable text, "\n" and "\t": the slow path is needed. */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;

// Scanner states.
const GROUND = 0;
const ESCAPE = 1;
const ESCAPE_INTERMEDIATE = 2;
const CSI = 3;
/** OSC, DCS, SOS, PM, APC: payload discarded until BEL / ST. */
const CONTROL_STRING = 4;
const CONTROL_STRING_ESCAPE = 5;
type ScanState = typeof GROUND | typeof ESCAPE | typeof ESCAPE_INTERMEDIATE | typeof CSI | typeof CONTROL_STRING | typeof CONTROL_STRING_ESCAPE;

/**
 * Stateful sanitizer for text arriving in pieces (streamed deltas): push()
 * returns what is safe to show so far and holds an unfinished escape
 * sequence until the next piece completes (or discards) it. One pass over
 * the characters, no per-character allocation: kept text, SGRs included,
 * goes out as slices of the piece, cut only where something is dropped; a
 * piece without any control character costs one regex test.
 */
export class TerminalTextSanitizer {
  #state: ScanState = GROUND;
  /** Parameters of an SGR candidate carried over from earlier pieces. */
  #params = "";
  /** The CSI in progress can still be an SGR worth keeping. */
  #sgr = false;

  push(chunk: string): string {
    let state = this.#state;
    // Text up to the first control character needs no look (in ground state).
    const first = state === GROUND ? chunk.search(UNSAFE) : 0;
    if (first === -1) return chunk;
    let params = this.#params;
    let sgr = this.#sgr;
    /** Where this piece's part of the CSI parameters starts. */
    let csiStart = 0;
    /** Where the sequence in progress opened in this piece; -1 when it opened in an earlier one. */
    let seqStart = -1;
    let out = "";
    /** Start of the kept text not yet appended to `out` (it runs on through SGRs opened in this piece). */
    let runStart = 0;
    const length = chunk.length;
    for (let i = first; i < length; i++) {
      let code = chunk.charCodeAt(i);
      if (state === GROUND) {
        // Skip the run of plain text in a tight loop.
        while ((code >= 0x20 && code < 0x7f) || code >= 0xa0 || code === 0x0a || code === 0x09) {
          if (++i === length) break;
          code = chunk.charCodeAt(i);
        }
        if (i === length) break;
        seqStart = i;
        if (code === ESC) state = ESCAPE;
        else if (code === 0x9b) {
          // 8-bit CSI: consumed like ESC [, never kept.
          state = CSI;
          sgr = false;
          params = "";
          csiStart = i + 1;
        } else if (code === 0x9d || code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f) state = CONTROL_STRING;
        else {
          // any other C0, DEL or C1 control is dropped
          if (i > runStart) out += chunk.slice(runStart, i);
          runStart = i + 1;
        }
        continue;
      }
      /** The sequence in progress is dropped; kept text resumes here (read again from here when ≤ i). */
      let resume: number;
      switch (state) {
        case ESCAPE:
          if (code === 0x5b) {
            state = CSI;
            sgr = true;
            params = "";
            csiStart = i + 1;
            continue;
          }
          if (code === 0x5d || code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f) {
            state = CONTROL_STRING;
            continue;
          }
          if (code >= 0x20 && code <= 0x2f) {
            state = ESCAPE_INTERMEDIATE;
            continue;
          }
          // A final character (or CAN / SUB) ends it; anything else is not part of it: read again as text.
          resume = (code >= 0x30 && code <= 0x7e) || code === CAN || code === SUB ? i + 1 : i;
          break;
        case ESCAPE_INTERMEDIATE:
          if (code >= 0x20 && code <= 0x2f) continue;
          resume = (code >= 0x30 && code <= 0x7e) || code === CAN || code === SUB ? i + 1 : i;
          break;
        case CSI:
          if (code >= 0x30 && code <= 0x3f) {
            // Parameter bytes: only digits, ":" and ";" can make an SGR.
            if (code > 0x3b) sgr = false;
            continue;
          }
          if (code >= 0x20 && code <= 0x2f) {
            sgr = false;
            continue;
          }
          if (code === 0x6d && sgr && params.length + i - csiStart <= MAX_SGR_LENGTH) {
            // Kept: opened in this piece it is already part of the run; opened earlier, it is written whole.
            if (seqStart === -1) {
              out += `\x1b[${params}${chunk.slice(csiStart, i)}m`;
              runStart = i + 1;
            }
            state = GROUND;
            params = "";
            continue;
          }
          params = "";
          resume = (code >= 0x40 && code <= 0x7e) || code === CAN || code === SUB ? i + 1 : i;
          break;
        case CONTROL_STRING:
          if (code === ESC) {
            state = CONTROL_STRING_ESCAPE;
            continue;
          }
          if (code !== BEL && code !== 0x9c && code !== CAN && code !== SUB) continue;
          resume = i + 1;
          break;
        case CONTROL_STRING_ESCAPE:
          if (code === 0x5c) {
            resume = i + 1;
            break;
          }
          // An ESC that is not ST ends the string and opens a new sequence.
          if (i === 0) {
            // That ESC ended the previous piece: nothing of this one is pending.
            state = ESCAPE;
            i--;
            continue;
          }
          resume = i - 1;
          break;
      }
      if (seqStart > runStart) out += chunk.slice(runStart, seqStart);
      runStart = resume;
      state = GROUND;
      i = resume - 1;
    }
    if (state === GROUND) {
      if (runStart < length) out += runStart === 0 ? chunk : chunk.slice(runStart);
    } else {
      // The unfinished sequence waits for the next piece; the text before it goes out now.
      if (seqStart > runStart) out += chunk.slice(runStart, seqStart);
      if (state === CSI && sgr) {
        params += chunk.slice(csiStart);
        if (params.length > MAX_SGR_LENGTH) {
          sgr = false;
          params = "";
        }
      }
    }
    this.#state = state;
    this.#params = state === CSI ? params : "";
    this.#sgr = sgr;
    return out;
  }

  /** Forgets an unfinished sequence (the text ended in the middle of it). */
  reset(): void {
    this.#state = GROUND;
    this.#params = "";
    this.#sgr = false;
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

/** isatty(3), on first use: node:tty costs milliseconds of startup that --version must not pay. */
function isTerminal(fd: 1 | 2): boolean {
  // libc's isatty where a mode has opened libc already (print, JSON: ≈1.4 ms and 1.2 MiB less than node:tty).
  const viaLibc = isattyIfLoaded(fd);
  if (viaLibc !== undefined) return viaLibc;
  const tty = require("node:tty") as typeof import("node:tty");
  return tty.isatty(fd);
}

export function stdoutIsTerminal(): boolean {
  stdoutTerminal ??= isTerminal(1);
  return stdoutTerminal;
}

export function stderrIsTerminal(): boolean {
  stderrTerminal ??= isTerminal(2);
  return stderrTerminal;
}

/** Text for stdout: sanitized when stdout is a terminal, raw otherwise (text without controls is never looked at twice). */
export function forStdout(text: string): string {
  if (!UNSAFE.test(text) || !stdoutIsTerminal()) return text;
  return noColorRequested() ? stripSgr(sanitizeTerminalText(text)) : sanitizeTerminalText(text);
}

const JSON_UNSAFE_TEST = /[\x7f-\x9f]/;

/** A JSON line for stdout: C1 / DEL escaped when stdout is a terminal, raw otherwise. */
export function jsonForStdout(line: string): string {
  return JSON_UNSAFE_TEST.test(line) && stdoutIsTerminal() ? escapeJsonForTerminal(line) : line;
}

/** Text for stderr: sanitized when stderr is a terminal, raw otherwise. */
export function forStderr(text: string): string {
  if (!UNSAFE.test(text) || !stderrIsTerminal()) return text;
  return noColorRequested() ? stripSgr(sanitizeTerminalText(text)) : sanitizeTerminalText(text);
}
