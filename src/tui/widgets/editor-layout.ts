/**
 * The editor's text as units and how the units wrap. A unit is one
 * grapheme cluster (measured with Bun.stringWidth, so wide CJK, emoji, ZWJ
 * sequences and combining marks are what the terminal draws), a "\n", or a
 * chip: an atomic token shown as its label. layoutRows() soft-wraps each
 * line at word boundaries into rows of at most `columns` columns: a row
 * breaks before the word that does not fit (a word wider than a row is
 * broken between units); one space that overflows hangs at the row's end
 * (the editor keeps a spare column for it and for the caret). Every unit is
 * on exactly one row, so a caret index maps to exactly one (row, column).
 * Pure.
 */
import { TerminalTextSanitizer } from "../../common/terminal-text.ts";

export interface Unit {
  readonly text: string;
  readonly width: number;
  /** Chips only: what the chip stands for on submit. */
  readonly expansion?: string;
}

export interface Row {
  /** Unit index of the first unit on the row. */
  readonly start: number;
  /** Unit index after the last unit on the row (a "\n" ending the line is not on the row). */
  readonly end: number;
  /** The row ends its line (a "\n" or the end of the text follows). */
  readonly lineEnd: boolean;
  readonly width: number;
}

const SGR = /\x1b\[[0-9;:]*m/g;
export const NEWLINE: Unit = { text: "\n", width: 0 };
const SPACE: Unit = { text: " ", width: 1 };

let segmenter: Intl.Segmenter | undefined;

/** Typed or pasted text as units: control sequences (colours too) and controls dropped, CRLF/CR as "\n", tabs as 4 spaces. */
export function unitsOf(text: string): Unit[] {
  const clean = new TerminalTextSanitizer()
    .push(text.replace(/\r\n?/g, "\n"))
    .replace(SGR, "")
    .replace(/\t/g, "    ");
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const units: Unit[] = [];
  for (const { segment } of segmenter.segment(clean)) {
    if (segment === "\n") units.push(NEWLINE);
    else if (segment === " ") units.push(SPACE);
    else units.push({ text: segment, width: Bun.stringWidth(segment) });
  }
  return units;
}

export const isSpace = (unit: Unit | undefined): boolean => unit !== undefined && unit.expansion === undefined && /^\s$/.test(unit.text);

/** Rows of the units wrapped to `columns` columns (≥ 1). */
export function layoutRows(units: readonly Unit[], columns: number): Row[] {
  const max = Math.max(1, columns);
  const rows: Row[] = [];
  let lineStart = 0;
  for (let i = 0; i <= units.length; i++) {
    if (i < units.length && units[i] !== NEWLINE) continue;
    wrapLine(units, lineStart, i, max, rows);
    lineStart = i + 1;
  }
  return rows;
}

function wrapLine(units: readonly Unit[], from: number, to: number, max: number, rows: Row[]): void {
  let start = from;
  while (true) {
    let width = 0;
    let i = start;
    /** Index where the last word on this row began (a break opportunity), or -1. */
    let wordStart = -1;
    let broke = false;
    while (i < to) {
      const unit = units[i]!;
      if (width + unit.width > max) {
        if (isSpace(unit) && width + unit.width === max + 1 && !isSpace(units[i - 1])) {
          // One space hangs in the spare column.
          width += unit.width;
          i++;
        } else if (wordStart > start && !isSpace(unit)) {
          i = wordStart;
          width = rowWidth(units, start, i);
        } else if (i === start) {
          // A unit wider than the row: alone on its row.
          width = unit.width;
          i++;
        }
        broke = true;
        break;
      }
      if (!isSpace(unit) && isSpace(units[i - 1]) && i > start) wordStart = i;
      width += unit.width;
      i++;
    }
    const end = broke ? i : to;
    if (end < to) {
      rows.push({ start, end, lineEnd: false, width });
      start = end;
      continue;
    }
    // The line ends here. A caret after a hanging space (or a unit wider than the row) gets a row of its own.
    const overfull = width > max;
    rows.push({ start, end, lineEnd: !overfull, width });
    if (overfull) rows.push({ start: to, end: to, lineEnd: true, width: 0 });
    return;
  }
}

function rowWidth(units: readonly Unit[], from: number, to: number): number {
  let width = 0;
  for (let i = from; i < to; i++) width += units[i]!.width;
  return width;
}

/** The row the caret is drawn on: at a soft break it belongs to the next row, at a line end to the row it ends. */
export function caretRow(rows: readonly Row[], caret: number): number {
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    if (caret >= row.start && (caret < row.end || (caret === row.end && row.lineEnd))) return r;
  }
  return Math.max(0, rows.length - 1);
}

export function columnOf(units: readonly Unit[], row: Row, caret: number): number {
  return rowWidth(units, row.start, Math.min(caret, row.end));
}

/** The caret index on `row` closest to column `goal` (never a soft-break end, which would show on the next row). */
export function indexAtColumn(units: readonly Unit[], row: Row, goal: number): number {
  let col = 0;
  let i = row.start;
  const last = row.lineEnd ? row.end : Math.max(row.start, row.end - 1);
  while (i < last && col + units[i]!.width <= goal) {
    col += units[i]!.width;
    i++;
  }
  return i;
}
