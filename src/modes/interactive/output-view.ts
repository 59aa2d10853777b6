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
 */
import { type Key, type Overlay, type OverlayResult, type Theme, TextViewer } from "../../tui/index.ts";
import type { Chat } from "./chat.ts";

const TITLE = "tool output";
const NO_CALLS = "(no tool calls yet)";

export class ToolOutputView implements Overlay {
  /** A pager, as its TextViewer: the whole terminal. */
  readonly fullScreen = true;
  readonly #chat: Chat;
  readonly #viewer: TextViewer;
  #revision: number;
  /** Something ran while the view was open (the title then says when all is finished). */
  #sawRunning = false;

  constructor(theme: Theme, chat: Chat) {
    this.#chat = chat;
    this.#revision = chat.toolRevision;
    this.#viewer = new TextViewer({ theme, title: this.#title(), lines: this.#lines(), atEnd: true, closeKeys: ["ctrl+o"] });
  }

  handleKey(key: Key): OverlayResult {
    return this.#viewer.handleKey(key);
  }

  render(width: number, maxRows: number): readonly string[] {
    const revision = this.#chat.toolRevision;
    if (revision !== this.#revision) {
      this.#revision = revision;
      this.#viewer.setLines(this.#lines());
      this.#viewer.setTitle(this.#title());
    }
    return this.#viewer.render(width, maxRows);
  }

  #lines(): string[] {
    const lines = this.#chat.toolOutputs();
    return lines.length > 0 ? lines : [NO_CALLS];
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
