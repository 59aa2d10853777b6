/**
 * A one-line text input (a filter box, an API key, a new session name):
 * typed text and pastes are inserted at the caret (newlines become spaces,
 * control sequences dropped), ←/→ Home/End Ctrl+A/E move, Backspace/Delete,
 * Ctrl+U/K and Ctrl+W delete. `masked` draws every character as "•" (the
 * value is never rendered). render(width) scrolls horizontally to keep the
 * caret visible; cursor(width) is the caret's column in that line (after the
 * prompt). handle(key) says whether the key was used.
 */
import { displayText, fitWidth, visibleWidth } from "../text.ts";
import type { Key } from "../types.ts";

export interface TextInputOptions {
  readonly prompt?: string;
  readonly masked?: boolean;
  readonly placeholder?: string;
}

let segmenter: Intl.Segmenter | undefined;
function graphemes(text: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return Array.from(segmenter.segment(displayText(text).replace(/\n/g, " ")), (part) => part.segment);
}

export class TextInput {
  readonly #prompt: string;
  readonly #masked: boolean;
  readonly #placeholder: string;
  #units: string[] = [];
  #caret = 0;

  constructor(options: TextInputOptions = {}) {
    this.#prompt = options.prompt ?? "";
    this.#masked = options.masked ?? false;
    this.#placeholder = options.placeholder ?? "";
  }

  get value(): string {
    return this.#units.join("");
  }

  set value(text: string) {
    this.#units = graphemes(text);
    this.#caret = this.#units.length;
  }

  handle(key: Key): boolean {
    if (key.kind === "text" || key.kind === "paste") {
      const units = graphemes(key.text);
      this.#units.splice(this.#caret, 0, ...units);
      this.#caret += units.length;
      return true;
    }
    const { name, ctrl, alt } = key;
    if (!ctrl && !alt) {
      if (name === "left") this.#caret = Math.max(0, this.#caret - 1);
      else if (name === "right") this.#caret = Math.min(this.#units.length, this.#caret + 1);
      else if (name === "home") this.#caret = 0;
      else if (name === "end") this.#caret = this.#units.length;
      else if (name === "backspace") this.#deleteRange(this.#caret - 1, this.#caret);
      else if (name === "delete") this.#deleteRange(this.#caret, this.#caret + 1);
      else if (name === "space") this.handle({ kind: "text", text: " " });
      else return false;
      return true;
    }
    if (ctrl && !alt) {
      if (name === "a") this.#caret = 0;
      else if (name === "e") this.#caret = this.#units.length;
      else if (name === "u") this.#deleteRange(0, this.#caret);
      else if (name === "k") this.#deleteRange(this.#caret, this.#units.length);
      else if (name === "w") this.#deleteWordBefore();
      else return false;
      return true;
    }
    if (alt && name === "backspace") {
      this.#deleteWordBefore();
      return true;
    }
    return false;
  }

  render(width: number): string {
    return this.#layout(width).line;
  }

  cursor(width: number): number {
    return this.#layout(width).caretCol;
  }

  #shown(): string[] {
    return this.#masked ? this.#units.map(() => "•") : this.#units;
  }

  #layout(width: number): { line: string; caretCol: number } {
    const max = Math.max(1, Math.floor(width));
    const promptWidth = visibleWidth(this.#prompt);
    const room = Math.max(1, max - promptWidth - 1);
    const shown = this.#shown();
    if (shown.length === 0 && this.#placeholder !== "") {
      return { line: fitWidth(this.#prompt + this.#placeholder, max), caretCol: Math.min(promptWidth, max - 1) };
    }
    // Scroll so the caret stays visible: start from the caret and take what fits to its left.
    let start = 0;
    let before = shown.slice(0, this.#caret).reduce((sum, unit) => sum + visibleWidth(unit), 0);
    while (before > room - 1 && start < this.#caret) {
      before -= visibleWidth(shown[start]!);
      start += 1;
    }
    let text = "";
    let used = 0;
    for (let i = start; i < shown.length; i++) {
      const w = visibleWidth(shown[i]!);
      if (used + w > room) break;
      text += shown[i];
      used += w;
    }
    return { line: fitWidth(this.#prompt + text, max), caretCol: Math.min(max - 1, promptWidth + before) };
  }

  #deleteRange(from: number, to: number): void {
    const start = Math.max(0, from);
    const end = Math.min(this.#units.length, to);
    if (end <= start) return;
    this.#units.splice(start, end - start);
    this.#caret = start;
  }

  #deleteWordBefore(): void {
    let at = this.#caret;
    while (at > 0 && this.#units[at - 1] === " ") at -= 1;
    while (at > 0 && this.#units[at - 1] !== " ") at -= 1;
    this.#deleteRange(at, this.#caret);
  }
}
