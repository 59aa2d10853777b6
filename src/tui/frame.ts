/**
 * The pieces a frame is made of: the escape sequences the renderer writes,
 * preparing a line for the terminal (prepareLine: sanitised, one row, at
 * most `width` columns, colours closed), and the reflow arithmetic for a
 * resize (how many rows the old live region occupies above the cursor once
 * the terminal has re-wrapped it at the new width). Pure functions, no I/O.
 */
import { sanitizeTerminalText } from "../common/terminal-text.ts";
import { expandTabs, fitWidth } from "./text.ts";

export const SYNC_ON = "\x1b[?2026h";
export const SYNC_OFF = "\x1b[?2026l";
export const HIDE_CURSOR = "\x1b[?25l";
export const SHOW_CURSOR = "\x1b[?25h";
/** Erase from the cursor to the end of the line (at column 0: the whole row). */
export const ERASE_LINE = "\x1b[K";
/** Erase from the cursor to the end of the screen. */
export const ERASE_BELOW = "\x1b[J";
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

/** Rows a row of `columns` visible columns takes once re-wrapped at `width` (an empty row still takes one). */
export function reflowedRows(columns: number, width: number): number {
  return columns <= 0 ? 1 : Math.ceil(columns / Math.max(1, width));
}

/**
 * How far the cursor is below the first row of the old live region after
 * the terminal reflowed it to `width`: every old row above the cursor's row
 * takes reflowedRows of its width, and within its own row the cursor lands
 * on the wrapped part that holds its column (never past that row's last
 * part). This is what terminals that reflow the cursor's line do (tmux,
 * kitty, VTE, iTerm2, Windows Terminal); xterm.js leaves the cursor's own
 * line unwrapped, which gives the same count whenever the cursor column is
 * left of the new width.
 */
export function rowsAboveCursorAfterReflow(rowWidths: readonly number[], cursorRow: number, cursorCol: number, width: number): number {
  let rows = 0;
  for (let i = 0; i < cursorRow && i < rowWidths.length; i++) rows += reflowedRows(rowWidths[i]!, width);
  const own = reflowedRows(rowWidths[cursorRow] ?? 0, width);
  return rows + Math.min(Math.floor(cursorCol / Math.max(1, width)), own - 1);
}
