/**
 * The prompt editor: multi-line text of units (graphemes, "\n", chips) with
 * a caret, soft-wrapped at word boundaries behind a prompt. handle(key)
 * applies one key and says what happened: "submit" (Enter; the text with
 * chips expanded; the editor is cleared), "changed", "moved", or "ignored"
 * (keys the app owns: Esc, Tab, Ctrl+C, Ctrl+D on an empty editor, …).
 * Keys: Enter submits, Alt+Enter / Shift+Enter / "\" before the caret then
 * Enter insert a newline; ← → (one unit; a chip is one unit), Alt/Ctrl+← →
 * and Alt+B / Alt+F by word, Home/End and Ctrl+A/E to the line's start/end,
 * Backspace / Delete / Ctrl+D, Ctrl+U / Ctrl+K to the line's start/end,
 * Ctrl+W and Alt+Backspace the word before the caret; ↑/↓ move between rows
 * (of the last width drawn) and walk the history on the first/last row;
 * ←/→ on an empty editor walk the history too. A paste of more than
 * pasteCollapseLines lines (or pasteCollapseChars characters) becomes a chip
 * "[pasted text #N +L lines]" ("[pasted text #N C chars]"), numbered from 1
 * in each draft (a clear or a submit starts again at 1, as the original)
 * and expanded on submit. render(width) shows at most maxRows rows,
 * scrolled to keep the caret visible; cursor(width) is the caret within
 * those rows. Every row is at most `width` columns. Pure: no I/O.
 */
import { fitWidth } from "../text.ts";
import type { Theme } from "../theme.ts";
import type { Component, CursorPosition, Key } from "../types.ts";
import { caretRow, columnOf, indexAtColumn, isSpace, layoutRows, NEWLINE, type Row, type Unit, unitsOf } from "./editor-layout.ts";

export type EditorAction = { readonly kind: "submit"; readonly text: string } | { readonly kind: "changed" } | { readonly kind: "moved" } | { readonly kind: "ignored" };

export interface EditorOptions {
  readonly theme: Theme;
  readonly prompt?: string;
  readonly maxRows?: number;
  readonly pasteCollapseLines?: number;
  readonly pasteCollapseChars?: number;
}

const CHANGED: EditorAction = { kind: "changed" };
const MOVED: EditorAction = { kind: "moved" };
const IGNORED: EditorAction = { kind: "ignored" };

interface Layout {
  readonly width: number;
  readonly version: number;
  readonly lines: readonly string[];
  readonly cursor: CursorPosition;
}

export class Editor implements Component {
  readonly #theme: Theme;
  readonly #prompt: string;
  readonly #promptWidth: number;
  readonly #maxRows: number;
  readonly #pasteLines: number;
  readonly #pasteChars: number;
  #units: Unit[] = [];
  #caret = 0;
  #version = 0;
  #layout: Layout | undefined;
  /** First row shown when the text has more rows than maxRows. */
  #top = 0;
  #lastWidth = 80;
  /** Column ↑/↓ aim for while moving vertically. */
  #goal: number | undefined;
  #history: readonly string[] = [];
  #historyIndex = 0;
  #draft: Unit[] = [];
  #pastes = 0;

  constructor(options: EditorOptions) {
    this.#theme = options.theme;
    this.#prompt = options.prompt ?? "› ";
    this.#promptWidth = Bun.stringWidth(this.#prompt);
    this.#maxRows = Math.max(1, options.maxRows ?? 10);
    this.#pasteLines = options.pasteCollapseLines ?? 5;
    this.#pasteChars = options.pasteCollapseChars ?? 1000;
  }

  /** The text as displayed (chips as their labels). */
  get text(): string {
    return this.#units.map((unit) => unit.text).join("");
  }

  /** The text with every chip replaced by what it stands for. */
  get expandedText(): string {
    return this.#units.map((unit) => unit.expansion ?? unit.text).join("");
  }

  get empty(): boolean {
    return this.#units.length === 0;
  }

  setText(text: string): void {
    this.#units = unitsOf(text);
    this.#caret = this.#units.length;
    this.#changed();
  }

  insert(text: string): void {
    this.#insertUnits(unitsOf(text));
  }

  clear(): void {
    this.#units = [];
    this.#caret = 0;
    this.#pastes = 0;
    this.#historyIndex = this.#history.length;
    this.#changed();
  }

  setHistory(entries: readonly string[]): void {
    this.#history = entries;
    this.#historyIndex = entries.length;
  }

  insertChip(label: string, expansion: string): void {
    const text = unitsOf(label).map((unit) => unit.text).join("").replace(/\n/g, " ");
    this.#insertUnits([{ text, width: Bun.stringWidth(text), expansion }]);
  }

