/**
 * Extension panels (extensions.md "open_panel", "panel_key"): one panel's
 * state, the panel_key frames a key becomes, and its box.
 *
 * Keys: the spec's names (up, down, left, right, enter, tab, backspace,
 * delete, home, end, pageup, pagedown; Shift ignored), `rune` + text for
 * each typed character (one per grapheme, in order, however many arrived in
 * one read; Space is a rune), `unknown` for anything with Ctrl or Alt and
 * keys without a name in the spec (F-keys, Insert). A paste is typed: each
 * character a rune, "\n" enter, "\t" tab, other control characters dropped.
 * One key (a burst of text or a paste) becomes at most MAX_KEYS_PER_INPUT
 * frames; the rest is dropped and counted. Esc and Ctrl+C never get here
 * (they close the panel), nor Shift+↑/↓/PgUp/PgDn (they scroll the view).
 *
 * The box: title on the top border, the lines, the footer (muted), every
 * row sanitized (only SGR kept, reset at the row's end), one row per line
 * (newlines become spaces) cut to the width with an ellipsis, never
 * wrapped. A panel with more lines than its rows shows a window of them
 * with "↑ N more" / "↓ N more" rows; the window keeps its place across
 * redraws and follows a small change (at most FOLLOW_MAX_CHANGED lines, e.g.
 * a moved selection) that happens outside it.
 */
import { box, displayText, type Key, type Theme } from "../../tui/index.ts";

export interface OpenPanel {
  readonly extension: string;
  readonly id: string;
  title: string;
  lines: readonly string[];
  footer: string;
  /** The interactive tool call this panel belongs to (its tool_call id). */
  readonly callId?: string;
  /** First line of the window shown when the panel is taller than its rows. */
  offset: number;
  /** Body rows at the last draw (what a page is). */
  rows: number;
}

export interface PanelKey {
  readonly key: string;
  readonly text?: string;
}

/** Most panel_key frames one key (a burst of typed text, a paste) becomes. */
export const MAX_KEYS_PER_INPUT = 4096;
/** A redraw that changes at most this many lines outside the window brings them into view. */
export const FOLLOW_MAX_CHANGED = 4;

const PANEL_KEY_NAMES: ReadonlySet<string> = new Set([
  "up", "down", "left", "right", "enter", "tab", "backspace", "delete", "home", "end", "pageup", "pagedown",
]);

let segmenter: Intl.Segmenter | undefined;
function graphemes(text: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return Array.from(segmenter.segment(text), (part) => part.segment);
}

function pastedKey(char: string): PanelKey | undefined {
  if (char === "\n") return { key: "enter" };
  if (char === "\t") return { key: "tab" };
  if (/^[\x00-\x1f\x7f-\x9f]/.test(char)) return undefined;
  return { key: "rune", text: char };
}

/** The panel_key frames for a key, in order, and how many were dropped past MAX_KEYS_PER_INPUT. */
export function panelKeys(key: Key): { keys: PanelKey[]; dropped: number } {
  if (key.kind === "key") {
    if (!key.ctrl && !key.alt && PANEL_KEY_NAMES.has(key.name)) return { keys: [{ key: key.name }], dropped: 0 };
    if (!key.ctrl && !key.alt && key.name === "space") return { keys: [{ key: "rune", text: " " }], dropped: 0 };
    return { keys: [{ key: "unknown" }], dropped: 0 };
  }
  const keys: PanelKey[] = [];
  let dropped = 0;
  for (const char of graphemes(key.text)) {
    const sent = key.kind === "paste" ? pastedKey(char) : { key: "rune", text: char };
    if (sent === undefined) continue;
    if (keys.length < MAX_KEYS_PER_INPUT) keys.push(sent);
    else dropped += 1;
  }
  return { keys, dropped };
}

/** Rows the view scrolls for a host scroll key (Shift+↑/↓ a line, Shift+PgUp/PgDn a page); undefined for any other key. */
export function scrollKey(key: Key, page: number): number | undefined {
  if (key.kind !== "key" || !key.shift || key.ctrl || key.alt) return undefined;
  if (key.name === "up") return -1;
  if (key.name === "down") return 1;
  if (key.name === "pageup") return -Math.max(1, page - 1);
  if (key.name === "pagedown") return Math.max(1, page - 1);
  return undefined;
}

