/**
 * An overlay that asks a question with a few answers (allow a tool call,
 * delete a session): a framed box with the title, the body lines (wrapped),
 * and one row of answers `[y] allow once  [a] always this tool  [n] deny`.
 * Pressing an answer's key (exact, case-sensitive: `a` and `A` differ) or
 * ←/→ (or ↑/↓, the original's keys for its confirm dialog) then Enter picks it and calls onChoose; Esc calls onChoose with the
 * `escape` answer when one is given, then closes. Other keys are swallowed
 * (a question must not leak typing into the editor). Short of rows it
 * keeps its frame, the first row of the question, then the answers. With `typeahead` (a
 * question that opens by itself), an answer key or Enter that comes less
 * than TYPEAHEAD_QUIET_MS after a typed key is swallowed too (key-clock.ts):
 * typing meant for the prompt cannot answer it. Esc always works.
 */
import { box } from "./box.ts";
import type { Overlay, OverlayResult } from "./overlay.ts";
import { wrapText } from "../text.ts";
import type { Theme } from "../theme.ts";
import type { Key } from "../types.ts";
import type { KeyClock } from "./key-clock.ts";

export interface Choice {
  readonly key: string;
  readonly label: string;
  readonly value: string;
}

export interface ChoiceDialogOptions {
  readonly theme: Theme;
  readonly title: string;
  readonly lines?: readonly string[];
  readonly choices: readonly Choice[];
  /** The value Esc answers with (none: Esc just closes). */
  readonly escape?: string;
  readonly onChoose: (value: string) => void;
  readonly onClose?: () => void;
  /** The app's key clock: answers that come in a burst of typing are ignored. */
  readonly typeahead?: KeyClock;
}

export class ChoiceDialog implements Overlay {
  readonly #options: ChoiceDialogOptions;
  #selected = 0;

  constructor(options: ChoiceDialogOptions) {
    this.#options = options;
  }

  get onClose(): (() => void) | undefined {
    return this.#options.onClose;
  }

  /** The key being handled came in a burst of typing (only with `typeahead`). */
  typedAhead(): boolean {
    return this.#options.typeahead?.typedAhead() ?? false;
  }

  handleKey(key: Key): OverlayResult {
    const { choices } = this.#options;
    if (key.kind === "text") {
      const choice = choices.find((candidate) => candidate.key === key.text);
      if (choice === undefined || this.typedAhead()) return "handled";
      this.#options.onChoose(choice.value);
      return "close";
    }
    if (key.kind !== "key" || key.ctrl || key.alt) return key.kind === "paste" ? "handled" : "pass";
    if (key.name === "escape") {
      if (this.#options.escape !== undefined) this.#options.onChoose(this.#options.escape);
      return "close";
    }
    if (key.name === "left" || key.name === "up") this.#selected = (this.#selected - 1 + choices.length) % choices.length;
    else if (key.name === "right" || key.name === "down" || key.name === "tab") this.#selected = (this.#selected + 1) % choices.length;
    else if (key.name === "enter") {
      if (this.typedAhead()) return "handled";
      const choice = choices[this.#selected];
      if (choice !== undefined) this.#options.onChoose(choice.value);
      return "close";
    }
    return "handled";
  }

  /** The whole box: what is asked matters as much as the answers. */
  neededRows(width: number): number {
    return this.render(width, Number.MAX_SAFE_INTEGER).length;
  }

  render(width: number, maxRows: number): readonly string[] {
    const { theme, title, lines = [], choices } = this.#options;
    const inner = Math.max(1, width - 4);
    const body: string[] = [];
    for (const line of lines) body.push(...wrapText(line, inner));
    const answers = choices.map((choice, index) => {
      const text = `[${choice.key}] ${choice.label}`;
      return index === this.#selected ? theme.inverse(text) : text;
    });
    const answerRows = wrapText(answers.join("  "), inner);
    const framed = box({ theme, title, body: [...body, ...answerRows], width, tone: "warning" });
    if (framed.length <= maxRows) return framed;
    // Short of room: the frame's top and bottom, the first row of what is asked (answering blind is worse than
    // missing an answer's label), then the answers, then more of the question.
    const inside = Math.max(0, maxRows - 2);
    const asked = body.length === 0 ? 0 : Math.min(body.length, Math.max(inside >= 1 ? 1 : 0, inside - answerRows.length));
    const kept = [...framed.slice(1, 1 + asked), ...framed.slice(1 + body.length, 1 + body.length + inside - asked)];
    return [framed[0]!, ...kept, framed.at(-1)!].slice(0, Math.max(1, maxRows));
  }
}
