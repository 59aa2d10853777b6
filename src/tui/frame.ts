/**
 * The pieces a frame is made of: the escape sequences the renderer writes,
 * preparing a line for the terminal (prepareLine: sanitised, one row, at
 * most `width` columns, colours closed), a row written to the right margin
 * so the next one continues it (fillToMargin), and the reflow arithmetic for a
 * resize (how many rows the old live region occupies above the cursor once
 * the terminal has re-wrapped it at the new width), and the frame diff's
 * comparisons (appendedTail: a row that only grew at its end; sameLines,
 * sameCursor). Pure functions, no I/O.
 */
import { sanitizeTerminalText } from "../common/terminal-text.ts";
import { expandTabs, fitWidth } from "./text.ts";
import type { CursorPosition } from "./types.ts";

export const SYNC_ON = "\x1b[?2026h";
export const SYNC_OFF = "\x1b[?2026l";
export const HIDE_CURSOR = "\x1b[?25l";
export const SHOW_CURSOR = "\x1b[?25h";
/** Erase from the cursor to the end of the line (at column 0: the whole row). */
export const ERASE_LINE = "\x1b[K";
/** Erase from the cursor to the end of the screen. */
export const ERASE_BELOW = "\x1b[J";
/**
 * Erase from column 0 of the cursor's row to the end of the screen, cursor left at column 0. Not a
 * plain `CSI J` there: tmux (scroll-on-clear, on by default) moves the whole screen into its history
 * when it is erased from the top-left corner, which would put the old live region in scrollback.
 */
export const ERASE_ROWS_BELOW = `${ERASE_LINE}\x1b[2G${ERASE_BELOW}\r`;
export const SGR_RESET = "\x1b[0m";

export function cursorUp(rows: number): string {
  return rows > 0 ? `\x1b[${rows}A` : "";
}

export function cursorDown(rows: number): string {
  return rows > 0 ? `\x1b[${rows}B` : "";
}

/** Cursor to a column (0-based) of the current row. */
export function cursorColumn(col: number): string {
  return col > 0 ? `\x1b[${col + 1}G` : "\r";
}

/** Any C0/C1 control or DEL (ESC included): the line needs the sanitizer. */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

/**
 * A line as the renderer writes it: control sequences other than SGR
 * removed, tabs expanded, newlines (and other controls) gone, cut to
 * `width` columns with an ellipsis, and an SGR reset at the end when it
 * carries colours (so an erase or the next row never inherits them). A line
 * without control characters costs one regex test and one width measure.
 */
export function prepareLine(line: string, width: number): string {
  let text = line;
  if (CONTROL.test(text)) {
    text = sanitizeTerminalText(text);
    if (text.includes("\t")) text = expandTabs(text);
    if (text.includes("\n")) text = text.replaceAll("\n", " ");
  }
  const fitted = fitWidth(text, width);
  if (fitted.includes("\x1b") && !fitted.endsWith(SGR_RESET)) return fitted + SGR_RESET;
  return fitted;
}

/**
 * A prepared row written to the right margin, leaving the cursor in the pending-wrap state so that
 * the next character continues it on the next row (the terminal marks that row as wrapped): the
 * text, the rest erased (`CSI K` right of column 0 keeps the row's wrapped flag), one space in the
 * last column. A row that continues the one above (`wrapped`) and has no visible character starts
 * with a space, so that the wrap onto it happens before the erase.
 */
export function fillToMargin(line: string, width: number, wrapped: boolean): string {
  const text = wrapped && Bun.stringWidth(line) === 0 ? ` ${line}` : line;
  const used = Bun.stringWidth(text);
  if (used >= width) return text;
  if (used === width - 1) return `${text} `;
  return `${text}${ERASE_LINE}${cursorColumn(width - 1)} `;
}

let segmenter: Intl.Segmenter | undefined;

/**
 * Rows a row of text takes once the terminal re-wraps it at `width` (an
 * empty row still takes one). A wide character that does not fit at the end
 * of a row moves whole to the next one, as terminals do, so a row with wide
 * characters can take more than ceil(columns / width) rows.
 */
