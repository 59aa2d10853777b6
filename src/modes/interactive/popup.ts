/**
 * The popups above the editor, driven by Editor.trigger():
 *  - `/word` at the start of the draft: the slash-command popup, built-ins
 *    first, then extension commands under an "extensions" divider, each
 *    group fuzzy-filtered by the word, with descriptions; when nothing
 *    matches, the footer names the close commands (`suggest`: "did you
 *    mean /model?" under "no matches" for `/modle`);
 *  - `@word` after whitespace: the file picker over the project's files
 *    (file-index.ts, built in the background on the first `@`; "indexing…"
 *    until then), → enters the selected directory, ← goes back to the
 *    parent of the directory entered (when the word is one: `@src/lib/`
 *    → `@src/`; otherwise ← moves the cursor).
 * Keys while open: ↑/↓ select; Tab completes; Enter completes, or submits
 * when the slash word already is a command's whole name (in any case) or nothing matches
 * (so `/exit` Enter runs it, `/nope` Enter reports it); Esc closes the popup until the trigger word
 * changes. A file or directory is inserted as a chip (`[file:src/a.ts]`)
 * that the editor expands to the path on submit. update() is called after
 * every edit; the popup never commits anything to the transcript.
 */
import { fuzzyFilter, SelectList, type Editor, type Key, type SelectItem, type Theme } from "../../tui/index.ts";
import type { FileIndex } from "./file-index.ts";

export interface CommandEntry {
  readonly name: string;
  readonly description: string;
  /** Extension name; undefined for built-ins. */
  readonly extension?: string;
}

export type PopupKeyResult = "handled" | "submit" | "pass";

const MAX_ITEMS = 50;

export class Popup {
  readonly list: SelectList;
  readonly #editor: Editor;
  readonly #commands: () => readonly CommandEntry[];
  readonly #files: () => FileIndex;
  readonly #suggest: (word: string) => string | undefined;
  /** The did-you-mean line for a slash word that matches nothing. */
  #suggestion: string | undefined;
  #kind: "/" | "@" | undefined;
  #query = "";
  /** The trigger Esc dismissed: the popup stays closed until it changes. */
  #dismissed: string | undefined;

  constructor(options: {
    readonly theme: Theme;
    readonly editor: Editor;
    readonly commands: () => readonly CommandEntry[];
    readonly files: () => FileIndex;
    /** "did you mean /x?" for a slash word nothing matches, or undefined. */
    readonly suggest?: (word: string) => string | undefined;
  }) {
    this.list = new SelectList({ theme: options.theme, maxVisible: 8 });
    this.#editor = options.editor;
    this.#commands = options.commands;
    this.#files = options.files;
    this.#suggest = options.suggest ?? (() => undefined);
  }

  get open(): boolean {
    return this.#kind !== undefined;
  }

  get kind(): "/" | "@" | undefined {
    return this.#kind;
  }

