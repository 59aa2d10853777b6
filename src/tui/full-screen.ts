/**
 * The alternate screen, for a view that takes the whole terminal (a pager:
 * help, the full tool output). The renderer (renderer.ts) switches to it when
 * a LiveView says `fullScreen` and back when one does not; the main screen —
 * its scrollback and the live region as last drawn — is left exactly as it
 * was, and the terminal gives it back on leaving (`CSI ? 1049 h/l` also save
 * and restore the cursor), so closing a tall viewer never leaves a screen
 * pushed empty. Rows are placed absolutely (`CSI row;1 H`); a frame rewrites
 * only the rows that changed since the last one, all of them after a resize.
 * Pure string building: the renderer writes what enter/draw/leave return.
 */
import { ERASE_BELOW, ERASE_LINE, SHOW_CURSOR } from "./frame.ts";
import type { CursorPosition } from "./types.ts";

export const ALT_SCREEN_ON = "\x1b[?1049h";
export const ALT_SCREEN_OFF = "\x1b[?1049l";

function rowAt(row: number): string {
  return `\x1b[${row + 1};1H`;
}

export class FullScreen {
  /** Rows on the alternate screen as last drawn; undefined while the main screen is shown. */
  #shown: readonly string[] | undefined;
  #width = 0;

  get active(): boolean {
    return this.#shown !== undefined;
  }

  /**
   * The escape text that draws `lines` (prepared: one row each, fitted to
   * `width`) and places the cursor (hidden when undefined): entering the
   * alternate screen first if the main one is shown; everything again when
   * `redraw` (a resize) or the width changed.
   */
  draw(lines: readonly string[], cursor: CursorPosition | undefined, width: number, redraw: boolean): string {
    let out = "";
    let shown = this.#shown;
    if (shown === undefined) {
      out += `${ALT_SCREEN_ON}\x1b[H${ERASE_BELOW}`;
      shown = [];
    } else if (redraw || width !== this.#width) {
      out += `\x1b[H${ERASE_BELOW}`;
      shown = [];
    }
    for (let i = 0; i < lines.length; i++) {
      if (shown[i] === lines[i]) continue;
      out += `${rowAt(i)}${ERASE_LINE}${lines[i]!}`;
    }
    if (shown.length > lines.length) out += `${rowAt(lines.length)}${ERASE_BELOW}`;
    if (cursor !== undefined) out += `${rowAt(cursor.row)}\x1b[${cursor.col + 1}G${SHOW_CURSOR}`;
    this.#shown = lines;
    this.#width = width;
    return out;
  }

  /** Back to the main screen (as it was, cursor included); "" when it is already shown. */
  leave(): string {
    if (this.#shown === undefined) return "";
    this.#shown = undefined;
    this.#width = 0;
    return ALT_SCREEN_OFF;
  }
}
