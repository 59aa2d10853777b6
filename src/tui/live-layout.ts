/**
 * The live region's lines as the renderer writes them: each view line
 * prepared for the width (frame.ts prepareLine: sanitised, fitted), with the
 * last frame's work reused for lines that did not change at the same width
 * (PreparedLines), clipped to the rows there are (the bottom part, moved up
 * so the cursor's row stays in view), and the view's cursor clamped to the
 * rows and columns drawn (clampCursor, also used for full-screen views).
 */
import { prepareLine } from "./frame.ts";
import type { CursorPosition, LiveView } from "./types.ts";

/** `cursor` (shifted up by `firstRow`) inside `rows` rows and `width` columns; whole, finite numbers. */
export function clampCursor(cursor: CursorPosition | undefined, rows: number, width: number, firstRow = 0): CursorPosition | undefined {
  if (cursor === undefined) return undefined;
  const row = Math.min(Math.max(0, Math.floor(cursor.row) - firstRow), Math.max(0, rows - 1));
  const col = Math.min(Math.max(0, Math.floor(cursor.col)), width - 1);
  return { row: Number.isFinite(row) ? row : 0, col: Number.isFinite(col) ? col : 0 };
}

export class PreparedLines {
  #raw: readonly string[] = [];
  #prepared: readonly string[] = [];
  /** The width #prepared was made for; 0 before the first layout. */
  #width = 0;

  /** The view's lines prepared for `width`, clipped to `maxHeight` rows, and its cursor within them. */
  layout(view: LiveView, width: number, maxHeight: number): { lines: readonly string[]; cursor: CursorPosition | undefined } {
    const prepared = this.#prepare(view.lines, width);
    let start = 0;
    if (prepared.length > maxHeight) {
      start = prepared.length - maxHeight;
      if (view.cursor !== undefined && view.cursor.row < start) start = Math.max(0, view.cursor.row);
    }
    const lines = prepared.length > maxHeight ? prepared.slice(start, start + maxHeight) : prepared;
    return { lines, cursor: clampCursor(view.cursor, lines.length, width, start) };
  }

  #prepare(raw: readonly string[], width: number): readonly string[] {
    if (raw === this.#raw && width === this.#width) return this.#prepared;
    const sameWidth = width === this.#width;
    const out = new Array<string>(raw.length);
    for (let i = 0; i < raw.length; i++) {
      const line = raw[i]!;
      out[i] = sameWidth && this.#raw[i] === line ? this.#prepared[i]! : prepareLine(line, width);
    }
    this.#raw = raw;
    this.#prepared = out;
    this.#width = width;
    return out;
  }
}
