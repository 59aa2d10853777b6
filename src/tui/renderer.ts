/**
 * Renderer: the differential renderer on the terminal's main screen.
 *
 * Two kinds of output. Committed lines (commit()) are written once, in
 * order, at the top of the live region, which pushes the live region down:
 * they become the terminal's own scrollback and are never touched again.
 * The live region (LiveSource.renderLive) is the bottom part that still
 * changes; each frame diffs it row by row against what is on screen and
 * rewrites only the rows that differ (after k commits, the old row k+i sits
 * where the new row i goes, so a streaming tail that commits its top line
 * costs almost nothing). Rows left over from a taller frame are erased with
 * `CSI J`. The cursor never moves above the live region's first row, except
 * after a resize (every one reported, also back to the size drawn at), when
 * it moves up by the rows the terminal's reflow made of the old region above
 * the cursor (frame.ts rowsAboveCursorAfterReflow), erases from there and
 * redraws. With "xterm.js" reflow the cursor's row and the rows below it are
 * kept one auto-wrapped line (#writeRows), which xterm.js leaves alone on a
 * resize; without a cursor it is parked on the last row. Erasing from a
 * row's start never uses a bare `CSI J` at column 0 (ERASE_ROWS_BELOW: tmux
 * would move a screen erased from its corner into history).
 *
 * One write per frame, inside `CSI ? 2026 h … l`, cursor hidden while
 * drawing and then parked at LiveView.cursor (left hidden when there is
 * none). requestFrame() coalesces: at most maxFramesPerSecond frames, none
 * when the frame equals the last one. Every line passes through prepareLine
 * (sanitised, fitted to the width); the live region is clipped to rows - 1
 * (its bottom part, keeping the cursor row): live-layout.ts. `CSI 2J`/`CSI 3J` are written by
 * clearScreen() only. Per-frame work is proportional to the live region and
 * the lines committed since the last frame, never to the history.
 *
 * suspend() (Ctrl+Z) erases the live region (leaving the alternate screen
 * first) and shows the cursor, so the shell's prompt comes where the region
 * was; nothing is drawn until resume(), which draws the whole region afresh
 * where the cursor is then (below what the shell printed), at the size then;
 * restart() does that alone (after a stop zot did not ask for).
 *
 * A view marked `fullScreen` (a pager) is drawn on the alternate screen
 * (full-screen.ts) and the main screen is left untouched meanwhile: lines
 * committed then wait, and the first frame back on the main screen writes
 * them and diffs against the live region as it was left (redrawn whole if
 * the terminal was resized meanwhile).
 */
import {
  appendedTail,
  cursorColumn,
  cursorDown,
  cursorUp,
  ERASE_ROWS_BELOW,
  fillToMargin,
  ERASE_LINE,
  HIDE_CURSOR,
  prepareLine,
  rowsAboveCursorAfterReflow,
  sameCursor,
  sameLines,
  SHOW_CURSOR,
  SYNC_OFF,
  SYNC_ON,
  type ReflowModel,
} from "./frame.ts";
import { FullScreen } from "./full-screen.ts";
import { clampCursor, PreparedLines } from "./live-layout.ts";
import type { CursorPosition, LiveSource, LiveView } from "./types.ts";

export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

export interface TerminalOutput {
  readonly size: TerminalSize;
  write(data: string): void;
  /** How the terminal re-wraps rows on a resize (frame.ts ReflowModel); default "cursor-line". */
  readonly reflow?: ReflowModel;
}

export interface RendererStats {
  /** Writes made (one per frame). */
  readonly frames: number;
  /** UTF-8 bytes written. */
  readonly bytes: number;
  /** clearScreen() calls (the only `CSI 2J` written). */
  readonly screenClears: number;
}

export interface RendererOptions {
  /** At most this many frames per second from requestFrame() (default 60). */
  readonly maxFramesPerSecond?: number;
}

type FrameMode = "diff" | "resize" | "clear-screen" | "clear-scrollback";

