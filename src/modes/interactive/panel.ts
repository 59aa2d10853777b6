/**
 * Extension panels (extensions.md "open_panel", "panel_key"): the open
 * panel's state, its box drawn in the live region (title on the top border,
 * lines, footer; cut to the width and to maxRows lines), and the mapping of
 * a key to the panel_key name sent to the owning extension (`rune` + text
 * for typed characters). Esc and Ctrl+C are the app's (they close the panel).
 */
import type { KeyEvent } from "./keys.ts";
import type { Style } from "./style.ts";

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

/** The panel_key frames for a key event (one per typed character); none for keys that mean nothing to a panel. */
export function panelKey(key: KeyEvent): PanelKey[] {
  if (key.kind === "key") {
    if (PANEL_KEY_NAMES.has(key.name)) return [{ key: key.name }];
    return key.name === "unknown" ? [] : [{ key: "unknown" }];
  }
  if (key.kind === "paste") return [];
  return Array.from(key.text, (text) => ({ key: "rune", text }));
}

function clip(text: string, columns: number): string {
  const clean = Bun.stripANSI(text).replace(/[\x00-\x1f\x7f]/g, "");
  return Bun.stringWidth(clean) > columns ? `${Bun.sliceAnsi(clean, 0, Math.max(0, columns - 1))}…` : clean;
}

function pad(text: string, columns: number): string {
  return text + " ".repeat(Math.max(0, columns - Bun.stringWidth(text)));
}

/** The panel as box rows no wider than width-1 columns and at most maxRows rows. */
export function panelBox(panel: OpenPanel, width: number, maxRows: number, style: Style): string[] {
  const inner = Math.max(4, width - 5);
  const title = clip(` ${panel.title} `, inner - 2);
  const top = style.cyan(`╭─${title}${"─".repeat(Math.max(0, inner - Bun.stringWidth(title)))}╮`);
  const bottom = style.cyan(`╰${"─".repeat(inner + 1)}╯`);
  const side = style.cyan("│");
  const footerRows = panel.footer.trim() === "" ? 0 : 1;
  const room = Math.max(1, maxRows - 2 - footerRows);
  const body = panel.lines.length > room ? [...panel.lines.slice(0, room - 1), `… ${panel.lines.length - room + 1} more`] : [...panel.lines];
  const rows = [top, ...body.map((line) => `${side} ${pad(clip(line, inner), inner)}${side}`)];
  if (footerRows > 0) rows.push(`${side} ${style.dim(pad(clip(panel.footer, inner), inner))}${side}`);
  rows.push(bottom);
  return rows;
}
