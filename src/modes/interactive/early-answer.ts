/**
 * A question that opens by itself at a moment the user did not choose (the
 * project-trust question at startup) must not be answered by a key that came
 * before anyone could have read it: the first letter of a prompt typed as the
 * screen came up would otherwise trust the project for good. EarlyAnswerGuard
 * wraps such a dialog. An answer key (one of `answerKeys`, or Enter) less
 * than EARLY_ANSWER_MS after the question opened is held, not applied: once
 * TYPEAHEAD_QUIET_MS pass without another key it is handed to the dialog as
 * if it came then; any key in the meantime drops it (the user was typing),
 * and that key is swallowed too, except Esc, which goes to the dialog. Keys
 * after the early window go straight to the dialog (whose own typeahead rule
 * still applies). When a held answer closes the dialog, `close(guard)` asks
 * the owner to remove the overlay. Time comes from `now()`.
 */
import { isPlainKey, type Key, type Overlay, type OverlayResult, TYPEAHEAD_QUIET_MS } from "../../tui/index.ts";

/** An answer this soon after the question opened is held for TYPEAHEAD_QUIET_MS of quiet first. */
export const EARLY_ANSWER_MS = 1_000;

export interface EarlyAnswerOptions {
  /** The keys that answer (Enter answers too). */
  readonly answerKeys: readonly string[];
  readonly close: (overlay: Overlay) => void;
  readonly now?: () => number;
}

export class EarlyAnswerGuard implements Overlay {
  readonly #dialog: Overlay;
  readonly #options: EarlyAnswerOptions;
  readonly #now: () => number;
  readonly #openedAt: number;
  #held: { readonly key: Key; readonly timer: ReturnType<typeof setTimeout> } | undefined;

  constructor(dialog: Overlay, options: EarlyAnswerOptions) {
    this.#dialog = dialog;
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#openedAt = this.#now();
  }

  /** True while an early answer waits for quiet. */
  get holding(): boolean {
    return this.#held !== undefined;
  }

  render(width: number, maxRows: number): readonly string[] {
    return this.#dialog.render(width, maxRows);
  }

  neededRows(width: number): number {
    return this.#dialog.neededRows?.(width) ?? 0;
  }

  handleKey(key: Key): OverlayResult {
    if (this.#held !== undefined) {
      clearTimeout(this.#held.timer);
      this.#held = undefined;
      return isPlainKey(key, "escape") ? this.#dialog.handleKey(key) : "handled";
    }
    if (this.#now() - this.#openedAt < EARLY_ANSWER_MS && this.#isAnswer(key)) {
      const timer = setTimeout(() => this.#applyHeld(), TYPEAHEAD_QUIET_MS);
      this.#held = { key, timer };
      return "handled";
    }
    return this.#dialog.handleKey(key);
  }

  onClose(): void {
    if (this.#held !== undefined) clearTimeout(this.#held.timer);
    this.#held = undefined;
    this.#dialog.onClose?.();
  }

  #applyHeld(): void {
    const held = this.#held;
    if (held === undefined) return;
    this.#held = undefined;
    const result = this.#dialog.handleKey(held.key);
    if (result === "close" || result === "close-pass") this.#options.close(this);
  }

  #isAnswer(key: Key): boolean {
    if (key.kind === "text") return this.#options.answerKeys.includes(key.text);
    return isPlainKey(key, "enter");
  }
}