export class Renderer {
  readonly #output: TerminalOutput;
  readonly #source: LiveSource;
  readonly #minInterval: number;
  readonly #stats = { frames: 0, bytes: 0, screenClears: 0 };

  /** Lines to commit at the next frame. */
  #pending: string[] = [];
  /** The live rows on screen, as written (prepared), from the live region's first row. */
  #shown: readonly string[] = [];
  #shownCursor: CursorPosition | undefined;
  /** The view's lines prepared for the width, reusing the last frame's work for unchanged ones (live-layout.ts). */
  readonly #prepared = new PreparedLines();
  /** Width the live region was drawn at; 0 before the first frame. */
  #drawnWidth = 0;
  /** The terminal cursor, relative to the live region's first row. */
  #cursorRow = 0;
  /** Its column; -1 when unknown (where the shell left it, or after writing a row). */
  #cursorCol = -1;
  /** Rows from the live region's first row that exist on screen (the cursor has been there), so `CSI B` can reach them. */
  #extent = 1;
  /**
   * xterm.js reflow only: the cursor's row (`head`) and the rows below it down to `end` are one
   * auto-wrapped line on screen (rows head+1..end carry the terminal's "wrapped" flag), so a resize
   * leaves them alone (see #writeRows). Relative to the live region's first row, like #cursorRow.
   */
  #chain: { head: number; end: number; intact: boolean } | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastFrameAt = Number.NEGATIVE_INFINITY;
  #stopped = false;
  /** The alternate screen of full-screen views. */
  readonly #full = new FullScreen();
  /** The terminal was resized while a full-screen view was up: the main screen's region is redrawn whole on return. */
  #mainResized = false;
  /** Between suspend() and resume(): nothing is drawn. */
  #suspended = false;
  /** After resume(): the next frame draws the region afresh at the cursor, as the first one does. */
  #fresh = false;

  constructor(output: TerminalOutput, source: LiveSource, options: RendererOptions = {}) {
    this.#output = output;
    this.#source = source;
    const fps = options.maxFramesPerSecond ?? 60;
    this.#minInterval = fps > 0 ? 1000 / fps : 0;
  }

