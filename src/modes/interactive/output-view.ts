/**
 * The Ctrl+O full tool-output view: every tool call of the conversation
 * kept so far (chat.toolOutputs: a header with the call's state, then its
 * output), oldest first, in a TextViewer. It follows the calls while they
 * run: at each frame it re-reads the output when the chat's toolRevision
 * moved (live bash output, MCP progress lines, a call finishing); a view
 * scrolled to the bottom stays there as the output grows, one scrolled up
 * keeps its place. The title says what still runs ("running: bash"), or,
 * when no call's tool runs yet, what waits ("waiting: bash": queued or
 * preparing calls), and, once the calls that were unfinished while it was
 * open are done, "finished". Keys are
 * the TextViewer's; Esc, q or Ctrl+O again closes it.
 * Lines wider than the terminal are wrapped onto as many rows as they
 * need, at most MAX_ROWS_PER_LINE (then cut with `…`), so the end of a
 * long line (a compiler error, a JSON blob) can be read; they are laid out
 * again when the width changes.
 */
import { displayText, fitWidth, type Key, type Overlay, type OverlayResult, type Theme, TextViewer, wrapText } from "../../tui/index.ts";
import type { Chat } from "./chat.ts";

const TITLE = "tool output";
const NO_CALLS = "(no tool calls yet)";
/** A line takes at most this many rows of the view (a 200 KB single line would take thousands). */
export const MAX_ROWS_PER_LINE = 200;

/** `line` (sanitised, one line) as rows of at most `width` columns, at most MAX_ROWS_PER_LINE of them. */
function rowsOf(line: string, width: number): string[] {
  if (Bun.stringWidth(line) <= width) return [line];
  const room = MAX_ROWS_PER_LINE * width;
  const rows = wrapText(Bun.stringWidth(line) > room ? fitWidth(line, room) : line, width);
  if (rows.length <= MAX_ROWS_PER_LINE) return rows;
  rows.length = MAX_ROWS_PER_LINE;
  rows[MAX_ROWS_PER_LINE - 1] = fitWidth(`${rows[MAX_ROWS_PER_LINE - 1]!}…`, width);
  return rows;
}

export class ToolOutputView implements Overlay {
  /** A pager, as its TextViewer: the whole terminal. */
  readonly fullScreen = true;
  readonly #chat: Chat;
  readonly #viewer: TextViewer;
  #revision: number;
  /** The width the lines were wrapped at (0: not yet) and each line's rows at it, reused while the line is unchanged. */
  #width = 0;
  #rows = new Map<string, readonly string[]>();
  /** Something ran while the view was open (the title then says when all is finished). */
  #sawRunning = false;

  constructor(theme: Theme, chat: Chat) {
    this.#chat = chat;
    this.#revision = chat.toolRevision;
    this.#viewer = new TextViewer({ theme, title: this.#title(), lines: [], atEnd: true, closeKeys: ["ctrl+o"] });
  }

  handleKey(key: Key): OverlayResult {
    return this.#viewer.handleKey(key);
  }

  render(width: number, maxRows: number): readonly string[] {
    const revision = this.#chat.toolRevision;
    const columns = Math.max(1, Math.floor(width));
    if (revision !== this.#revision || columns !== this.#width) {
      this.#revision = revision;
      this.#viewer.setLines(this.#lines(columns));
      this.#viewer.setTitle(this.#title());
    }
    return this.#viewer.render(width, maxRows);
  }

  /** The calls' output as rows of the view at `width`. */
  #lines(width: number): string[] {
    const lines = this.#chat.toolOutputs();
    const cached = width === this.#width ? this.#rows : new Map<string, readonly string[]>();
    const rows = new Map<string, readonly string[]>();
    const out: string[] = [];
    for (const raw of lines.length > 0 ? lines : [NO_CALLS]) {
      for (const line of displayText(raw).split("\n")) {
        const wrapped = rows.get(line) ?? cached.get(line) ?? rowsOf(line, width);
        rows.set(line, wrapped);
        out.push(...wrapped);
      }
    }
    this.#width = width;
    this.#rows = rows;
    return out;
  }

  #title(): string {
    const running = this.#chat.runningTools();
    const unfinished = this.#chat.unfinishedTools();
    if (unfinished.length > 0) {
      this.#sawRunning = true;
      const names = [...new Set(running.length > 0 ? running : unfinished)];
      return `${TITLE} · ${running.length > 0 ? "running" : "waiting"}: ${names.join(", ")}`;
    }
    return this.#sawRunning ? `${TITLE} · finished` : TITLE;
  }
}
