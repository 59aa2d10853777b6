/**
 * A list to pick from (slash commands, @ files, pickers): up to maxVisible
 * rows, the selected one marked "›" in the theme's selection colours (inverse by default); each row is the label and
 * the dim description, cut to the width. Where the group changes between
 * two items (e.g. built-ins, then "extensions") a divider row with the group
 * name is drawn; dividers are not selectable and do not count against
 * maxVisible. move(delta) wraps around (↑/↓), moveClamped(delta) stops at
 * the ends (PgUp/PgDn), toEdge goes to the first or last (Home/End); each
 * keeps the selection visible.
 * "no matches" when there are no items. Labels and descriptions are
 * sanitized. render(width) is cached until items, selection or width change.
 */
import { displayText, fitWidth, visibleWidth } from "../text.ts";
import type { Theme } from "../theme.ts";
import type { Component } from "../types.ts";

export interface SelectItem {
  readonly value: string;
  readonly label: string;
  readonly description?: string;
  readonly group?: string;
}

export interface SelectListOptions {
  readonly theme: Theme;
  readonly maxVisible?: number;
}

const oneLine = (text: string): string => displayText(text).replace(/\n/g, " ");

export class SelectList implements Component {
  readonly #theme: Theme;
  readonly #maxVisible: number;
  #items: readonly SelectItem[] = [];
  #selected = 0;
  #top = 0;
  #cache: { width: number; lines: readonly string[] } | undefined;

  constructor(options: SelectListOptions) {
    this.#theme = options.theme;
    this.#maxVisible = Math.max(1, options.maxVisible ?? 8);
  }

  get items(): readonly SelectItem[] {
    return this.#items;
  }

  /** Index of the selected item (0 when empty). */
  get selectedIndex(): number {
    return this.#selected;
  }

  setItems(items: readonly SelectItem[]): void {
    this.#items = items;
    this.#selected = 0;
    this.#top = 0;
    this.#cache = undefined;
  }

  move(delta: number): void {
    const n = this.#items.length;
    if (n === 0 || delta === 0) return;
    this.#select((((this.#selected + Math.trunc(delta)) % n) + n) % n);
  }

  /** A page (PgUp/PgDn) or more: stops at the first / last item instead of wrapping (a page past the end lands on it). */
  moveClamped(delta: number): void {
    const n = this.#items.length;
    if (n === 0 || delta === 0) return;
    this.#select(Math.min(n - 1, Math.max(0, this.#selected + Math.trunc(delta))));
  }

  /** Home / End. */
  toEdge(edge: "first" | "last"): void {
    if (this.#items.length === 0) return;
    this.#select(edge === "first" ? 0 : this.#items.length - 1);
  }

  #select(index: number): void {
    this.#selected = index;
    if (this.#selected < this.#top) this.#top = this.#selected;
    if (this.#selected >= this.#top + this.#maxVisible) this.#top = this.#selected - this.#maxVisible + 1;
    this.#cache = undefined;
  }

  selected(): SelectItem | undefined {
    return this.#items[this.#selected];
  }

  render(width: number): readonly string[] {
    const w = Math.max(1, Math.floor(width));
    if (this.#cache !== undefined && this.#cache.width === w) return this.#cache.lines;
    const theme = this.#theme;
    const lines: string[] = [];
    if (this.#items.length === 0) lines.push(fitWidth(theme.muted("  no matches"), w));
    const end = Math.min(this.#items.length, this.#top + this.#maxVisible);
    for (let i = this.#top; i < end; i++) {
      const item = this.#items[i]!;
      const previous = i === 0 ? undefined : this.#items[i - 1];
      if (item.group !== undefined && item.group !== previous?.group && (i > 0 || this.#hasOtherGroups())) {
        const name = ` ${oneLine(item.group)} `;
        const fill = Math.max(0, w - visibleWidth(name) - 2);
        lines.push(fitWidth(theme.dim(`──${name}${"─".repeat(fill)}`), w));
      }
      const chosen = i === this.#selected;
      const label = oneLine(item.label);
      const description = item.description === undefined ? "" : oneLine(item.description);
      const marker = chosen ? "› " : "  ";
      const gap = description === "" ? "" : "  ";
      const room = w - 2;
      const labelText = fitWidth(label, Math.max(1, room));
      const descriptionRoom = room - visibleWidth(labelText) - gap.length;
      const descriptionText = descriptionRoom >= 4 && description !== "" ? gap + theme.dim(fitWidth(description, descriptionRoom)) : "";
      const body = chosen ? theme.selection(labelText) : labelText;
      lines.push(fitWidth((chosen ? theme.accent(marker) : marker) + body + descriptionText, w));
    }
    this.#cache = { width: w, lines };
    return lines;
  }

  #hasOtherGroups(): boolean {
    const first = this.#items[0]?.group;
    return this.#items.some((item) => item.group !== first);
  }
}
