/**
 * The shapes every part of the terminal UI shares. A Component turns its
 * state into lines for a width: `render(width)` returns lines that are each
 * at most `width` columns (measured with Bun.stringWidth, SGR allowed, no
 * other control sequences), and returns the same array until its input or
 * the width changes (callers may compare by identity). The live region is a
 * LiveView: its lines plus where the terminal cursor is parked (the editor's
 * caret), or no cursor (hidden). Keys are decoded input: typed text, a
 * bracketed paste, or a named key with its modifiers.
 */

export interface Component {
  render(width: number): readonly string[];
}

export interface CursorPosition {
  /** Row within the live view's lines. */
  readonly row: number;
  /** Column (0-based, in terminal columns). */
  readonly col: number;
}

export interface LiveView {
  readonly lines: readonly string[];
  readonly cursor?: CursorPosition;
  /** The view takes the whole terminal, drawn on the alternate screen (full-screen.ts); the main screen waits as it was. */
  readonly fullScreen?: boolean;
}

/** Something that can produce the live region for a width. */
export interface LiveSource {
  renderLive(width: number, height: number): LiveView;
}

export type KeyName =
  | "enter"
  | "tab"
  | "backspace"
  | "delete"
  | "insert"
  | "escape"
  | "up"
  | "down"
  | "left"
  | "right"
  | "home"
  | "end"
  | "pageup"
  | "pagedown"
  | "space"
  | `f${number}`
  /** A printable character pressed with Ctrl and/or Alt (lower case for letters): `{ name: "c", ctrl: true }`. */
  | (string & {});

export type Key =
  /** A run of typed printable text (no modifiers beyond Shift). */
  | { readonly kind: "text"; readonly text: string }
  /** The contents of one bracketed paste, newlines normalised to "\n". */
  | { readonly kind: "paste"; readonly text: string }
  | { readonly kind: "key"; readonly name: KeyName; readonly ctrl: boolean; readonly alt: boolean; readonly shift: boolean };
