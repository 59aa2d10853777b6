/**
 * An overlay that shows many lines to read (help, a skill's body, a /btw
 * answer, full tool output), full screen: a ScrollView sized to the room it gets, ↑/↓
 * a line, PgUp/PgDn a page, Home/End; Esc or q closes (with typingCloses,
 * other typing closes it too and reaches the editor). setLines replaces
 * the text (the view stays at the bottom when it was there, else keeps its
 * place), so a viewer of something still growing can follow it; setTitle
 * changes the title (the place kept).
 */
import type { Overlay, OverlayResult } from "./overlay.ts";
import { ScrollView } from "./scroll-view.ts";
import type { Theme } from "../theme.ts";
import type { Key } from "../types.ts";

export interface TextViewerOptions {
  readonly theme: Theme;
  readonly title: string;
  readonly lines: readonly string[];
  /** Start at the end (logs, output) rather than the top. */
  readonly atEnd?: boolean;
  /** Extra keys that close it (e.g. "ctrl+o" for the output view). */
  readonly closeKeys?: readonly string[];
  /** Typing (text other than `q`, a paste) closes it and goes on to the editor (the help box), instead of being swallowed. */
  readonly typingCloses?: boolean;
  readonly onClose?: () => void;
}

export class TextViewer implements Overlay {
  /** A pager: the whole terminal, so closing it gives the chat back as it was. */
  readonly fullScreen = true;
  readonly #options: TextViewerOptions;
  #lines: readonly string[];
  #view: ScrollView | undefined;
  #height = 0;
  #atEnd: boolean;
  #title: string;

  constructor(options: TextViewerOptions) {
    this.#options = options;
    this.#title = options.title;
    this.#lines = options.lines;
    this.#atEnd = options.atEnd ?? false;
  }

  get onClose(): (() => void) | undefined {
    return this.#options.onClose;
  }

  setLines(lines: readonly string[]): void {
    this.#lines = lines;
    if (this.#view === undefined) return;
    const follow = this.#atEnd;
    this.#view.setLines(lines);
    if (follow) this.#view.toBottom();
  }

  setTitle(title: string): void {
    if (title === this.#title) return;
    this.#title = title;
    // Rebuilt at the next render, at the same place.
    this.#height = 0;
  }

  handleKey(key: Key): OverlayResult {
    if (key.kind === "text" && key.text === "q") return "close";
    if (key.kind !== "key") return this.#options.typingCloses === true ? "close-pass" : "handled";
    const named = `${key.ctrl ? "ctrl+" : ""}${key.alt ? "alt+" : ""}${key.name}`;
    if (named === "escape" || (this.#options.closeKeys ?? []).includes(named)) return "close";
    if (key.ctrl || key.alt) return "pass";
    const view = this.#view;
    if (view === undefined) return "handled";
    if (key.name === "up") view.scroll(-1);
    else if (key.name === "down") view.scroll(1);
    else if (key.name === "pageup") view.page(-1);
    else if (key.name === "pagedown") view.page(1);
    else if (key.name === "home") view.toTop();
    else if (key.name === "end") view.toBottom();
    this.#atEnd = view.offset >= Math.max(0, this.#lines.length - this.#windowRows());
    return "handled";
  }

  /** Rows of text the view shows (its title and hint rows aside). */
  #windowRows(): number {
    return Math.max(1, this.#height - 2);
  }

  render(width: number, maxRows: number): readonly string[] {
    const height = Math.max(3, maxRows);
    if (this.#view === undefined || height !== this.#height) {
      const offset = this.#view?.offset;
      this.#height = height;
      this.#view = new ScrollView({ theme: this.#options.theme, title: this.#title, height: this.#windowRows() });
      this.#view.setLines(this.#lines);
      if (this.#atEnd) this.#view.toBottom();
      else if (offset !== undefined) this.#view.scroll(offset);
    }
    return this.#view.render(width).slice(0, height);
  }
}
