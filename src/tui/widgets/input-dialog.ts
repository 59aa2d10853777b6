/**
 * An overlay asking for one line of text (an API key, a session name, a
 * path): a framed box with the title, optional explanation lines, the input
 * (TextInput; `masked` for secrets) and a hint row. Enter calls onSubmit
 * with the value: it returns "close" (default) or "handled" (stay open,
 * e.g. after setError for a value it refuses). Esc closes.
 */
import { box } from "./box.ts";
import type { Overlay, OverlayResult } from "./overlay.ts";
import { TextInput } from "./text-input.ts";
import { wrapText } from "../text.ts";
import type { Theme } from "../theme.ts";
import type { CursorPosition, Key } from "../types.ts";

export interface InputDialogOptions {
  readonly theme: Theme;
  readonly title: string;
  readonly lines?: readonly string[];
  readonly prompt?: string;
  readonly masked?: boolean;
  readonly initial?: string;
  readonly placeholder?: string;
  readonly hint?: string;
  readonly onSubmit: (value: string) => OverlayResult | void;
  readonly onClose?: () => void;
}

export class InputDialog implements Overlay {
  readonly #options: InputDialogOptions;
  readonly #input: TextInput;
  #error: string | undefined;
  #inputRow = 0;

  constructor(options: InputDialogOptions) {
    this.#options = options;
    this.#input = new TextInput({ prompt: options.prompt ?? "› ", masked: options.masked, placeholder: options.placeholder });
    if (options.initial !== undefined) this.#input.value = options.initial;
  }

  get onClose(): (() => void) | undefined {
    return this.#options.onClose;
  }

  get value(): string {
    return this.#input.value;
  }

  /** Shows a problem with the last value under the input (cleared by the next key). */
  setError(message: string | undefined): void {
    this.#error = message;
  }

  handleKey(key: Key): OverlayResult {
    if (key.kind === "key" && !key.ctrl && !key.alt && key.name === "escape") return "close";
    if (key.kind === "key" && !key.ctrl && !key.alt && key.name === "enter") return this.#options.onSubmit(this.#input.value) ?? "close";
    if (this.#input.handle(key)) {
      this.#error = undefined;
      return "handled";
    }
    return "pass";
  }

  render(width: number, maxRows: number): readonly string[] {
    const { theme, title, lines = [], hint = "Enter confirms · Esc cancels" } = this.#options;
    const inner = Math.max(1, width - 4);
    const body: string[] = [];
    for (const line of lines) body.push(...wrapText(line, inner));
    this.#inputRow = body.length + 1;
    body.push(this.#input.render(inner));
    if (this.#error !== undefined) body.push(...wrapText(theme.error(this.#error), inner));
    body.push(theme.muted(hint));
    const framed = box({ theme, title, body, width, tone: "running" });
    // Keep the input row visible when the room is short: drop explanation rows from the top.
    if (framed.length <= maxRows) return framed;
    const drop = Math.min(framed.length - maxRows, Math.max(0, this.#inputRow - 1));
    this.#inputRow -= drop;
    return [framed[0]!, ...framed.slice(1 + drop)].slice(0, Math.max(1, maxRows));
  }

  cursor(width: number): CursorPosition {
    return { row: this.#inputRow, col: 2 + this.#input.cursor(Math.max(1, width - 4)) };
  }
}