  /** A line under the list: the did-you-mean of a slash word nothing matches; while the file index builds, or when it is partial. */
  get footer(): string | undefined {
    if (this.#kind === "/") return this.#suggestion === undefined ? undefined : `  ${this.#suggestion}`;
    if (this.#kind !== "@") return undefined;
    const index = this.#files();
    if (index.state !== "ready") return "indexing files…";
    return index.partial ? `partial index (${index.size} entries): the project is larger` : undefined;
  }

  close(): void {
    this.#kind = undefined;
  }

  /**
   * The draft now holds a recalled prompt (history): no popup for it until it
   * is edited, so ↑/↓ keep walking the history past a recalled `/command`.
   */
  recalled(): void {
    const trigger = this.#editor.trigger();
    this.#dismissed = trigger === undefined ? undefined : `${trigger.char}${trigger.query}`;
    this.#kind = undefined;
  }

  /** Re-reads the trigger at the caret and refilters. */
  update(): void {
    const trigger = this.#editor.trigger();
    const key = trigger === undefined ? undefined : `${trigger.char}${trigger.query}`;
    if (trigger === undefined || key === this.#dismissed) {
      if (key !== this.#dismissed) this.#dismissed = undefined;
      this.#kind = undefined;
      return;
    }
    this.#dismissed = undefined;
    const changed = this.#kind !== trigger.char || this.#query !== trigger.query;
    this.#kind = trigger.char;
    this.#query = trigger.query;
    if (!changed && this.list.selected() !== undefined) return;
    const items = trigger.char === "/" ? this.#commandItems(trigger.query) : this.#fileItems(trigger.query);
    this.list.setItems(items);
    this.#suggestion = trigger.char === "/" && items.length === 0 ? this.#suggest(trigger.query) : undefined;
  }

  /** The file index became ready: refilter an open file popup. */
  refresh(): void {
    if (this.#kind === "@") this.list.setItems(this.#fileItems(this.#query));
  }

  handle(key: Key): PopupKeyResult {
    if (this.#kind === undefined || key.kind !== "key" || key.ctrl || key.alt) return "pass";
    switch (key.name) {
      case "up":
        this.list.move(-1);
        return "handled";
      case "down":
        this.list.move(1);
        return "handled";
      case "escape":
        this.#dismissed = `${this.#kind}${this.#query}`;
        this.#kind = undefined;
        return "handled";
      case "tab":
        if (key.shift) return "pass";
        this.#complete();
        return "handled";
      case "right":
        return this.#enterDirectory() ? "handled" : "pass";
      case "left":
        return this.#parentDirectory() ? "handled" : "pass";
      case "enter": {
        if (key.shift) return "pass";
        const selected = this.list.selected();
        // Command names match case-insensitively (extensions.md), so `/HELLOPY` Enter runs /hellopy.
        const query = this.#query.toLowerCase();
        const exact = this.#commands().some((entry) => entry.name.toLowerCase() === query);
        if (this.#kind === "/" && (selected === undefined || exact)) {
          this.#kind = undefined;
          return "submit";
        }
        this.#complete();
        return "handled";
      }
      default:
        return "pass";
    }
  }

  #complete(): void {
    const selected = this.list.selected();
    if (selected === undefined) return;
    if (this.#kind === "/") this.#editor.replaceTrigger(`/${selected.value} `);
    else {
      const dir = selected.value.endsWith("/");
      this.#editor.replaceTrigger("");
      this.#editor.insertChip(dir ? `[dir:${selected.value}]` : `[file:${selected.value}]`, selected.value);
      this.#editor.insert(" ");
    }
    this.#kind = undefined;
    this.update();
  }

  #enterDirectory(): boolean {
    const selected = this.list.selected();
    if (this.#kind !== "@" || selected === undefined || !selected.value.endsWith("/")) return false;
    this.#editor.replaceTrigger(`@${selected.value}`);
    this.update();
    return true;
  }

  #parentDirectory(): boolean {
    if (this.#kind !== "@" || !this.#query.endsWith("/")) return false;
    const parent = this.#query.slice(0, -1);
    const cut = parent.lastIndexOf("/");
    this.#editor.replaceTrigger(`@${cut < 0 ? "" : parent.slice(0, cut + 1)}`);
    this.update();
    return true;
  }

  #commandItems(query: string): SelectItem[] {
    const commands = this.#commands();
    const filter = (entries: readonly CommandEntry[]): CommandEntry[] =>
      query === "" ? [...entries] : fuzzyFilter(query, entries, (entry) => entry.name, MAX_ITEMS);
    const builtins = filter(commands.filter((entry) => entry.extension === undefined));
    const extensions = filter(commands.filter((entry) => entry.extension !== undefined).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
    return [
      ...builtins.map((entry) => ({ value: entry.name, label: `/${entry.name}`, description: entry.description })),
      ...extensions.map((entry) => ({ value: entry.name, label: `/${entry.name}`, description: `${entry.description} [${entry.extension}]`, group: "extensions" })),
    ];
  }

  #fileItems(query: string): SelectItem[] {
    const index = this.#files();
    void index.build();
    return index.matches(query).map((entry) => ({ value: entry.path, label: entry.path }));
  }
}
