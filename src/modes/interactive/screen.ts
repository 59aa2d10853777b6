/**
 * The screen: scrolling transcript output above a redrawn "live" region at
 * the bottom (streaming text, panel, notes, queue, busy line, editor).
 * print() erases the live region, writes the text (wrapped to the terminal
 * width, "\r\n" line ends so raw mode needs no output processing), and draws
 * the live region again; refresh() redraws it on the next tick (coalesced).
 * The live view must give lines that fit width-1 columns (longer ones are
 * cut) and is shown from its bottom when taller than the terminal. Before
 * start() (during setup) and after stop(), print() writes plain lines and
 * nothing is redrawn. Printed text and every live line pass the terminal
 * sanitizer (common/terminal-text.ts) first: only SGR colours and "\n"/"\t"
 * survive, so no model or extension text can move the cursor, set the title
 * or write the clipboard; the Screen adds its own cursor movements after.
 */
import { sanitizeTerminalText } from "../../common/terminal-text.ts";
import type { TerminalIO } from "./terminal.ts";

export interface LiveView {
  readonly lines: readonly string[];
  /** Where the cursor goes, within lines. */
  readonly cursorRow: number;
  readonly cursorCol: number;
}

const ERASE_DOWN = "\x1b[J";
const HIDE_CURSOR = "\x1b[?25l";
const SHOW_CURSOR = "\x1b[?25h";

export function fitWidth(text: string, width: number): string[] {
  const wrapped = Bun.wrapAnsi(text, Math.max(1, width), { hard: true, trim: false });
  return wrapped.split("\n");
}

export class Screen {
  readonly #io: TerminalIO;
  #view: () => LiveView = () => ({ lines: [], cursorRow: 0, cursorCol: 0 });
  #live = false;
  /** Rows above the cursor that belong to the drawn live region. */
  #cursorRowDrawn = 0;
  #drawn = false;
  #scheduled: Timer | undefined;

  constructor(io: TerminalIO) {
    this.#io = io;
  }

  get width(): number {
    return this.#io.columns;
  }

  get height(): number {
    return this.#io.rows;
  }

  /** From now on the live region is drawn below the printed output. */
  start(view: () => LiveView): void {
    this.#view = view;
    this.#live = true;
    this.redraw();
  }

  /** Erases the live region and stops drawing it. */
  stop(): void {
    if (this.#scheduled !== undefined) clearTimeout(this.#scheduled);
    this.#scheduled = undefined;
    if (this.#live) this.#io.write(this.#erase());
    this.#live = false;
  }

  /** Writes text (one or more lines) above the live region. */
  print(text: string): void {
    const body = fitWidth(sanitizeTerminalText(text).replace(/\n$/, ""), this.width).join("\r\n");
    if (!this.#live) {
      this.#io.write(`${body}\r\n`);
      return;
    }
    this.#io.write(`${HIDE_CURSOR}${this.#erase()}${body}\r\n${this.#draw()}${SHOW_CURSOR}`);
  }

  /** Redraws the live region soon (several calls in one tick draw once). */
  refresh(): void {
    if (!this.#live || this.#scheduled !== undefined) return;
    this.#scheduled = setTimeout(() => {
      this.#scheduled = undefined;
      this.redraw();
    }, 8);
  }

  redraw(): void {
    if (!this.#live) return;
    if (this.#scheduled !== undefined) clearTimeout(this.#scheduled);
    this.#scheduled = undefined;
    this.#io.write(`${HIDE_CURSOR}${this.#erase()}${this.#draw()}${SHOW_CURSOR}`);
  }

  /** Clears the whole screen (Ctrl+L, /clear) and draws the live region at the top. */
  clearScreen(): void {
    this.#io.write("\x1b[H\x1b[2J");
    this.#drawn = false;
    this.redraw();
  }

  #erase(): string {
    if (!this.#drawn) return "";
    this.#drawn = false;
    const up = this.#cursorRowDrawn > 0 ? `\x1b[${this.#cursorRowDrawn}A` : "";
    return `${up}\r${ERASE_DOWN}`;
  }

  #draw(): string {
    const view = this.#view();
    const maxCols = Math.max(1, this.width - 1);
    let lines = view.lines.map((raw) => {
      // One row each: a newline or tab inside a live line would break the row accounting.
      const line = sanitizeTerminalText(raw).replace(/[\n\t]/g, " ");
      return Bun.stringWidth(line) > maxCols ? Bun.sliceAnsi(line, 0, maxCols) : line;
    });
    let cursorRow = view.cursorRow;
    const maxRows = Math.max(1, this.height - 1);
    if (lines.length > maxRows) {
      const cut = lines.length - maxRows;
      lines = lines.slice(cut);
      cursorRow = Math.max(0, cursorRow - cut);
    }
    if (lines.length === 0) return "";
    cursorRow = Math.min(cursorRow, lines.length - 1);
    const up = lines.length - 1 - cursorRow;
    const col = Math.min(view.cursorCol, maxCols);
    this.#drawn = true;
    this.#cursorRowDrawn = cursorRow;
    return `${lines.join("\r\n")}${up > 0 ? `\x1b[${up}A` : ""}\r${col > 0 ? `\x1b[${col}C` : ""}`;
  }
}
