/**
 * Draws one markdown group (see markdown-blocks.ts) at a width with
 * Bun.markdown.ansi. Single newlines are kept: inside a group every line
 * break between two non-blank lines outside a fence becomes a hard break
 * (two trailing spaces, which CommonMark ignores where no break can be, so
 * lists, tables, headings and fences are not disturbed). Code is drawn one
 * source line at a time (a line's colours never depend on the lines after
 * it), inside the fence's frame. Every row returned is at most `width`
 * columns: what Bun does not wrap (long code lines, headings, long words)
 * is wrapped here, code rows keeping their frame. `dim` drops the colours
 * and draws the rows dimmed (thinking text). Pure.
 */
import { visibleWidth, wrapText } from "../text.ts";
import type { Fence, Group } from "./markdown-blocks.ts";

export interface MarkdownStyle {
  readonly colors: boolean;
  readonly dim: boolean;
  readonly dimText: (text: string) => string;
}

const SGR = /\x1b\[[0-9;:]*m/g;
const FENCE_RUN = /^\s*(`{3,}|~{3,})/;

const stripSgr = (text: string): string => (text.includes("\x1b") ? text.replace(SGR, "") : text);

function ansi(source: string, width: number, colors: boolean): string[] {
  const out = Bun.markdown.ansi(source, { columns: Math.max(1, width), colors, hyperlinks: false });
  const rows = out.split("\n");
  while (rows.length > 0 && stripSgr(rows.at(-1)!).trim() === "") rows.pop();
  let first = 0;
  while (first < rows.length && stripSgr(rows[first]!).trim() === "") first++;
  return first === 0 ? rows : rows.slice(first);
}

/** Lines of one group with soft breaks made hard, outside fences. */
export function withHardBreaks(lines: readonly string[]): string {
  if (lines.length === 1) return lines[0]!;
  let fence: string | undefined;
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const run = FENCE_RUN.exec(line)?.[1];
    if (run !== undefined && (fence === undefined || (run[0] === fence[0] && run.length >= fence.length))) {
      fence = fence === undefined ? run : undefined;
      out.push(line);
      continue;
    }
    const next = lines[i + 1];
    const breakable = fence === undefined && next !== undefined && line.trim() !== "" && next.trim() !== "" && FENCE_RUN.exec(next) === null;
    out.push(breakable ? `${line}  ` : line);
  }
  return out.join("\n");
}

/** Rows of code drawn inside a frame, wrapped so the frame prefix repeats on each row. */
function fitCodeRows(rows: readonly string[], width: number, out: string[]): void {
  for (const row of rows) {
    if (visibleWidth(row) <= width) {
      out.push(row);
      continue;
    }
    const bar = row.indexOf("│ ") !== -1 ? row.indexOf("│ ") : row.indexOf("| ");
    let prefixEnd = bar === -1 ? 0 : bar + 2;
    if (prefixEnd > 0 && row.startsWith("\x1b[0m", prefixEnd)) prefixEnd += 4;
    const prefix = row.slice(0, prefixEnd);
    const prefixWidth = visibleWidth(prefix);
    if (prefixEnd === 0 || width - prefixWidth < 1) {
      fitRows([row], width, out);
      continue;
    }
    for (const piece of wrapText(row.slice(prefixEnd), width - prefixWidth)) out.push(prefix + piece);
  }
}

function fitRows(rows: readonly string[], width: number, out: string[]): void {
  for (const row of rows) {
    if (visibleWidth(row) <= width) out.push(row);
    else for (const piece of wrapText(row, width)) out.push(piece);
  }
}

function fenceSource(fence: Fence, body: string | undefined): string {
  return body === undefined ? `${fence.marker}${fence.info}\n${fence.marker}` : `${fence.marker}${fence.info}\n${body}\n${fence.marker}`;
}

/** Rows of one code line (an unfinished one too) at width. */
function codeLineRows(fence: Fence, line: string, width: number, colors: boolean, out: string[]): void {
  const rows = Bun.markdown.ansi(fenceSource(fence, line), { columns: Math.max(1, width), colors }).split("\n");
  // Frame top, the line's row(s), frame bottom, "".
  fitCodeRows(rows.slice(1, -2), width, out);
}

function finish(rows: string[], style: MarkdownStyle): string[] {
  if (!style.dim) return rows;
  return rows.map((row) => {
    const plain = stripSgr(row);
    return plain === "" ? "" : style.dimText(plain);
  });
}

export function renderGroup(group: Group, width: number, style: MarkdownStyle): string[] {
  const max = Math.max(1, Math.floor(width));
  const out: string[] = [];
  if (group.separator) out.push("");
  switch (group.kind) {
    case "markdown":
      fitRows(ansi(withHardBreaks(group.lines), max, style.colors), max, out);
      break;
    case "plain-code":
      fitCodeRows(ansi(group.lines.join("\n"), max, style.colors), max, out);
      break;
    case "code-open":
      fitRows(ansi(fenceSource(group.fence!, undefined), max, style.colors).slice(0, 1), max, out);
      break;
    case "code-close":
      fitRows(ansi(fenceSource(group.fence!, undefined), max, style.colors).slice(-1), max, out);
      break;
    case "code-line":
      codeLineRows(group.fence!, group.lines[0]!, max, style.colors, out);
      break;
  }
  // A group that draws nothing (a link reference definition) draws no separator either.
  if (group.separator && out.length === 1) return [];
  return finish(out, style);
}

/** The live tail: what is open plus the unfinished line, drawn as it would look if the text ended here. */
export function renderTail(
  open: { readonly kind: "markdown" | "code" | "plain-code"; readonly lines: readonly string[]; readonly separator: boolean; readonly fence?: Fence },
  partial: string,
  width: number,
  style: MarkdownStyle,
): string[] {
  const max = Math.max(1, Math.floor(width));
  const out: string[] = [];
  if (open.kind === "code") {
    if (partial !== "") codeLineRows(open.fence!, partial, max, style.colors, out);
    return finish(out, style);
  }
  const lines = partial === "" ? open.lines : [...open.lines, partial];
  if (lines.length === 0) return out;
  if (open.separator) out.push("");
  if (open.kind === "plain-code") fitCodeRows(ansi(lines.join("\n"), max, style.colors), max, out);
  else fitRows(ansi(withHardBreaks(lines), max, style.colors), max, out);
  if (open.separator && out.length === 1) return [];
  return finish(out, style);
}