export interface PanelWindow {
  /** Lines [start, end) are shown. */
  readonly start: number;
  readonly end: number;
  /** Lines hidden above and below. */
  readonly above: number;
  readonly below: number;
}

/** Which of `total` lines fit in `rows` body rows from `offset` on (the "more" rows take a row each; clamped). */
export function panelWindow(total: number, rows: number, offset: number): PanelWindow {
  const room = Math.max(1, rows);
  if (total <= room) return { start: 0, end: total, above: 0, below: 0 };
  if (room <= 2) {
    const start = Math.min(Math.max(0, offset), total - room);
    return { start, end: start + room, above: start, below: total - start - room };
  }
  // Scrolled to the end: the "↑ more" row and room - 1 lines.
  const start = Math.min(Math.max(0, offset), total - (room - 1));
  const shown = room - (start > 0 ? 1 : 0);
  const end = start + shown >= total ? total : start + shown - 1;
  return { start, end, above: start, below: total - end };
}

/** The offset nearest to `offset` that shows line `line`. */
export function offsetShowing(total: number, rows: number, offset: number, line: number): number {
  const view = panelWindow(total, rows, offset);
  if (line < view.start) return line;
  if (line < view.end) return view.start;
  let start = Math.max(0, line - Math.max(1, rows) + 1);
  while (panelWindow(total, rows, start).end <= line) start += 1;
  return start;
}

/** New lines for a panel: the window keeps its place, and follows a small change that happened outside it. */
export function replaceLines(panel: OpenPanel, lines: readonly string[]): void {
  const before = panel.lines;
  panel.lines = lines;
  if (lines.length <= panel.rows) return;
  const changed: number[] = [];
  for (let i = 0; i < lines.length && changed.length <= FOLLOW_MAX_CHANGED; i++) if (lines[i] !== before[i]) changed.push(i);
  if (changed.length === 0 || changed.length > FOLLOW_MAX_CHANGED) return;
  const view = panelWindow(lines.length, panel.rows, panel.offset);
  const above = changed.filter((line) => line < view.start);
  const below = changed.filter((line) => line >= view.end);
  if (below.length > 0 && above.length === 0) panel.offset = offsetShowing(lines.length, panel.rows, view.start, Math.max(...below));
  else if (above.length > 0 && below.length === 0) panel.offset = offsetShowing(lines.length, panel.rows, view.start, Math.min(...above));
}

/** Scrolls the view by `delta` lines (clamped); true when it moved. */
export function scrollPanel(panel: OpenPanel, delta: number): boolean {
  const before = panelWindow(panel.lines.length, panel.rows, panel.offset).start;
  const after = panelWindow(panel.lines.length, panel.rows, before + delta).start;
  panel.offset = after;
  return after !== before;
}

const oneLine = (text: string): string => {
  const line = displayText(text).replace(/\n/g, " ");
  // An extension's colour ends with its line (never bleeds into the border or the rows below).
  return line.includes("\x1b[") ? `${line}\x1b[0m` : line;
};

/** The panel as box rows, each exactly width columns, at most maxRows rows (records the rows it had in `panel.rows`). */
export function panelBox(panel: OpenPanel, width: number, maxRows: number, theme: Theme): string[] {
  const footer = displayText(panel.footer).replace(/\n/g, " ").trim();
  const rows = Math.max(1, maxRows - 2 - (footer === "" ? 0 : 1));
  panel.rows = rows;
  const view = panelWindow(panel.lines.length, rows, panel.offset);
  panel.offset = view.start;
  const body = panel.lines.slice(view.start, view.end).map(oneLine);
  if (view.above > 0) body.unshift(theme.muted(`↑ ${view.above} more (shift+↑)`));
  if (view.below > 0) body.push(theme.muted(`↓ ${view.below} more (shift+↓)`));
  if (footer !== "") body.push(theme.muted(footer));
  return box({ theme, title: displayText(panel.title).replace(/\n/g, " "), body, width, tone: "normal" });
}
