/**
 * A TextViewer over text that is wrapped to the width it is drawn at (a
 * skill's body, a /btw answer): setText replaces the text (a viewer that was
 * at the end follows it as it grows, so an answer can stream into it);
 * setTitle changes the title. Keys and closing are the TextViewer's (↑/↓,
 * PgUp/PgDn, Home/End; Esc or q closes).
 */
import { displayText, type Key, type Overlay, type OverlayResult, type Theme, TextViewer, wrapText } from "../../tui/index.ts";

export interface ReadingViewOptions {
  readonly theme: Theme;
  readonly title: string;
  readonly text: string;
  /** Follow the end as the text grows (a streaming answer). */
  readonly atEnd?: boolean;
  readonly onClose?: () => void;
}

export class ReadingView implements Overlay {
  /** A pager, as its TextViewer: the whole terminal. */
  readonly fullScreen = true;
  readonly #options: ReadingViewOptions;
  #text: string;
  #title: string;
  #viewer: TextViewer;
  #wrappedFor = -1;

  constructor(options: ReadingViewOptions) {
    this.#options = options;
    this.#text = options.text;
    this.#title = options.title;
    this.#viewer = this.#build([]);
  }

  get onClose(): (() => void) | undefined {
    return this.#options.onClose;
  }

  get text(): string {
    return this.#text;
  }

  setText(text: string): void {
    this.#text = text;
    this.#wrappedFor = -1;
  }

  setTitle(title: string): void {
    this.#title = title;
    this.#viewer = this.#build([]);
    this.#wrappedFor = -1;
  }

  handleKey(key: Key): OverlayResult {
    return this.#viewer.handleKey(key);
  }

  render(width: number, maxRows: number): readonly string[] {
    if (width !== this.#wrappedFor) {
      this.#wrappedFor = width;
      this.#viewer.setLines(displayText(this.#text).split("\n").flatMap((line) => (line === "" ? [""] : wrapText(line, Math.max(1, width)))));
    }
    return this.#viewer.render(width, maxRows);
  }

  #build(lines: readonly string[]): TextViewer {
    return new TextViewer({ theme: this.#options.theme, title: this.#title, lines, atEnd: this.#options.atEnd });
  }
}
