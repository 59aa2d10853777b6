/**
 * Measuring, sanitising, wrapping and cutting terminal text. Every width is
 * Bun.stringWidth of the text (SGR sequences count zero; wide CJK and emoji
 * two; combining marks and ZWJ sequences as the terminal draws them). Text
 * from outside (models, tools, extensions) goes through displayText first:
 * control sequences other than SGR are removed and tabs expanded, so what
 * is measured is what is drawn. wrapText breaks at word boundaries
 * (Bun.wrapAnsi), hard-breaking words longer than the width; fitWidth cuts a
 * line that is too wide and ends it with an ellipsis. No function here
 * returns a line wider than the width it was given (width < 1 is taken as 1).
 */
import { sanitizeTerminalText } from "../common/terminal-text.ts";

export const ELLIPSIS = "…";
const TAB_STOP = 4;
const SGR_RESET = "\x1b[0m";
// An SGR sequence, or one grapheme-ish code point run handled by the segmenter below.
const SGR_AT = /^\x1b\[[0-9;:]*m/;

let segmenter: Intl.Segmenter | undefined;
function graphemeSegmenter(): Intl.Segmenter {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return segmenter;
}

export function visibleWidth(text: string): number {
  return Bun.stringWidth(text);
}

/** Tabs become spaces up to the next multiple of 4 columns, per line. */
export function expandTabs(text: string): string {
  if (!text.includes("\t")) return text;
  return text
    .split("\n")
    .map((line) => {
      let out = "";
      let column = 0;
      for (const piece of line.split(/(\t)/)) {
        if (piece === "\t") {
          const pad = TAB_STOP - (column % TAB_STOP);
          out += " ".repeat(pad);
          column += pad;
        } else {
          out += piece;
          column += Bun.stringWidth(piece);
        }
      }
      return out;
    })
    .join("\n");
}

/** Outside text made safe and measurable: only printable text, "\n" and SGR remain; tabs expanded. */
export function displayText(text: string): string {
  return expandTabs(sanitizeTerminalText(text));
}

/**
 * The line cut to at most `width` columns: unchanged when it fits, else the
 * widest prefix that leaves room for `ellipsis`, then the ellipsis (and an
 * SGR reset when the line had colours). A wide character never straddles the cut.
 */
export function fitWidth(line: string, width: number, ellipsis: string = ELLIPSIS): string {
  const max = Math.max(1, Math.floor(width));
  if (Bun.stringWidth(line) <= max) return line;
  const ellipsisWidth = Bun.stringWidth(ellipsis);
  const room = ellipsisWidth <= max ? max - ellipsisWidth : max;
  const tail = ellipsisWidth <= max ? ellipsis : "";
  let out = "";
  let used = 0;
  let coloured = false;
  let rest = line;
  while (rest.length > 0) {
    const sgr = SGR_AT.exec(rest);
    if (sgr !== null) {
      out += sgr[0];
      coloured = true;
      rest = rest.slice(sgr[0].length);
      continue;
    }
    const nextEscape = rest.indexOf("\x1b", 1);
    const run = nextEscape === -1 ? rest : rest.slice(0, nextEscape);
    let consumed = 0;
    let full = false;
    for (const { segment } of graphemeSegmenter().segment(run)) {
      const w = Bun.stringWidth(segment);
      if (used + w > room) {
        full = true;
        break;
      }
      out += segment;
      used += w;
      consumed += segment.length;
    }
    if (full) break;
    rest = rest.slice(consumed === 0 && run.length > 0 && run.startsWith("\x1b") ? 1 : run.length);
  }
  return out + (coloured ? SGR_RESET : "") + tail;
}

/**
 * Text wrapped to lines of at most `width` columns: "\n" ends a line, words
 * wrap at spaces (the spaces at a break are dropped), a word longer than the
 * width is broken between grapheme clusters (a cluster wider than the width
 * itself becomes the ellipsis). Leading spaces (indentation)
 * are kept. SGR colours carry across the breaks: a row that ends inside a
 * colour is reset, and the next row opens with the colours in force.
 */
export function wrapText(text: string, width: number): string[] {
  const max = Math.max(1, Math.floor(width));
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (Bun.stringWidth(line) <= max) out.push(line);
    else wrapLine(line, max, out);
  }
  // A grapheme wider than the width itself (a wide character at width 1) cannot wrap: it is cut to the ellipsis.
  for (let i = 0; i < out.length; i++) if (Bun.stringWidth(out[i]!) > max) out[i] = fitWidth(out[i]!, max);
  return out;
}