  /** The `/word` at the start of the text, or the `@word` after the start or whitespace, that the caret is in (at its end or inside it). */
  trigger(): { readonly char: "/" | "@"; readonly query: string } | undefined {
    const start = this.#triggerStart();
    if (start === undefined) return undefined;
    const char = this.#units[start]!.text as "/" | "@";
    const query = this.#units.slice(start + 1, this.#caret).map((unit) => unit.text).join("");
    return { char, query };
  }

  /** Replaces the trigger word (from its `/` or `@` to the end of the word) with `replacement`; the caret goes after it. */
  replaceTrigger(replacement: string): void {
    const start = this.#triggerStart();
    if (start === undefined) return;
    let end = this.#caret;
    while (end < this.#units.length && this.#isWordUnit(this.#units[end])) end++;
    const added = unitsOf(replacement);
    this.#units.splice(start, end - start, ...added);
    this.#caret = start + added.length;
    this.#changed();
  }

  handle(key: Key): EditorAction {
    if (key.kind === "text") {
      this.insert(key.text);
      return CHANGED;
    }
    if (key.kind === "paste") return this.#paste(key.text);
    const { name, ctrl, alt, shift } = key;
    if (name !== "up" && name !== "down") this.#goal = undefined;
    switch (name) {
      case "enter":
        if (alt || shift) return this.#insertUnits([NEWLINE]);
        if (!ctrl && this.#units[this.#caret - 1]?.text === "\\" && this.#units[this.#caret - 1]?.expansion === undefined) {
          this.#units[this.#caret - 1] = NEWLINE;
          return this.#changed();
        }
        return this.#submit();
      case "left":
      case "right": {
        const direction = name === "left" ? -1 : 1;
        if (this.empty && !ctrl && !alt) return this.#walkHistory(direction);
        if (ctrl || alt) return this.#moveTo(direction < 0 ? this.#wordStart() : this.#wordEnd());
        return this.#moveTo(this.#caret + direction);
      }
      case "home":
        return this.#moveTo(this.#lineStart());
      case "end":
        return this.#moveTo(this.#lineEnd());
      case "up":
      case "down":
        return this.#vertical(name === "up" ? -1 : 1);
      case "backspace":
        if (alt || ctrl) return this.#deleteRange(this.#wordStart(), this.#caret);
        return this.#deleteRange(this.#caret - 1, this.#caret);
      case "delete":
        return this.#deleteRange(this.#caret, this.#caret + 1);
    }
    if (ctrl && !alt) {
      switch (name) {
        case "a":
          return this.#moveTo(this.#lineStart());
        case "e":
          return this.#moveTo(this.#lineEnd());
        case "d":
          return this.empty ? IGNORED : this.#deleteRange(this.#caret, this.#caret + 1);
        case "u": {
          const start = this.#lineStart();
          return this.#deleteRange(start === this.#caret ? start - 1 : start, this.#caret);
        }
        case "k": {
          const end = this.#lineEnd();
          return this.#deleteRange(this.#caret, end === this.#caret ? end + 1 : end);
        }
        case "w":
          return this.#deleteRange(this.#wordStart(), this.#caret);
      }
    }
    if (alt && !ctrl) {
      if (name === "b") return this.#moveTo(this.#wordStart());
      if (name === "f") return this.#moveTo(this.#wordEnd());
      if (name === "d") return this.#deleteRange(this.#caret, this.#wordEnd());
    }
    return IGNORED;
  }

  render(width: number): readonly string[] {
    return this.#layoutFor(width).lines;
  }

  cursor(width: number): CursorPosition {
    return this.#layoutFor(width).cursor;
  }

  #layoutFor(width: number): Layout {
    const w = Math.max(1, Math.floor(width));
    const cached = this.#layout;
    if (cached !== undefined && cached.width === w && cached.version === this.#version) return cached;
    this.#lastWidth = w;
    const rows = this.#rows(w);
    const caretAt = caretRow(rows, this.#caret);
    const visible = Math.min(this.#maxRows, rows.length);
    this.#top = Math.min(Math.max(this.#top, caretAt - visible + 1, 0), caretAt, rows.length - visible);
    const lines: string[] = [];
    const indent = " ".repeat(this.#promptWidth);
    for (let r = this.#top; r < this.#top + visible; r++) {
      const row = rows[r]!;
      let text = "";
      for (let i = row.start; i < row.end; i++) {
        const unit = this.#units[i]!;
        text += unit.expansion === undefined ? unit.text : this.#theme.accent(unit.text);
      }
      const lead = r === 0 ? this.#theme.accent(this.#prompt) : indent;
      lines.push(fitWidth(lead + text, w));
    }
    const col = Math.min(w - 1, this.#promptWidth + columnOf(this.#units, rows[caretAt]!, this.#caret));
    const layout: Layout = { width: w, version: this.#version, lines, cursor: { row: caretAt - this.#top, col: Math.max(0, col) } };
    this.#layout = layout;
    return layout;
  }

  #rows(width: number): Row[] {
    // One column is kept spare for the caret at the end of a full row.
    return layoutRows(this.#units, width - this.#promptWidth - 1);
  }

  #changed(): EditorAction {
    this.#version++;
    return CHANGED;
  }

  #moveTo(index: number): EditorAction {
    const target = Math.max(0, Math.min(this.#units.length, index));
    if (target === this.#caret) return MOVED;
    this.#caret = target;
    this.#version++;
    return MOVED;
  }

  #insertUnits(units: readonly Unit[]): EditorAction {
    if (units.length === 0) return CHANGED;
    this.#units.splice(this.#caret, 0, ...units);
    this.#caret += units.length;
    return this.#changed();
  }

  #deleteRange(from: number, to: number): EditorAction {
    const start = Math.max(0, from);
    const end = Math.min(this.#units.length, to);
    if (end <= start) return CHANGED;
    this.#units.splice(start, end - start);
    this.#caret = start;
    return this.#changed();
  }

  #paste(text: string): EditorAction {
    const units = unitsOf(text);
    // Lines as a text editor counts them: a final newline ends the last line, it does not start another.
    const lines = units.filter((unit) => unit === NEWLINE).length + (units.at(-1) === NEWLINE ? 0 : 1);
    if (lines <= this.#pasteLines && units.length <= this.#pasteChars) return this.#insertUnits(units);
    this.#pastes++;
    const label = lines > this.#pasteLines ? `[pasted text #${this.#pastes} +${lines} lines]` : `[pasted text #${this.#pastes} ${units.length} chars]`;
    return this.#insertUnits([{ text: label, width: Bun.stringWidth(label), expansion: units.map((unit) => unit.text).join("") }]);
  }

  #submit(): EditorAction {
    const text = this.expandedText;
    this.#units = [];
    this.#caret = 0;
    this.#top = 0;
    this.#pastes = 0;
    this.#historyIndex = this.#history.length;
    this.#draft = [];
    this.#version++;
    return { kind: "submit", text };
  }

  #vertical(direction: -1 | 1): EditorAction {
    const rows = this.#rows(this.#lastWidth);
    const r = caretRow(rows, this.#caret);
    const target = r + direction;
    if (target < 0 || target >= rows.length) return this.#walkHistory(direction);
    this.#goal ??= columnOf(this.#units, rows[r]!, this.#caret);
    this.#caret = indexAtColumn(this.#units, rows[target]!, this.#goal);
    this.#version++;
    return MOVED;
  }

  #walkHistory(direction: -1 | 1): EditorAction {
    const target = this.#historyIndex + direction;
    if (target < 0 || target > this.#history.length) return MOVED;
    if (this.#historyIndex === this.#history.length) this.#draft = this.#units;
    this.#historyIndex = target;
    this.#units = target === this.#history.length ? this.#draft : unitsOf(this.#history[target]!);
    this.#caret = this.#units.length;
    this.#goal = undefined;
    return this.#changed();
  }

  #triggerStart(): number | undefined {
    let i = this.#caret;
    while (i > 0 && this.#isWordUnit(this.#units[i - 1]) && this.#units[i - 1]!.text !== "@") i--;
    const at = i - 1;
    if (this.#units[at]?.text === "@" && this.#units[at]!.expansion === undefined && (at === 0 || isSpace(this.#units[at - 1]))) return at;
    const first = this.#units[0];
    if (this.#caret >= 1 && first?.text === "/" && first.expansion === undefined && this.#onlyWordUnits(1, this.#caret)) return 0;
    return undefined;
  }

  #onlyWordUnits(from: number, to: number): boolean {
    for (let i = from; i < to; i++) if (!this.#isWordUnit(this.#units[i])) return false;
    return true;
  }

  #isWordUnit(unit: Unit | undefined): boolean {
    return unit !== undefined && unit !== NEWLINE && unit.expansion === undefined && !isSpace(unit);
  }

  #lineStart(): number {
    let i = this.#caret;
    while (i > 0 && this.#units[i - 1] !== NEWLINE) i--;
    return i;
  }

  #lineEnd(): number {
    let i = this.#caret;
    while (i < this.#units.length && this.#units[i] !== NEWLINE) i++;
    return i;
  }

  #wordStart(): number {
    let i = this.#caret;
    while (i > 0 && (isSpace(this.#units[i - 1]) || this.#units[i - 1] === NEWLINE)) i--;
    while (i > 0 && !isSpace(this.#units[i - 1]) && this.#units[i - 1] !== NEWLINE) i--;
    return i;
  }

  #wordEnd(): number {
    let i = this.#caret;
    while (i < this.#units.length && (isSpace(this.#units[i]) || this.#units[i] === NEWLINE)) i++;
    while (i < this.#units.length && !isSpace(this.#units[i]) && this.#units[i] !== NEWLINE) i++;
    return i;
  }
}
