/**
 * Where each key goes, in order:
 *  1. Ctrl+C: closes the top overlay, else a panel, else cancels the
 *     running turn (dropping the queue), else clears the draft; a second
 *     press within 2 s exits.
 *     Ctrl+Z suspends zot (the shell's job control; `fg` brings it back),
 *     whatever is open.
 *  2. An open --no-yolo question (a dialog above every overlay, confirm.ts)
 *     takes every key (y/a/A/n or 1-4, ←/→ or ↑/↓ and Enter, Esc cancels;
 *     an answer that comes in a burst of typing is ignored: every key is
 *     stamped on app.keyClock first).
 *  3. The top overlay (help, the Ctrl+O full-output view, dialogs and
 *     pickers: overlays.ts) takes every key it uses; Esc closes it.
 *  4. An open extension panel (panel-host.ts): Esc closes it (panel_close;
 *     an interactive call it belongs to ends as cancelled), Shift+↑/↓/PgUp/
 *     PgDn scroll it, the rest go to the extension as panel_key.
 *  5. An open popup takes ↑/↓, Tab, Enter, → and Esc (popup.ts).
 *  6. Esc: dismisses the notes first, else cancels the running turn, else
 *     clears the draft.
 *  7. Ctrl+D on an empty draft exits when nothing runs (the original's "empty
 *     idle editor"; while a turn runs it does nothing; on a draft it deletes
 *     the character under the cursor); Ctrl+L redraws the screen (clearing
 *     it, not the scrollback); Ctrl+O opens the full-output view
 *     (output-view.ts: it follows calls that still run).
 *  8. Everything else edits the draft (Editor); Enter submits.
 */
import type { Key } from "../../tui/index.ts";
import { EXIT_PRESS_WINDOW_MS, type InteractiveApp } from "./app.ts";
import { ToolOutputView } from "./output-view.ts";

function isKey(key: Key, name: string, mods: { ctrl?: boolean; alt?: boolean } = {}): boolean {
  return key.kind === "key" && key.name === name && key.ctrl === (mods.ctrl ?? false) && key.alt === (mods.alt ?? false);
}

function interrupt(app: InteractiveApp): void {
  const now = Date.now();
  if (now - app.lastInterrupt < EXIT_PRESS_WINDOW_MS) return app.exit(0);
  app.lastInterrupt = now;
  if (app.overlays.top !== undefined) app.overlays.close();
  else if (!app.panels.dismiss() && !app.cancel()) {
    app.editor.clear();
    app.operations.queue.length = 0;
    app.popup.close();
  }
  app.showHint("press Ctrl+C again to exit");
}

function isHistoryKey(key: Key): boolean {
  return key.kind === "key" && !key.ctrl && !key.alt && (key.name === "up" || key.name === "down" || key.name === "left" || key.name === "right");
}

function openOutputView(app: InteractiveApp): void {
  app.overlays.open(new ToolOutputView(app.theme, app.chat));
}

function escape(app: InteractiveApp): void {
  if (app.notes.clear()) return;
  else if (!app.cancel()) app.editor.clear();
}

export function handleKey(app: InteractiveApp, key: Key): void {
  app.keyClock.keyArrived(key);
  if (isKey(key, "c", { ctrl: true })) return interrupt(app);
  if (isKey(key, "z", { ctrl: true })) return app.suspend();
  if (app.confirmer.handleKey(key)) return;
  if (app.overlays.handleKey(key)) return;
  if (app.panels.handleKey(key)) return;
  const popup = app.popup.handle(key);
  if (popup === "handled") return;
  if (popup === "submit") {
    const result = app.editor.handle({ kind: "key", name: "enter", ctrl: false, alt: false, shift: false });
    if (result.kind === "submit") app.submitInput(result.text);
    app.popup.update();
    return;
  }
  if (isKey(key, "escape")) return escape(app);
  if (isKey(key, "d", { ctrl: true }) && app.editor.empty) {
    if (!app.busy) app.exit(0);
    return;
  }
  if (isKey(key, "l", { ctrl: true })) return app.clearScreen(false);
  if (isKey(key, "o", { ctrl: true })) return openOutputView(app);
  const before = app.editor.text;
  const result = app.editor.handle(key);
  if (result.kind === "submit") app.submitInput(result.text);
  // ↑/↓ (and ←/→ on an empty draft) that replaced the draft walked the history: a recalled `/command` opens no popup.
  if (result.kind === "changed" && isHistoryKey(key) && app.editor.text !== before) app.popup.recalled();
  else if (result.kind !== "ignored") app.popup.update();
}
