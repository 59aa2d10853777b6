/**
 * A real terminal emulator (@xterm/headless) as the screen model for UI
 * tests: feed it the exact bytes zot writes, then read what a user would
 * see. write() resolves once the bytes are parsed. screen() is the visible
 * rows, scrollback() the rows that scrolled off the top (oldest first),
 * all() both; rows are plain text with trailing spaces trimmed. cursor() is
 * the cursor's row/column on the screen. resize() reflows like a terminal
 * window does. Counters: how many screen clears (`CSI 2J`), scrollback
 * clears (`CSI 3J`) and synchronized-output frames (`CSI ? 2026 h`) the
 * stream held, and its bytes. onReply() hands over what the emulator
 * answers to queries in the stream (DA1 `CSI c`, cursor reports `CSI 6n`,
 * mode reports), which a real terminal sends back to the program; it does
 * not answer the kitty keyboard query. Nothing here spawns: pair it with a
 * PTY (Bun.Terminal) or a Renderer's write callback.
 *
 * By default character widths are xterm.js's own (Unicode 6: most emoji one
 * column, ZWJ sequences not joined). Option `widths: "bun"` makes the
 * emulator measure like zot does (Bun.stringWidth per grapheme cluster, as
 * modern terminals draw them), so a test can hold zot's layout to the cell.
 */
import xterm from "@xterm/headless";

export interface ScreenCounts {
  readonly bytes: number;
  readonly screenClears: number;
  readonly scrollbackClears: number;
  readonly syncFrames: number;
}

export class XtermScreen {
  readonly #terminal: xterm.Terminal;
  #bytes = 0;
  #screenClears = 0;
  #scrollbackClears = 0;
  #syncFrames = 0;
  #tail = ""; // the end of the last chunk, so a sequence split across chunks is still counted

  constructor(columns: number, rows: number, scrollback = 10_000, options: { widths?: "xterm" | "bun" } = {}) {
    this.#terminal = new xterm.Terminal({ cols: columns, rows, scrollback, allowProposedApi: true });
    if (options.widths === "bun") {
      this.#terminal.unicode.register(bunWidths());
      this.#terminal.unicode.activeVersion = BUN_WIDTHS;
    }
  }

  get columns(): number {
    return this.#terminal.cols;
  }

  get rows(): number {
    return this.#terminal.rows;
  }

  write(data: string | Uint8Array): Promise<void> {
    const text = typeof data === "string" ? data : new TextDecoder().decode(data);
    this.#bytes += typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
    const scan = this.#tail + text;
    this.#screenClears += count(scan, "\x1b[2J") - count(this.#tail, "\x1b[2J");
    this.#scrollbackClears += count(scan, "\x1b[3J") - count(this.#tail, "\x1b[3J");
    this.#syncFrames += count(scan, "\x1b[?2026h") - count(this.#tail, "\x1b[?2026h");
    this.#tail = scan.slice(-8);
    return new Promise((resolve) => this.#terminal.write(data, resolve));
  }

  /** Replies the emulator sends to the program (answers to queries in the stream). */
  onReply(listener: (data: string) => void): void {
    this.#terminal.onData(listener);
  }

  resize(columns: number, rows: number): void {
    this.#terminal.resize(columns, rows);
  }

  /** The visible rows, top to bottom. */
  screen(): string[] {
    const buffer = this.#terminal.buffer.active;
    const rows: string[] = [];
    for (let y = 0; y < this.#terminal.rows; y++) rows.push(trimRow(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? ""));
    return rows;
  }

  /** Rows above the screen (scrolled off), oldest first. */
  scrollback(): string[] {
    const buffer = this.#terminal.buffer.active;
    const rows: string[] = [];
    for (let y = 0; y < buffer.baseY; y++) rows.push(trimRow(buffer.getLine(y)?.translateToString(true) ?? ""));
    return rows;
  }

  /** Scrollback then screen: everything the user can scroll through. */
  all(): string[] {
    return [...this.scrollback(), ...this.screen()];
  }

  /** Logical lines: rows the terminal wrapped joined back together (of the first `rows` rows of scrollback + screen, default all). */
  logicalLines(rows?: number): string[] {
    const buffer = this.#terminal.buffer.active;
    const lines: string[] = [];
    const end = rows === undefined ? buffer.length : Math.min(buffer.length, rows);
    for (let y = 0; y < end; y++) {
      const line = buffer.getLine(y);
      if (line === undefined) continue;
      const text = line.translateToString(true);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    return lines;
  }

  cursor(): { row: number; col: number } {
    const buffer = this.#terminal.buffer.active;
    return { row: buffer.cursorY, col: buffer.cursorX };
  }

  counts(): ScreenCounts {
    return { bytes: this.#bytes, screenClears: this.#screenClears, scrollbackClears: this.#scrollbackClears, syncFrames: this.#syncFrames };
  }

  dispose(): void {
    this.#terminal.dispose();
  }
}

const BUN_WIDTHS = "bun-string-width";

/**
 * Widths as Bun.stringWidth measures them: a code point that continues the
 * grapheme cluster before it (Intl.Segmenter) joins that cell, and the cell
 * is as wide as Bun.stringWidth of the whole cluster. xterm.js calls
 * charProperties for each printed code point in order, so the cluster so far
 * is kept here.
 */
function bunWidths(): xterm.IUnicodeVersionProvider {
  const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let cluster = "";
  const width = (text: string): number => Math.min(2, Bun.stringWidth(text));
  // (kind << 3) | (width << 1) | shouldJoin; kind 1 keeps the state non-zero after any character.
  const value = (w: number, join: boolean): number => (1 << 3) | ((w & 3) << 1) | (join ? 1 : 0);
  return {
    version: BUN_WIDTHS,
    wcwidth: (codepoint) => width(String.fromCodePoint(codepoint)) as 0 | 1 | 2,
    charProperties(codepoint, preceding) {
      const char = String.fromCodePoint(codepoint);
      if (preceding !== 0 && cluster !== "") {
        const joined = cluster + char;
        const parts = segmenter.segment(joined)[Symbol.iterator]();
        parts.next();
        if (parts.next().done === true) {
          cluster = joined;
          return value(width(joined), true);
        }
      }
      cluster = char;
      return value(width(char), false);
    },
  };
}

/** xterm.js trims only never-written cells; spaces a program wrote (padding) are trimmed here too. */
function trimRow(row: string): string {
  return row.replace(/ +$/, "");
}

function count(text: string, needle: string): number {
  let found = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found += 1;
  return found;
}
