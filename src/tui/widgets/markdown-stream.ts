/**
 * Assistant text (and dimmed thinking) rendered as markdown while it
 * streams. append() takes raw model deltas: they are sanitized as a stream
 * (control sequences are removed, SGR from the model too: colours come from
 * the markdown renderer; CRLF becomes LF; tabs are expanded per line), and
 * every completed source line goes to the BlockSplitter, which closes groups
 * that can no longer change. takeCommitted(width) returns the rows of the
 * groups closed since the last call, drawn at that width; render(width) is
 * the rest: groups closed but not yet taken, then the open group and the
 * unfinished line as they would look if the text ended there. finish()
 * closes everything. Concatenating every takeCommitted() plus the final
 * render() equals renderMarkdown() of the whole text at that width, however
 * the text was cut into deltas; a width change between calls only affects
 * what has not been taken yet. Per delta the work is the delta plus the
 * open group (one paragraph line, one list item, one code line, a table),
 * never the whole message.
 */
import { TerminalTextSanitizer } from "../../common/terminal-text.ts";
import { expandTabs } from "../text.ts";
import type { Theme } from "../theme.ts";
import { BlockSplitter, type Group } from "./markdown-blocks.ts";
import { type MarkdownStyle, renderGroup, renderTail } from "./markdown-render.ts";

const SGR = /\x1b\[[0-9;:]*m/g;

export interface MarkdownStreamOptions {
  readonly theme: Theme;
  /** Thinking text: drawn dimmed, without the markdown colours. */
  readonly dim?: boolean;
}

export class MarkdownStream {
  readonly #style: MarkdownStyle;
  readonly #sanitizer = new TerminalTextSanitizer();
  readonly #splitter = new BlockSplitter();
  #partial = "";
  #finished = false;
  /** Closed groups already handed out by takeCommitted. */
  #taken = 0;
  #version = 0;
  #cache: { version: number; width: number; lines: readonly string[] } | undefined;
  #groupCache = new WeakMap<Group, { width: number; rows: string[] }>();

  constructor(options: MarkdownStreamOptions) {
    const theme = options.theme;
    this.#style = { colors: theme.colors, dim: options.dim === true, dimText: theme.colors ? theme.dim : (text) => text };
  }

  get finished(): boolean {
    return this.#finished;
  }

  append(delta: string): void {
    if (this.#finished || delta === "") return;
    let text = this.#sanitizer.push(delta);
    if (text.includes("\x1b")) text = text.replace(SGR, "");
    if (text === "") return;
    this.#version++;
    const newline = text.indexOf("\n");
    if (newline === -1) {
      this.#partial += text;
      return;
    }
    const lines = (this.#partial + text).split("\n");
    this.#partial = lines.pop()!;
    for (const line of lines) this.#splitter.push(expandTabs(line));
  }

  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#sanitizer.reset();
    if (this.#partial !== "") this.#splitter.push(expandTabs(this.#partial));
    this.#partial = "";
    this.#splitter.end();
    this.#version++;
  }

  takeCommitted(width: number): string[] {
    const closed = this.#splitter.closed;
    if (this.#taken === closed.length) return [];
    const out: string[] = [];
    for (let i = this.#taken; i < closed.length; i++) for (const row of this.#group(closed[i]!, width)) out.push(row);
    this.#taken = closed.length;
    this.#version++;
    return out;
  }

  render(width: number): readonly string[] {
    const cached = this.#cache;
    if (cached !== undefined && cached.version === this.#version && cached.width === width) return cached.lines;
    const out: string[] = [];
    const closed = this.#splitter.closed;
    for (let i = this.#taken; i < closed.length; i++) for (const row of this.#group(closed[i]!, width)) out.push(row);
    if (!this.#finished) {
      const open = this.#splitter.open();
      const partial = expandTabs(this.#partial);
      const tail = open.kind === "markdown" && open.lines.length === 0 ? { ...open, separator: this.#splitter.startSeparator(partial) } : open;
      for (const row of renderTail(tail, partial, width, this.#style)) out.push(row);
    }
    this.#cache = { version: this.#version, width, lines: out };
    return out;
  }

  #group(group: Group, width: number): string[] {
    const cached = this.#groupCache.get(group);
    if (cached !== undefined && cached.width === width) return cached.rows;
    const rows = renderGroup(group, width, this.#style);
    this.#groupCache.set(group, { width, rows });
    return rows;
  }
}

/** The whole text drawn at once: what a MarkdownStream fed the same text commits and shows in total. */
export function renderMarkdown(text: string, width: number, options: MarkdownStreamOptions): string[] {
  const stream = new MarkdownStream(options);
  stream.append(text);
  stream.finish();
  return [...stream.takeCommitted(width), ...stream.render(width)];
}
