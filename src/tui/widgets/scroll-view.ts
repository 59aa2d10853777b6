/**
 * A scrollable window over many lines inside the live region (Ctrl+O full
 * tool output): a title row with "lines a–b of n", `height` rows of
 * content (long lines cut to the width, sanitized), and a key hint row.
 * scroll(delta) moves by lines, page(delta) by windows, toTop/toBottom;
 * the offset is clamped so the window is always full when there are enough
 * lines. render(width) is cached until lines, offset or width change.
 */
import { displayText, fitWidth } from "../text.ts";
import type { Theme } from "../theme.ts";
import type { Component } from "../types.ts";

export interface ScrollViewOptions {
  readonly theme: Theme;
  readonly title: string;
  readonly height: number;
}

export class ScrollView implements Component {
  readonly #theme: Theme;
  readonly #title: string;
  readonly #height: number;
  #lines: readonly string[] = [];
  #offset = 0;
  #cache: { width: number; lines: readonly string[] } | undefined;

  constructor(options: ScrollViewOptions) {
    this.#theme = options.theme;
    this.#title = displayText(options.title).replace(/\n/g, " ");
    this.#height = Math.max(1, Math.floor(options.height));
  }

  get offset(): number {
    return this.#offset;
  }

  setLines(lines: readonly string[]): void {
    this.#lines = lines.flatMap((line) => displayText(line).split("\n"));
    this.#setOffset(this.#offset);
  }

  scroll(delta: number): void {
    this.#setOffset(this.#offset + Math.trunc(delta));
  }

  page(delta: number): void {
    this.#setOffset(this.#offset + Math.trunc(delta) * Math.max(1, this.#height - 1));
  }

  toTop(): void {
    this.#setOffset(0);
  }

  toBottom(): void {
    this.#setOffset(Number.MAX_SAFE_INTEGER);
  }

  render(width: number): readonly string[] {
    const w = Math.max(1, Math.floor(width));
    if (this.#cache !== undefined && this.#cache.width === w) return this.#cache.lines;
    const theme = this.#theme;
    const n = this.#lines.length;
    const last = Math.min(n, this.#offset + this.#height);
    const range = n === 0 ? "no lines" : `lines ${this.#offset + 1}–${last} of ${n}`;
    const lines = [fitWidth(`${theme.bold(this.#title)}  ${theme.dim(range)}`, w)];
    for (let i = this.#offset; i < last; i++) lines.push(fitWidth(this.#lines[i]!, w));
    lines.push(fitWidth(theme.dim("↑/↓ scroll · PgUp/PgDn page · Home/End · Esc close"), w));
    this.#cache = { width: w, lines };
    return lines;
  }

  #setOffset(offset: number): void {
    const max = Math.max(0, this.#lines.length - this.#height);
    this.#offset = Math.max(0, Math.min(max, offset));
    this.#cache = undefined;
  }
}