  get stats(): RendererStats {
    return { ...this.#stats };
  }

  /** Finished lines, written once into scrollback above the live region, in order. A line holding "\n" is several lines. */
  commit(lines: readonly string[]): void {
    if (this.#stopped) return;
    for (const line of lines) {
      if (line.includes("\n")) for (const part of line.split("\n")) this.#pending.push(part);
      else this.#pending.push(line);
    }
    this.requestFrame();
  }

  /** The live region may have changed: a frame is drawn soon (coalesced, at most maxFramesPerSecond). */
  requestFrame(): void {
    if (this.#stopped || this.#timer !== undefined) return;
    const wait = Math.max(0, this.#lastFrameAt + this.#minInterval - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, wait);
    this.#timer.unref?.();
  }

  /** Draws the pending frame now. */
  flush(): void {
    this.#cancelTimer();
    if (this.#stopped || this.#suspended) return;
    this.#frame("diff");
  }

  /**
   * The terminal's size changed: erase the old live region (as the terminal reflowed it) and draw it
   * again at the new size. Also when the size is the one drawn at: the terminal may have been at
   * another size in between (re-wrapping, or with xterm.js cutting the cursor's line), so the region
   * is redrawn whole all the same.
   */
  resize(): void {
    this.#cancelTimer();
    if (this.#stopped || this.#suspended) return;
    this.#frame(this.#drawnWidth === 0 ? "diff" : "resize");
  }

  /** Ctrl+L (scrollback: false) and /clear (scrollback: true): the only `CSI 2J` / `CSI 3J` the renderer writes. */
  clearScreen(options: { scrollback: boolean }): void {
    this.#cancelTimer();
    if (this.#stopped || this.#suspended) return;
    this.#frame("diff"); // lines committed before the clear go out first, in call order
    this.#frame(options.scrollback ? "clear-scrollback" : "clear-screen");
    this.#stats.screenClears += 1;
  }

  /** The last frame, then the live region erased (unless keepLive) and the cursor shown below what stays (nothing while suspended). Nothing is written after. */
  stop(options: { keepLive?: boolean } = {}): void {
    if (this.#stopped) return;
    if (this.#suspended) {
      // The shell has the terminal (zot ends while suspended): the region was erased at suspend(); nothing is written.
      this.#cancelTimer();
      this.#stopped = true;
      return;
    }
    this.flush();
    this.#cancelTimer();
    this.#stopped = true;
    let out = SYNC_ON + this.#full.leave();
    if (options.keepLive === true && this.#shown.length > 0) {
      out += this.#moveTo(this.#shown.length - 1) + "\r\n";
    } else {
      out += `\r${cursorUp(this.#cursorRow)}${ERASE_ROWS_BELOW}`;
    }
    out += SHOW_CURSOR + SYNC_OFF;
    this.#write(out);
  }

  /** Ctrl+Z: the last frame, then the live region erased and the cursor shown; nothing is drawn until resume(). */
  suspend(): void {
    if (this.#stopped || this.#suspended) return;
    this.flush();
    this.#suspended = true;
    this.#write(`${SYNC_ON}${this.#full.leave()}\r${cursorUp(this.#cursorRow)}${ERASE_ROWS_BELOW}${SHOW_CURSOR}${SYNC_OFF}`);
  }

  /** Back from suspend(): the region is drawn whole where the cursor is now. */
  resume(): void {
    if (!this.#suspended) return;
    this.#suspended = false;
    this.restart();
  }

  /** Something else wrote to the terminal (a shell, while zot was stopped from outside): the region is drawn afresh where the cursor is, on a line of its own. */
  restart(): void {
    if (this.#stopped || this.#suspended) return;
    this.#shown = [];
    this.#shownCursor = undefined;
    this.#cursorRow = 0;
    this.#cursorCol = -1;
    this.#extent = 1;
    this.#chain = undefined;
    this.#mainResized = false;
    this.#fresh = true;
    this.flush();
  }

  #cancelTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #width(): number {
    const columns = Math.floor(this.#output.size.columns);
    return Number.isFinite(columns) && columns > 0 ? columns : 80;
  }

  #height(): number {
    const rows = Math.floor(this.#output.size.rows);
    return Number.isFinite(rows) && rows > 0 ? rows : 24;
  }

  #write(out: string): void {
    this.#stats.frames += 1;
    this.#stats.bytes += Buffer.byteLength(out);
    this.#output.write(out);
  }

  /** Moves the cursor from where it is to `row`, `col` of the live region. */
  #moveTo(row: number, col = 0): string {
    let out = "";
    let atColumnZero = false;
    if (row < this.#cursorRow) out += cursorUp(this.#cursorRow - row);
    else if (row > this.#cursorRow) {
      // Rows that exist are reached with CSI B; new rows are made with CRLF (which scrolls at the bottom).
      const reachable = Math.min(row, this.#extent - 1);
      if (reachable > this.#cursorRow) out += cursorDown(reachable - this.#cursorRow);
      for (let r = Math.max(reachable, this.#cursorRow); r < row; r++) {
        out += "\r\n";
        atColumnZero = true;
      }
      this.#extent = Math.max(this.#extent, row + 1);
    }
    // CSI A / B keep the column; CRLF leaves it at 0; -1 means unknown (after writing a row).
    const columnNow = atColumnZero ? 0 : this.#cursorCol;
    if (columnNow !== col) out += cursorColumn(col);
    this.#cursorRow = row;
    this.#cursorCol = col;
    return out;
  }

  #frame(requested: FrameMode): void {
    const width = this.#width();
    const height = this.#height();
    const maxHeight = Math.max(1, height - 1);
    const view = this.#source.renderLive(width, maxHeight);
    if (view.fullScreen === true && this.#drawnWidth !== 0) {
      this.#fullScreenFrame(view, width, maxHeight, requested);
      return;
    }
    // Back from the alternate screen: the main one is as it was left (or was reflowed by a resize meanwhile).
    const leaving = this.#full.leave();
    let mode = requested;
    if (leaving !== "" && this.#mainResized && mode === "diff") mode = "resize";
    this.#mainResized = false;
    const { lines, cursor } = this.#prepared.layout(view, width, maxHeight);
    const commits = this.#pending;
    const first = this.#drawnWidth === 0 || this.#fresh;
    this.#fresh = false;
    if (leaving === "" && mode === "diff" && !first && commits.length === 0 && sameLines(lines, this.#shown) && sameCursor(cursor, this.#shownCursor)) {
      return;
    }
    this.#pending = [];
    let out = SYNC_ON + leaving + HIDE_CURSOR;
    let below: readonly string[]; // what is on screen from the new live region's first row down
    if (mode === "clear-screen" || mode === "clear-scrollback") {
      // The live region is erased first: tmux (scroll-on-clear) moves a cleared screen into its history, which
      // must get the committed lines only, not a copy of the live rows.
      out += `\r${cursorUp(this.#cursorRow)}${ERASE_ROWS_BELOW}\x1b[H\x1b[2J${mode === "clear-scrollback" ? "\x1b[3J" : ""}`;
      this.#cursorRow = 0;
      this.#cursorCol = 0;
      this.#extent = 1;
      this.#chain = undefined;
      below = [];
    } else if (mode === "resize") {
      const up = rowsAboveCursorAfterReflow(this.#shown, this.#cursorRow, this.#cursorCol, width, this.#output.reflow);
      out += `\r${cursorUp(up)}${ERASE_ROWS_BELOW}`;
      this.#cursorRow = 0;
      this.#cursorCol = 0;
      this.#extent = 1;
      this.#chain = undefined; // erased
      below = [];
    } else {
      out += this.#moveTo(0);
      if (first) out += ERASE_ROWS_BELOW;
      below = first ? [] : this.#shown;
    }
    // Committed lines overwrite the top rows of the old live region and push it down.
    if (commits.length > 0) {
      for (const line of commits) out += `${ERASE_LINE}${prepareLine(line, width)}\r\n`;
      this.#extent = Math.max(1, this.#extent - commits.length);
      below = below.length > commits.length ? below.slice(commits.length) : [];
      // The chain is k rows up now; the CRLFs went through old rows 0..k, so it is intact only if it started below them
      // (else what is left of it is rewritten: #writeRows).
      const chain = this.#chain;
      const k = commits.length;
      this.#chain = chain === undefined || chain.end < k ? undefined : { head: chain.head - k, end: chain.end - k, intact: chain.intact && chain.head >= k };
    }
    out += this.#writeRows(lines, below, cursor, width);
    if (below.length > lines.length) out += this.#moveTo(lines.length) + ERASE_ROWS_BELOW;
    if (cursor !== undefined) {
      out += this.#moveTo(cursor.row, cursor.col) + SHOW_CURSOR;
    } else {
      // Parked at column 0 of the last row, so a resize knows where it is (no rows below the cursor).
      out += this.#moveTo(Math.max(0, lines.length - 1), 0);
    }
    out += SYNC_OFF;
    this.#shown = lines;
    this.#shownCursor = cursor;
    this.#drawnWidth = width;
    this.#extent = Math.max(this.#extent, lines.length);
    this.#lastFrameAt = performance.now();
    this.#write(out);
  }

  /** A full-screen view on the alternate screen; committed lines keep waiting for the main screen. */
  #fullScreenFrame(view: LiveView, width: number, maxHeight: number, mode: FrameMode): void {
    if (mode === "resize") this.#mainResized = true;
    const lines = view.lines.slice(0, maxHeight).map((line) => prepareLine(line, width));
    const cursor = clampCursor(view.cursor, lines.length, width);
    const drawn = this.#full.draw(lines, cursor, width, mode !== "diff");
    this.#lastFrameAt = performance.now();
    if (drawn === "") return;
    this.#write(SYNC_ON + HIDE_CURSOR + drawn + SYNC_OFF);
  }

  /**
   * The rows of the new frame that differ from what is on screen (`below`), each erased and
   * rewritten. With xterm.js reflow and the cursor above the last row, the cursor's row and the
   * rows below it are kept one auto-wrapped line (#chain): each filled to the margin, so the
   * next one continues it by the terminal's own wrap. xterm.js neither re-wraps nor moves the line
   * that holds the cursor on a resize, so nothing below the cursor can shift it; without the chain
   * the rows below would be re-wrapped and move the cursor down by an amount that depends on
   * whether the scrollback is full (docs/tui.md). A row's wrapped flag is only kept while nothing
   * clears it: no `CSI K` / `CSI J` at column 0 and no line feed onto it, so a chained row is
   * rewritten in place (its text, then `CSI K` from where the text ends), and rows that leave the
   * chain are rewritten with `CSI K` at column 0 (which clears the flag and the filling).
   */
  #writeRows(lines: readonly string[], below: readonly string[], cursor: CursorPosition | undefined, width: number): string {
    const head = this.#output.reflow === "xterm.js" && cursor !== undefined && cursor.row < lines.length - 1 ? cursor.row : -1;
    const end = lines.length - 1;
    const old = this.#chain;
    // Rows that leave the chain are rewritten with CSI K: that clears their wrapped flag and the space in their last
    // column (which would make them take more rows than their text on the next narrowing).
    const wasChained = (i: number): boolean => old !== undefined && i >= old.head && i <= old.end;
    const established = head >= 0 && old !== undefined && old.intact && old.head === head && old.end >= end && old.end < this.#extent;
    let out = "";
    const last = head >= 0 ? head : lines.length;
    for (let i = 0; i < last; i++) {
      const line = lines[i]!;
      if (i < below.length && below[i] === line && !wasChained(i)) continue;
      const tail = i < below.length && !wasChained(i) ? appendedTail(below[i]!, line) : undefined;
      // A row that only grew at its end (the streaming answer's last row) gets just the new text.
      if (tail !== undefined) out += `${this.#moveTo(i, tail.column)}${tail.text}`;
      else out += `${this.#moveTo(i)}${ERASE_LINE}${line}`;
      this.#cursorCol = -1; // somewhere on the row (maybe pending wrap): the next move starts with CR
    }
    if (head < 0) {
      this.#chain = undefined;
      return out;
    }
    if (established) {
      if (!(head < below.length && below[head] === lines[head])) {
        out += `${this.#moveTo(head)}${ERASE_LINE}${lines[head]!}`; // CSI K clears the head's own flag only
        this.#cursorCol = -1;
      }
      for (let i = head + 1; i <= end; i++) {
        const line = lines[i]!;
        if (i < below.length && below[i] === line) continue;
        // CSI K right of column 0 keeps the flag (a blank row gets one space first); a full row needs no erase.
        const columns = Bun.stringWidth(line);
        const text = columns === 0 ? ` ${line}` : line;
        out += this.#moveTo(i) + (Math.max(1, columns) < width ? text + ERASE_LINE : text);
        this.#cursorCol = -1;
      }
    } else {
      // One line from the head down: each filled row ends in the pending-wrap state and the next
      // character wraps onto the following row (scrolling at the bottom), which marks it wrapped.
      out += `${this.#moveTo(head)}${ERASE_LINE}`;
      for (let i = head; i <= end; i++) out += fillToMargin(lines[i]!, width, i > head);
      this.#cursorRow = end;
      this.#cursorCol = -1;
      this.#extent = Math.max(this.#extent, end + 1);
    }
    this.#chain = { head, end, intact: true };
    return out;
  }
}
