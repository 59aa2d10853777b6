/**
 * The prompt editor: a multi-line text buffer of grapheme clusters with a
 * cursor and this run's prompt history. `handle(key)` applies one key and
 * says whether the text was submitted (Enter, unless the character before the
 * cursor is a `\`, which becomes a newline), changed/moved, or ignored (keys
 * the app owns: Ctrl+C, Esc, …). `layout(width)` wraps the buffer to rows
 * that fit width-1 columns behind a two-column prompt (the rows exclude the
 * prompt; the cursor column includes it). Pure: no I/O.
 */
import type { KeyEvent } from "./keys.ts";

export type EditorResult = { readonly kind: "submit"; readonly text: string } | { readonly kind: "handled" } | { readonly kind: "ignored" };

export interface EditorLayout {
  readonly rows: readonly string[];
  readonly cursorRow: number;
  readonly cursorCol: number;
}

const HANDLED: EditorResult = { kind: "handled" };
const IGNORED: EditorResult = { kind: "ignored" };
const PROMPT_WIDTH = 2;

let segmenter: Intl.Segmenter | undefined;

/** Grapheme clusters of text with tabs expanded and control characters (other than newlines) dropped. */
function graphemes(text: string): string[] {
  const clean = text
    .replace(/\r\n?/g, "\n")
    .replace(/\t/g, "    ")
    // Escape sequences (e.g. colours in pasted text) and other control characters.
    .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, "")
    .replace(/[\x00-\x09\x0b-\x1f\x7f]/g, "");
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return Array.from(segmenter.segment(clean), (part) => part.segment);
}

const isSpace = (ch: string | undefined): boolean => ch !== undefined && /^\s$/.test(ch);

export class LineEditor {
  #chars: string[] = [];
  #cursor = 0;
  readonly #history: string[] = [];
  #historyIndex = 0;
  #draft = "";

  get text(): string {
    return this.#chars.join("");
  }

  get isEmpty(): boolean {
    return this.#chars.length === 0;
  }

  /** Replaces the buffer; the cursor goes to the end. */
  set(text: string): void {
    this.#chars = graphemes(text);
    this.#cursor = this.#chars.length;
  }

  clear(): void {
    this.set("");
    this.#historyIndex = this.#history.length;
  }

  /** Inserts at the cursor (extension `insert`, pastes, typing). */
  insert(text: string): void {
    const added = graphemes(text);
    this.#chars.splice(this.#cursor, 0, ...added);
    this.#cursor += added.length;
  }