type Piece = { readonly sgr: string } | { readonly text: string; readonly width: number; readonly space: boolean };

function piecesOf(line: string): Piece[] {
  const pieces: Piece[] = [];
  let rest = line;
  while (rest.length > 0) {
    const sgr = SGR_AT.exec(rest);
    if (sgr !== null) {
      pieces.push({ sgr: sgr[0] });
      rest = rest.slice(sgr[0].length);
      continue;
    }
    const nextEscape = rest.indexOf("\x1b", 1);
    const run = nextEscape === -1 ? rest : rest.slice(0, nextEscape);
    for (const { segment } of graphemeSegmenter().segment(run)) {
      pieces.push({ text: segment, width: Bun.stringWidth(segment), space: segment === " " });
    }
    rest = rest.slice(run.length);
  }
  return pieces;
}

function isReset(sgr: string): boolean {
  return sgr === "\x1b[m" || sgr === "\x1b[0m";
}

function wrapLine(line: string, max: number, out: string[]): void {
  const pieces = piecesOf(line);
  let active: string[] = []; // SGR sequences in force since the last reset
  let row = "";
  let rowWidth = 0;
  let rowHasText = false;
  const endRow = () => {
    out.push(active.length > 0 ? row + SGR_RESET : row);
    row = active.join("");
    rowWidth = 0;
    rowHasText = false;
  };
  let i = 0;
  while (i < pieces.length) {
    // A word: the run of non-space graphemes (with the SGRs inside it) starting at i.
    let j = i;
    let wordWidth = 0;
    if ("text" in pieces[i]! && (pieces[i] as { space: boolean }).space) {
      // Spaces: kept when they fit on the row, dropped at a break (but indentation at the start of the line is kept).
      const piece = pieces[i] as { text: string; width: number };
      if (rowWidth + piece.width <= max) {
        row += piece.text;
        rowWidth += piece.width;
      } else if (rowHasText) {
        endRow();
      }
      i += 1;
      continue;
    }
    while (j < pieces.length) {
      const piece = pieces[j]!;
      if ("text" in piece) {
        if (piece.space) break;
        wordWidth += piece.width;
      }
      j += 1;
    }
    if (rowWidth + wordWidth > max && wordWidth <= max && rowHasText) {
      row = row.replace(/ +$/, "");
      endRow();
    }
    for (let k = i; k < j; k++) {
      const piece = pieces[k]!;
      if ("sgr" in piece) {
        row += piece.sgr;
        if (isReset(piece.sgr)) active = [];
        else active.push(piece.sgr);
        continue;
      }
      if (rowWidth + piece.width > max && rowWidth > 0) endRow();
      row += piece.text;
      rowWidth += piece.width;
      rowHasText = true;
    }
    i = j;
  }
  if (row.length > 0 || out.length === 0) out.push(active.length > 0 && rowHasText ? row + SGR_RESET : row);
}

/** Pads a line with spaces to exactly `width` columns (cut first when wider). */
export function padToWidth(line: string, width: number): string {
  const fitted = fitWidth(line, width);
  const gap = Math.max(0, Math.floor(width) - Bun.stringWidth(fitted));
  return gap === 0 ? fitted : fitted + " ".repeat(gap);
}