export function reflowedRows(line: string, width: number): number {
  const max = Math.max(1, Math.floor(width));
  const columns = Bun.stringWidth(line);
  if (columns <= max) return 1;
  const plain = line.includes("\x1b") ? Bun.stripANSI(line) : line;
  if (plain.length === columns && /^[\x20-\x7e]*$/.test(plain)) return Math.ceil(columns / max);
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let rows = 1;
  let used = 0;
  for (const { segment } of segmenter.segment(plain)) {
    const w = Bun.stringWidth(segment);
    if (used + w > max) {
      rows += 1;
      used = 0;
    }
    used += w;
  }
  return rows;
}

/**
 * How terminals re-wrap the screen on a width change, as far as the cursor
 * is concerned. "cursor-line" (tmux, kitty, VTE, iTerm2, Windows Terminal,
 * Alacritty): every row is re-wrapped and the cursor stays on the wrapped
 * part of its row that holds its column. "xterm.js" (VS Code, Hyper, and
 * @xterm/headless 6): the wrapped line that holds the cursor is neither
 * re-wrapped nor moved against the rows above it; the renderer makes the
 * cursor's row and every live row below it one wrapped line (renderer.ts
 * #writeRows), because xterm.js re-wraps separate rows below the cursor and
 * moves the cursor down by their extra rows only while its scrollback is not
 * full, which no program can know.
 */
export type ReflowModel = "cursor-line" | "xterm.js";

/**
 * How far the cursor is below the first row of the old live region after
 * the terminal reflowed it to `width`: every old row above the cursor's row
 * takes reflowedRows of its width, plus (cursor-line) the wrapped part of
 * its own row that holds its column. For "xterm.js" the rows from the
 * cursor's down must be one wrapped line (or the cursor on the last row).
 * Measured in tmux 3.3 and @xterm/headless 6.
 */
export function rowsAboveCursorAfterReflow(
  rows: readonly string[],
  cursorRow: number,
  cursorCol: number,
  width: number,
  model: ReflowModel = "cursor-line",
): number {
  let up = 0;
  for (let i = 0; i < cursorRow && i < rows.length; i++) up += reflowedRows(rows[i]!, width);
  if (model === "xterm.js") return up;
  const own = reflowedRows(rows[cursorRow] ?? "", width);
  return up + Math.min(Math.floor(Math.max(0, cursorCol) / Math.max(1, width)), own - 1);
}

/**
 * When `line` is `drawn` (without its closing SGR reset) plus more text, the
 * column where the old text ends and what to write there; else undefined.
 * The new text is preceded by the SGR sequences in force at that point (the
 * ones since the drawn row's last reset, replayed in order), so it is drawn
 * in the state it would have had; the cells right of the old text are blank
 * (every row is written after an erase). Prepared lines hold no escape but
 * SGR. A grapheme cluster is never split.
 */
export function appendedTail(drawn: string, line: string): { column: number; text: string } | undefined {
  const stem = drawn.endsWith(SGR_RESET) ? drawn.slice(0, -SGR_RESET.length) : drawn;
  if (stem.length === 0 || line.length <= stem.length || !line.startsWith(stem)) return undefined;
  const added = line.slice(stem.length);
  const first = String.fromCodePoint(added.codePointAt(0)!);
  if (Bun.stringWidth(first) === 0 || stem.endsWith("\u200d") || stem.endsWith("\x1b")) return undefined;
  let inForce = "";
  if (stem.includes("\x1b")) {
    for (const match of stem.matchAll(/\x1b\[([0-9;:]*)m/g)) inForce = match[1] === "" || match[1] === "0" ? "" : inForce + match[0];
  }
  return { column: Bun.stringWidth(stem), text: inForce + added };
}

export function sameLines(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function sameCursor(a: CursorPosition | undefined, b: CursorPosition | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.row === b.row && a.col === b.col);
}
