/**
 * Extension panels (extensions.md "open_panel", "panel_key"): the open
 * panel's state, its box drawn in the live region (title on the top border,
 * lines, footer; cut to the width and to maxRows rows), and the mapping of
 * a key to the panel_key name sent to the owning extension (`rune` + text
 * for typed characters; a key with Ctrl or Alt is `unknown`). Esc and
 * Ctrl+C are the app's (they close the panel).
 */
import { box, displayText, type Key, type Theme } from "../../tui/index.ts";

export interface OpenPanel {
  readonly extension: string;
  readonly id: string;
  title: string;
  lines: readonly string[];
  footer: string;
}

export interface PanelKey {
  readonly key: string;
  readonly text?: string;
}

const PANEL_KEY_NAMES: ReadonlySet<string> = new Set([
  "up", "down", "left", "right", "enter", "tab", "backspace", "delete", "home", "end", "pageup", "pagedown",
]);

/** The panel_key frames for a key (one per typed character); none for a paste. */
export function panelKey(key: Key): PanelKey[] {
  if (key.kind === "key") {
    if (!key.ctrl && !key.alt && PANEL_KEY_NAMES.has(key.name)) return [{ key: key.name }];
    if (!key.ctrl && !key.alt && key.name === "space") return [{ key: "rune", text: " " }];
    return [{ key: "unknown" }];
  }
  if (key.kind === "paste") return [];
  return Array.from(key.text, (text) => ({ key: "rune", text }));
}

/** The panel as box rows no wider than width and at most maxRows rows. */
export function panelBox(panel: OpenPanel, width: number, maxRows: number, theme: Theme): string[] {
  const footer = displayText(panel.footer).replace(/\n/g, " ").trim();
  const room = Math.max(1, maxRows - 2 - (footer === "" ? 0 : 1));
  const lines = panel.lines.map((line) => displayText(line).replace(/\n/g, " "));
  const body = lines.length > room ? [...lines.slice(0, room - 1), `… ${lines.length - room + 1} more`] : lines;
  if (footer !== "") body.push(theme.muted(footer));
  return box({ theme, title: displayText(panel.title).replace(/\n/g, " "), body, width, tone: "normal" });
}
