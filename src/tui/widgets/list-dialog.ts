/**
 * A picker overlay (sessions, models, skills, themes, login providers): a
 * framed box with the title, an optional filter line (typing filters the
 * items fuzzily over label and description, best first), the list
 * (SelectList: ↑/↓ wrap, PgUp/PgDn a page, Home/End), and a hint row.
 * Enter calls onChoose with the selected item; Esc closes. With the filter
 * off, single printable keys can be bound to actions on the selected item
 * (`r` rename, `d` delete); an action (and onChoose) returns what the
 * dialog does next: "close" (default) or "handled" (stay open; e.g. after
 * setItems). Keys it does not use are "pass". The box fits maxRows: the
 * list shows fewer rows when the room is short.
 */
import { box } from "./box.ts";
import { fuzzyFilter } from "./fuzzy.ts";
import type { Overlay, OverlayResult } from "./overlay.ts";
import { type SelectItem, SelectList } from "./select-list.ts";
import { TextInput } from "./text-input.ts";
import type { Theme } from "../theme.ts";
import type { CursorPosition, Key } from "../types.ts";

export type ListAction = (item: SelectItem | undefined) => OverlayResult | void;

export interface ListDialogOptions {
  readonly theme: Theme;
  readonly title: string;
  readonly items: readonly SelectItem[];
  /** Typing filters the list (default true). */
  readonly filter?: boolean;
  readonly hint?: string;
  readonly maxVisible?: number;
  /** Where the selection starts (an item's value). */
  readonly initial?: string;
  readonly onChoose: ListAction;
  /** Single printable keys bound to actions; only used with the filter off. */
  readonly keys?: Readonly<Record<string, ListAction>>;
  readonly onClose?: () => void;
}

const FILTER_LIMIT = 500;

export class ListDialog implements Overlay {
  readonly #options: ListDialogOptions;
  readonly #filter: TextInput | undefined;
  #all: readonly SelectItem[];
  #maxVisible: number;
  #list: SelectList;
  #listFor = -1; // the maxVisible the list was built for

  constructor(options: ListDialogOptions) {
    this.#options = options;
    this.#all = options.items;
    this.#maxVisible = Math.max(1, options.maxVisible ?? 10);
    this.#filter = options.filter === false ? undefined : new TextInput({ prompt: "filter: ", placeholder: "type to filter" });
    this.#list = this.#buildList(this.#maxVisible);
    if (options.initial !== undefined) this.#select(options.initial);
  }

  get onClose(): (() => void) | undefined {
    return this.#options.onClose;
  }

  /** The selected item (after filtering). */
  selected(): SelectItem | undefined {
    return this.#list.selected();
  }

  /** Replaces the items, keeping the selection on the same value when it is still there. */
  setItems(items: readonly SelectItem[]): void {
    const keep = this.#list.selected()?.value;
    this.#all = items;
    this.#refilter();
    if (keep !== undefined) this.#select(keep);
  }

  handleKey(key: Key): OverlayResult {
    if (key.kind === "key" && !key.ctrl && !key.alt) {
      switch (key.name) {
        case "escape":
          return "close";
        case "enter":
          return this.#options.onChoose(this.#list.selected()) ?? "close";
        case "up":
          this.#list.move(-1);
          return "handled";
        case "down":
          this.#list.move(1);
          return "handled";
        case "pageup":
          this.#list.moveClamped(-this.#maxVisible);
          return "handled";
        case "pagedown":
          this.#list.moveClamped(this.#maxVisible);
          return "handled";
        case "home":
          this.#list.toEdge("first");
          return "handled";
        case "end":
          this.#list.toEdge("last");
          return "handled";
      }
    }
    if (this.#filter === undefined) {
      if (key.kind === "text" && key.text.length > 0) {
        const action = this.#options.keys?.[key.text];
        if (action !== undefined) return action(this.#list.selected()) ?? "close";
        return "handled";
      }
      return "pass";
    }
    if (this.#filter.handle(key)) {
      this.#refilter();
      return "handled";
    }
    return "pass";
  }

  render(width: number, maxRows: number): readonly string[] {
    const { theme, title, hint } = this.#options;
    const chrome = 2 + (this.#filter !== undefined ? 1 : 0) + (hint !== undefined ? 1 : 0);
    this.#fit(Math.max(1, Math.min(this.#maxVisible, maxRows - chrome - 1)));
    const inner = Math.max(1, width - 4);
    const body: string[] = [];
    if (this.#filter !== undefined) body.push(this.#filter.render(inner));
    body.push(...this.#list.render(inner));
    if (hint !== undefined) body.push(theme.muted(hint));
    const count = this.#list.items.length === this.#all.length ? `${this.#all.length}` : `${this.#list.items.length} of ${this.#all.length}`;
    return box({ theme, title, titleRight: theme.muted(count), body, width, tone: "running" }).slice(0, Math.max(1, maxRows));
  }

  cursor(width: number): CursorPosition | undefined {
    if (this.#filter === undefined) return undefined;
    return { row: 1, col: 2 + this.#filter.cursor(Math.max(1, width - 4)) };
  }

  #fit(rows: number): void {
    if (rows === this.#listFor) return;
    const keep = this.#list.selected()?.value;
    this.#list = this.#buildList(rows);
    if (keep !== undefined) this.#select(keep);
  }

  #buildList(rows: number): SelectList {
    const list = new SelectList({ theme: this.#options.theme, maxVisible: rows });
    list.setItems(this.#filtered());
    this.#listFor = rows;
    return list;
  }

  #filtered(): readonly SelectItem[] {
    const query = this.#filter?.value.trim() ?? "";
    if (query === "") return this.#all;
    return fuzzyFilter(query, this.#all, (item) => `${item.label} ${item.description ?? ""}`, FILTER_LIMIT);
  }

  #refilter(): void {
    this.#list.setItems(this.#filtered());
  }

  #select(value: string): void {
    const index = this.#list.items.findIndex((item) => item.value === value);
    if (index > 0) this.#list.move(index);
  }
}
