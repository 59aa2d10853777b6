/**
 * The live region, top to bottom: what still runs in the chat (streaming
 * text tail, running tool cards) or, instead, the top overlay (dialogs and
 * pickers; the --no-yolo question comes before them all: it gets the chat's
 * rows (on a short terminal a question takes the rows it needs first, and
 * the rows under it give way) and places the caret, or hides it — a
 * full-screen overlay, a pager
 * such as help or the Ctrl+O view, is the whole view instead); the
 * extension load failures kept at the bottom of the chat (ext-problems.ts);
 * the extension panel (not drawn under an overlay: it takes what it needs
 * of the chat's rows, at least 3, scrolling when taller: panel.ts; on a
 * short terminal the chat part, the rule and the editor give way to it);
 * extension notes; queued prompts as chips; a line per running subagent
 * (subagents.ts); the
 * temporary /reload-ext status; the popup; a rule; the editor; the status
 * bar (two lines). The parts under the chat keep their rows; the chat part
 * gets what is left of `height - 1` rows (its last rows: the newest), and
 * while a turn runs it does not shrink (a few blank rows under the tail),
 * so the rows below it stay in place as lines are committed. The
 * cursor is parked at the editor's caret (hidden while a panel has the
 * keyboard). Pure composition: no I/O, no state: the rows the chat part
 * held at the last frame come in (`rowsHeld`) and the rows it holds now go
 * out with the view, for the caller to keep until the next frame.
 */
import { displayText, fitWidth, type LiveView } from "../../tui/index.ts";
import type { InteractiveApp } from "./app.ts";
import { panelBox } from "./panel.ts";
import { statusOf } from "./app-status.ts";
import { renderStatusBar } from "./status-bar.ts";

const MAX_NOTE_ROWS = 8;
/** Blank rows the chat part may keep under a shrinking tail while a turn runs. */
const MAX_HELD_ROWS = 4;

function noteLine(app: InteractiveApp, level: string, text: string): string {
  const { theme } = app;
  if (level === "error") return theme.error(text);
  if (level === "warn") return theme.warning(text);
  if (level === "success") return theme.success(text);
  return theme.muted(text);
}

export interface ComposedLive {
  readonly view: LiveView;
  /** How many rows the chat part holds from now on (0 when no operation runs). */
  readonly rowsHeld: number;
}

export function composeLive(app: InteractiveApp, width: number, height: number, rowsHeld: number): ComposedLive {
  const { theme } = app;
  const now = Date.now();
  const middle: string[] = [];
  for (const note of app.notes.notes.slice(-MAX_NOTE_ROWS)) {
    middle.push(fitWidth(noteLine(app, note.level, `[${displayText(note.extension)}] ${displayText(note.message).replace(/\s*\n\s*/g, " ")}`), width));
  }
  for (const queued of app.queue) {
    middle.push(fitWidth(`${theme.muted("↳ queued:")} ${theme.inverse(` ${displayText(queued.text).replace(/\s+/g, " ")} `)}`, width));
  }
  middle.push(...(app.subagents?.rows(width, theme, now) ?? []));
  middle.push(...app.extensionProblems.statusRows(width, theme));
  if (app.popup.open) {
    middle.push(...app.popup.list.render(width));
    const footer = app.popup.footer;
    if (footer !== undefined) middle.push(fitWidth(theme.muted(footer), width));
  }
  const editorRows = app.editor.render(width);
  const caret = app.editor.cursor(width);
  const status = renderStatusBar(statusOf(app), width, now, theme);
  const rule = theme.muted("─".repeat(Math.max(1, width)));
  const fixed = middle.length + 1 + editorRows.length + status.length;
  const room = Math.max(0, height - 1 - fixed);
  const overlay = app.confirmer.dialog ?? app.overlays.top;
  if (overlay?.fullScreen === true) {
    // A pager takes the whole terminal (the renderer's alternate screen): closing it gives the chat back as it was.
    const at = overlay.cursor?.(width, height);
    return { view: { lines: overlay.render(width, height), cursor: at, fullScreen: true }, rowsHeld };
  }
  if (overlay !== undefined) {
    // An overlay takes the chat's rows (at least a few) and the keyboard: the caret is its own, or hidden. On a short
    // terminal a question gets the rows it needs (neededRows) before the rows under it, which give way from the top
    // (the status bar stays longest): the renderer would otherwise keep the bottom rows and cut what is asked.
    const budget = Math.max(1, height); // the renderer's own bound: it keeps the bottom rows of a taller view
    const overlayRows = Math.min(budget, Math.max(3, room, overlay.neededRows?.(width) ?? 0));
    const rows = overlay.render(width, overlayRows);
    const at = overlay.cursor?.(width, overlayRows);
    const below = [...middle, rule, ...editorRows, ...status];
    const cut = Math.max(0, rows.length + below.length - budget);
    const lines = [...rows, ...below.slice(Math.min(cut, below.length))];
    return { view: { lines, cursor: at === undefined ? undefined : { row: at.row, col: at.col } }, rowsHeld };
  }
  const panel = app.panel === undefined ? [] : panelBox(app.panel, width, Math.max(3, room), theme);
  const chatRoom = Math.max(0, room - panel.length);
  const top = [...app.chat.renderLive(width), ...app.extensionProblems.chatRows(width, theme)];
  const clipped = top.length > chatRoom ? top.slice(top.length - chatRoom) : top;
  // While a turn runs the chat part never gets shorter (up to MAX_HELD_ROWS blank rows under the tail):
  // a tail that shrinks as its lines are committed would otherwise move every row below it, and each
  // move rewrites the rule, the editor and the status bar.
  const held = app.active === undefined ? 0 : Math.min(chatRoom, clipped.length + MAX_HELD_ROWS, rowsHeld);
  const shown = clipped.length < held ? [...clipped, ...new Array<string>(held - clipped.length).fill("")] : clipped;
  const above = [...shown, ...panel, ...middle, rule];
  const nextHeld = app.active === undefined ? 0 : Math.max(held, clipped.length);
  if (app.panel !== undefined && above.length + editorRows.length + status.length > height) {
    // Short of rows: the panel has the keyboard and the editor's caret is hidden, so the chat part, the rule and the
    // editor give way first (the renderer would keep the bottom rows and cut the panel), then the notes and chips from
    // the top; the status bar goes last.
    const box = panelBox(app.panel, width, Math.max(3, height - status.length), theme);
    const rest = [...middle, ...status];
    const lines = [...box, ...rest.slice(Math.min(rest.length, Math.max(0, box.length + rest.length - height)))];
    return { view: { lines }, rowsHeld: nextHeld };
  }
  return {
    view: { lines: [...above, ...editorRows, ...status], cursor: app.panel === undefined ? { row: above.length + caret.row, col: caret.col } : undefined },
    rowsHeld: nextHeld,
  };
}
