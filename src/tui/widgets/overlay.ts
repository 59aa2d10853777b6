/**
 * An overlay: a dialog drawn in the live region above the editor that owns
 * the keyboard while it is on top (pickers, inputs, viewers, confirmations).
 * render(width, maxRows) returns at most maxRows lines, each at most width
 * columns. handleKey answers "handled" (keep it open), "close" (the owner
 * removes it), or "pass" (not for this overlay: the owner's own keys, e.g.
 * Ctrl+C, apply). cursor() places the caret for overlays with a text input
 * (a row within the last render), undefined hides it. onClose runs once
 * when the owner removes the overlay, whatever the reason (Esc, a choice,
 * /clear, exit), so a caller waiting on a dialog always hears back.
 * neededRows(width), when given, is how many rows the overlay needs to be
 * understood (a question: all of it); the chat screen gives it that many
 * before the rows under it (the editor, the status bar) on a short terminal.
 */
import type { CursorPosition, Key } from "../types.ts";

/** "close-pass": close, and let the key go on to what is under the overlay (typing into a help box types into the editor). */
export type OverlayResult = "handled" | "close" | "pass" | "close-pass";

export interface Overlay {
  /** A pager (help, full output): drawn on the whole terminal (the alternate screen) instead of above the editor. */
  readonly fullScreen?: boolean;
  render(width: number, maxRows: number): readonly string[];
  handleKey(key: Key): OverlayResult;
  cursor?(width: number, maxRows: number): CursorPosition | undefined;
  /** Rows it needs to be understood at this width (a question: its whole box); rows under it give way first. */
  neededRows?(width: number): number;
  onClose?(): void;
}

export function isPlainKey(key: Key, name: string): boolean {
  return key.kind === "key" && key.name === name && !key.ctrl && !key.alt;
}
