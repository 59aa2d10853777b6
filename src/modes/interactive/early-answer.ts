/**
 * A question that opens by itself at a moment the user did not choose (the
 * project-trust question at startup, a --no-yolo confirmation mid-turn) must
 * not be answered by a key that came before anyone could have read it: the
 * first letter of a prompt typed as it appeared would otherwise trust the
 * project for good, or allow a tool for the session. An answer key less than
 * EARLY_ANSWER_MS after the question opened is held, not applied: once
 * TYPEAHEAD_QUIET_MS pass without another key it is applied as if it came
 * then; any key in the meantime drops it (the user was typing), and that key
 * is swallowed too, except Esc, which goes on to the question. Keys after the
 * early window are not touched (the typeahead rule of key-clock.ts still
 * applies to them). EarlyAnswerHold is that rule for one question;
 * EarlyAnswerGuard applies it to an overlay dialog, asking its owner to
 * close it (`close(guard)`) when a held answer closed the dialog. Time comes
 * from `now()`.
 */
import { isPlainKey, type Key, type Overlay, type OverlayResult, TYPEAHEAD_QUIET_MS } from "../../tui/index.ts";

/** An answer this soon after the question opened is held for TYPEAHEAD_QUIET_MS of quiet first. */
export const EARLY_ANSWER_MS = 1_000;

export class EarlyAnswerHold {
  readonly #now: () => number;
  readonly #openedAt: number;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
    this.#openedAt = now();
  }

  /** True while an early answer waits for quiet. */
  get holding(): boolean {
    return this.#timer !== undefined;
  }

  /**
   * Offers `key` (`isAnswer`: it would answer the question). True when it is
   * consumed here: held (`apply` runs after the quiet), or swallowed because
   * it came while an answer was held. False: handle it as usual.
   */
  take(key: Key, isAnswer: boolean, apply: () => void): boolean {
    if (this.#timer !== undefined) {
      this.cancel();
      return !isPlainKey(key, "escape");
    }
    if (!isAnswer || this.#now() - this.#openedAt >= EARLY_ANSWER_MS) return false;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      apply();
    }, TYPEAHEAD_QUIET_MS);
    return true;
  }

  /** Drops a held answer (the question closed). */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

export interface EarlyAnswerOptions {
  /** The keys that answer (Enter answers too). */
  readonly answerKeys: readonly string[];
  readonly close: (overlay: Overlay) => void;
  readonly now?: () => number;
}

/** `key` answers: one of `answerKeys` typed, or Enter. */
export function isAnswerKey(key: Key, answerKeys: readonly string[]): boolean {
  if (key.kind === "text") return answerKeys.includes(key.text);
  return isPlainKey(key, "enter");
}

export class EarlyAnswerGuard implements Overlay {
  readonly #dialog: Overlay;
  readonly #options: EarlyAnswerOptions;
  readonly #hold: EarlyAnswerHold;

  constructor(dialog: Overlay, options: EarlyAnswerOptions) {
    this.#dialog = dialog;
    this.#options = options;
    this.#hold = new EarlyAnswerHold(options.now);
  }

  /** True while an early answer waits for quiet. */
  get holding(): boolean {
    return this.#hold.holding;
  }

  render(width: number, maxRows: number): readonly string[] {
    return this.#dialog.render(width, maxRows);
  }

  neededRows(width: number): number {
    return this.#dialog.neededRows?.(width) ?? 0;
  }

  handleKey(key: Key): OverlayResult {
    if (this.#hold.take(key, isAnswerKey(key, this.#options.answerKeys), () => this.#apply(key))) return "handled";
    return this.#dialog.handleKey(key);
  }

  onClose(): void {
    this.#hold.cancel();
    this.#dialog.onClose?.();
  }

  #apply(key: Key): void {
    const result = this.#dialog.handleKey(key);
    if (result === "close" || result === "close-pass") this.#options.close(this);
  }
}