  /** Remembers a submitted prompt (consecutive duplicates once). */
  remember(text: string): void {
    if (text.trim() !== "" && this.#history.at(-1) !== text) this.#history.push(text);
    this.#historyIndex = this.#history.length;
    this.#draft = "";
  }

  handle(key: KeyEvent): EditorResult {
    if (key.kind !== "key") {
      this.insert(key.text);
      return HANDLED;
    }
    switch (key.name) {
      case "enter":
        return this.#enter();
      case "newline":
        this.insert("\n");
        return HANDLED;
      case "left":
        this.#cursor = Math.max(0, this.#cursor - 1);
        return HANDLED;
      case "right":
        this.#cursor = Math.min(this.#chars.length, this.#cursor + 1);
        return HANDLED;
      case "home":
      case "ctrl+a":
        this.#cursor = this.#lineStart(this.#cursor);
        return HANDLED;
      case "end":
      case "ctrl+e":
        this.#cursor = this.#lineEnd(this.#cursor);
        return HANDLED;
      case "backspace":
        if (this.#cursor > 0) this.#chars.splice(--this.#cursor, 1);
        return HANDLED;
      case "delete":
      case "ctrl+d":
        this.#chars.splice(this.#cursor, 1);
        return HANDLED;
      case "ctrl+u":
        this.#deleteRange(this.#lineStart(this.#cursor), this.#cursor);
        return HANDLED;
      case "ctrl+k":
        this.#deleteRange(this.#cursor, this.#lineEnd(this.#cursor));
        return HANDLED;
      case "ctrl+w":
      case "delete-word":
        this.#deleteRange(this.#wordStart(this.#cursor), this.#cursor);
        return HANDLED;
      case "word-left":
        this.#cursor = this.#wordStart(this.#cursor);
        return HANDLED;
      case "word-right":
        this.#cursor = this.#wordEnd(this.#cursor);
        return HANDLED;
      case "up":
        return this.#vertical(-1);
      case "down":
        return this.#vertical(1);
      default:
        return IGNORED;
    }
  }

  layout(width: number): EditorLayout {
    const maxCols = Math.max(PROMPT_WIDTH + 1, width - 1);
    const rows: string[] = [];
    let row = "";
    let col = PROMPT_WIDTH;
    let cursorRow = 0;
    let cursorCol = PROMPT_WIDTH;
    const newRow = (): void => {
      rows.push(row);
      row = "";
      col = PROMPT_WIDTH;
    };
    for (let i = 0; i <= this.#chars.length; i++) {
      const ch = this.#chars[i];
      const charWidth = ch === undefined || ch === "\n" ? 0 : Bun.stringWidth(ch);
      if (ch !== undefined && ch !== "\n" && col + charWidth > maxCols) newRow();
      if (i === this.#cursor) {
        cursorRow = rows.length;
        cursorCol = col;
      }
      if (ch === undefined) break;
      if (ch === "\n") newRow();
      else {
        row += ch;
        col += charWidth;
      }
    }
    rows.push(row);
    return { rows, cursorRow, cursorCol };
  }

  #enter(): EditorResult {
    if (this.#cursor > 0 && this.#chars[this.#cursor - 1] === "\\") {
      this.#chars[this.#cursor - 1] = "\n";
      return HANDLED;
    }
    const text = this.text;
    this.#chars = [];
    this.#cursor = 0;
    return { kind: "submit", text };
  }

  #vertical(direction: -1 | 1): EditorResult {
    const start = this.#lineStart(this.#cursor);
    const column = this.#cursor - start;
    if (direction < 0 && start > 0) {
      const previousStart = this.#lineStart(start - 1);
      this.#cursor = Math.min(previousStart + column, start - 1);
      return HANDLED;
    }
    const end = this.#lineEnd(this.#cursor);
    if (direction > 0 && end < this.#chars.length) {
      const nextStart = end + 1;
      this.#cursor = Math.min(nextStart + column, this.#lineEnd(nextStart));
      return HANDLED;
    }
    return this.#browseHistory(direction);
  }

  #browseHistory(direction: -1 | 1): EditorResult {
    const target = this.#historyIndex + direction;
    if (target < 0 || target > this.#history.length) return HANDLED;
    if (this.#historyIndex === this.#history.length) this.#draft = this.text;
    this.#historyIndex = target;
    this.set(target === this.#history.length ? this.#draft : (this.#history[target] ?? ""));
    return HANDLED;
  }

  #deleteRange(from: number, to: number): void {
    if (to <= from) return;
    this.#chars.splice(from, to - from);
    this.#cursor = from;
  }

  #lineStart(position: number): number {
    let i = position;
    while (i > 0 && this.#chars[i - 1] !== "\n") i--;
    return i;
  }

  #lineEnd(position: number): number {
    let i = position;
    while (i < this.#chars.length && this.#chars[i] !== "\n") i++;
    return i;
  }

  #wordStart(position: number): number {
    let i = position;
    while (i > 0 && isSpace(this.#chars[i - 1])) i--;
    while (i > 0 && !isSpace(this.#chars[i - 1])) i--;
    return i;
  }

  #wordEnd(position: number): number {
    let i = position;
    while (i < this.#chars.length && isSpace(this.#chars[i])) i++;
    while (i < this.#chars.length && !isSpace(this.#chars[i])) i++;
    return i;
  }
}
