/**
 * When keys arrive, for questions that open by themselves (a --no-yolo tool
 * confirmation, the project-trust question): keystrokes typed for the
 * prompt must not answer them. The app calls keyArrived(key) once per key
 * before it routes the key; a ChoiceDialog given the clock (its `typeahead`
 * option) ignores an answer when the key before it was typing (printable
 * text, Backspace or Delete) that came less than TYPEAHEAD_QUIET_MS
 * earlier (typedAhead()): someone typing a prompt when the question pops up
 * answers nothing until they pause. Keys of one read count as arriving at
 * once. An answer after any pause, or right after Enter, a paste or
 * another named key, counts.
 */
import type { Key } from "../types.ts";

/** An answer within this many ms of typing (the key before it) is taken as more typing. */
export const TYPEAHEAD_QUIET_MS = 400;

function isTyping(key: Key): boolean {
  if (key.kind === "text") return true;
  return key.kind === "key" && !key.ctrl && !key.alt && (key.name === "backspace" || key.name === "delete" || key.name === "space");
}

export class KeyClock {
  readonly #now: () => number;
  /** When the key before the current one arrived, if it was typing. */
  #typingAt = Number.NEGATIVE_INFINITY;
  #current: { readonly at: number; readonly typing: boolean } = { at: Number.NEGATIVE_INFINITY, typing: false };

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** A key arrived (call before it is handled). */
  keyArrived(key: Key): void {
    this.#typingAt = this.#current.typing ? this.#current.at : Number.NEGATIVE_INFINITY;
    this.#current = { at: this.#now(), typing: isTyping(key) };
  }

  /** True when the key being handled came less than `quietMs` after a typed key. */
  typedAhead(quietMs = TYPEAHEAD_QUIET_MS): boolean {
    return this.#current.at - this.#typingAt < quietMs;
  }
}
