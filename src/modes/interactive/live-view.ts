/**
 * Composes the live region under the transcript from the app's state, top to
 * bottom: the tail of the streaming assistant text, the open panel's box,
 * extension notes (`[ext] message`, coloured by level), queued prompts, the
 * confirmation question or the busy line (spinner, what runs, how to stop
 * it), a transient hint, then the editor rows behind the `›` prompt. The
 * cursor is placed at the editor's cursor. Pure: no I/O.
 */
import type { NoteLevel } from "../../ext/host.ts";
import type { EditorLayout } from "./editor.ts";
import type { Note } from "./ext-ui.ts";
import { panelBox, type OpenPanel } from "./panel.ts";
import type { LiveView } from "./screen.ts";
import type { Style } from "./style.ts";

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
export const SPINNER_INTERVAL_MS = 120;

export interface LiveParts {
  readonly width: number;
  readonly height: number;
  readonly style: Style;
  /** The streaming text's last rows (at most maxRows), wrapped to width. */
  readonly stream: (width: number, maxRows: number) => string[];
  readonly panel: OpenPanel | undefined;
  readonly notes: readonly Note[];
  readonly queued: readonly string[];
  readonly question: string | undefined;
  /** What runs, and the spinner frame; undefined when idle. */
  readonly busy: { readonly label: string; readonly frame: number } | undefined;
  readonly hint: string | undefined;
  readonly editor: EditorLayout;
}

function noteColour(style: Style, level: NoteLevel): (text: string) => string {
  if (level === "error") return style.red;
  if (level === "warn") return style.yellow;
  if (level === "success") return style.green;
  return style.dim;
}

export function composeLiveView(parts: LiveParts): LiveView {
  const { style, width, height } = parts;
  const lines: string[] = [];
  if (parts.panel !== undefined) lines.push(...panelBox(parts.panel, width, Math.max(4, height - 8), style));
  for (const note of parts.notes) {
    lines.push(noteColour(style, note.level)(`[${note.extension}] ${note.message.replace(/\s*\n\s*/g, " ")}`));
  }
  for (const text of parts.queued) lines.push(style.dim(`  ↳ queued: ${text.replace(/\s+/g, " ")}`));
  if (parts.question !== undefined) lines.push(parts.question);
  else if (parts.busy !== undefined) {
    const frame = SPINNER[parts.busy.frame % SPINNER.length] ?? "";
    lines.push(style.cyan(`${frame} ${parts.busy.label}…`) + style.dim("  (Ctrl+C to stop)"));
  }
  if (parts.hint !== undefined) lines.push(style.dim(parts.hint));
  const stream = parts.stream(width, Math.max(3, height - lines.length - parts.editor.rows.length - 2));
  const prompt = style.bold(style.cyan("›"));
  const editorRows = parts.editor.rows.map((row, index) => `${index === 0 ? prompt : " "} ${row}`);
  const above = [...stream, ...lines];
  return { lines: [...above, ...editorRows], cursorRow: above.length + parts.editor.cursorRow, cursorCol: parts.editor.cursorCol };
}
