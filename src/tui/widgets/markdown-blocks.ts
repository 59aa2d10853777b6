/**
 * Splits markdown, one complete source line at a time, into groups: the
 * smallest pieces that render on their own and can no longer change once
 * closed. A group closes as soon as the lines after it cannot alter it:
 * a heading, a rule, a fence line or one line of code at once; a paragraph
 * line once the next line is known not to be a setext underline or a table
 * delimiter row and its inline markers (`, **, ~~, [ ]) are balanced; a list
 * item when the next item (or the end of the list) starts; a quote line like
 * a paragraph line while the quote holds plain text; a table or an indented
 * code block when it ends. The decisions depend only on the complete lines
 * seen so far, so any way of cutting the same text into deltas yields the
 * same groups: that is what lets MarkdownStream commit them while streaming.
 * Each group says whether a blank row separates it from what came before
 * (the first group of every block except the first block; a list never, as
 * Bun.markdown.ansi draws it).
 */

export type GroupKind = "markdown" | "code-open" | "code-line" | "code-close" | "plain-code";

export interface Fence {
  /** The opening fence run, e.g. "```" or "~~~~". */
  readonly marker: string;
  readonly info: string;
}

export interface Group {
  readonly kind: GroupKind;
  readonly lines: readonly string[];
  /** A blank row goes before this group. */
  readonly separator: boolean;
  /** Code groups: the fence they belong to. */
  readonly fence?: Fence;
}

type BlockKind = "none" | "paragraph" | "list" | "quote" | "table" | "code" | "indented";

const BLANK = /^\s*$/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ATX = /^ {0,3}#{1,6}(?:\s|$)/;
const HR = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const SETEXT = /^ {0,3}(?:=+|-+)[ \t]*$/;
const LIST_ITEM = /^( {0,3})([-+*]|\d{1,9}[.)])(?:( +)|$)/;
const QUOTE = /^ {0,3}>/;
const QUOTE_PREFIX = /^ {0,3}> ?/;
const INDENTED = /^ {4}/;
const DELIMITER_ROW = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

const leadingSpaces = (line: string): number => line.length - line.trimStart().length;

function isDelimiterRow(line: string): boolean {
  return line.includes("|") && DELIMITER_ROW.test(line);
}

/** A line that starts a block of its own and so ends a paragraph, list or quote before it. */
function interrupts(line: string): boolean {
  return ATX.test(line) || FENCE_OPEN.test(line) || HR.test(line) || QUOTE.test(line);
}

function listItemCanInterruptParagraph(line: string): boolean {
  const match = LIST_ITEM.exec(line);
  if (match === null || BLANK.test(line.slice(match[0].length))) return false;
  const marker = match[2]!;
  return !/^\d/.test(marker) || /^1[.)]$/.test(marker);
}

/** Column where the content of a list item line starts. */
function contentIndent(line: string): number {
  const match = LIST_ITEM.exec(line);
  if (match === null) return leadingSpaces(line);
  const spaces = match[3]?.length ?? 1;
  return match[1]!.length + match[2]!.length + (spaces > 4 ? 1 : spaces);
}

function count(text: string, token: string): number {
  let n = 0;
  for (let i = text.indexOf(token); i !== -1; i = text.indexOf(token, i + token.length)) n++;
  return n;
}

/** Inline markers that can span lines are all closed: the lines render the same whatever follows. */
export function inlineBalanced(text: string): boolean {
  if (count(text, "`") % 2 !== 0) return false;
  if (count(text, "**") % 2 !== 0 || count(text, "~~") % 2 !== 0) return false;
  return count(text, "[") <= count(text, "]");
}

function fenceCloses(line: string, fence: Fence): boolean {
  const trimmed = line.trimStart();
  if (leadingSpaces(line) > 3) return false;
  const char = fence.marker[0]!;
  let run = 0;
  while (run < trimmed.length && trimmed[run] === char) run++;
  return run >= fence.marker.length && BLANK.test(trimmed.slice(run));
}

function openFence(line: string): Fence | undefined {
  const match = FENCE_OPEN.exec(line);
  if (match === null) return undefined;
  const marker = match[1]!;
  const info = match[2]!.trim();
  if (marker[0] === "`" && info.includes("`")) return undefined;
  return { marker, info };
}

export class BlockSplitter {
  #block: BlockKind = "none";
  /** Lines of the group still open. */
  #pending: string[] = [];
  /** Blank lines seen after the pending lines (lists and indented code may continue past them). */
  #blanks: string[] = [];
  #pendingSeparator = false;
  #fence: Fence | undefined;
  #listIndent = 0;
  #sawBlock = false;
  readonly #closed: Group[] = [];

  /** Groups closed so far, in order (the array grows; callers keep their own index). */
  get closed(): readonly Group[] {
    return this.#closed;
  }

  /** One complete source line (without its "\n"). */
  push(line: string): void {
    switch (this.#block) {
      case "none":
        return this.#start(line);
      case "code":
        return this.#code(line);
      case "paragraph":
        return this.#paragraph(line);
      case "list":
        return this.#list(line);
      case "quote":
        return this.#quote(line);
      case "table":
        return this.#table(line);
      case "indented":
        return this.#indented(line);
    }
  }

  /** The end of the text: every open group closes (an unclosed fence gets its closing row). */
  end(): void {
    if (this.#block === "code") {
      this.#emit("code-close", [], this.#fence);
    } else if (this.#pending.length > 0) {
      this.#closePending();
    }
    this.#block = "none";
    this.#pending = [];
    this.#blanks = [];
  }

  /** What is still open, to be drawn as the live tail together with the unfinished line. */
  open(): { readonly kind: "markdown" | "code" | "plain-code"; readonly lines: readonly string[]; readonly separator: boolean; readonly fence?: Fence } {
    if (this.#block === "code") return { kind: "code", lines: [], separator: false, fence: this.#fence };
    if (this.#block === "none") return { kind: "markdown", lines: [], separator: this.#sawBlock };
    const lines = this.#block === "list" || this.#block === "indented" ? [...this.#pending, ...this.#blanks] : this.#pending;
    return { kind: this.#block === "indented" ? "plain-code" : "markdown", lines, separator: this.#pendingSeparator };
  }

  /** Whether an unfinished line that starts a new block is drawn after a blank row. */
  startSeparator(line: string): boolean {
    return this.#sawBlock && !(LIST_ITEM.test(line) && !HR.test(line));
  }

  #emit(kind: GroupKind, lines: readonly string[], fence?: Fence): void {
    const separator = this.#pendingSeparator;
    this.#pendingSeparator = false;
    this.#closed.push(fence === undefined ? { kind, lines, separator } : { kind, lines, separator, fence });
  }

  #closePending(): void {
    if (this.#pending.length === 0) return;
    this.#emit(this.#block === "indented" ? "plain-code" : "markdown", this.#pending);
    this.#pending = [];
  }

  /** A new block begins with this line. */
  #start(line: string): void {
    if (BLANK.test(line)) return;
    const isList = LIST_ITEM.test(line) && !HR.test(line);
    this.#pendingSeparator = this.#sawBlock && !isList;
    this.#sawBlock = true;
    this.#blanks = [];
    const fence = openFence(line);
    if (fence !== undefined) {
      this.#fence = fence;
      this.#block = "code";
      this.#emit("code-open", [line], fence);
      return;
    }
    if (ATX.test(line) || HR.test(line)) {
      this.#emit("markdown", [line]);
      this.#block = "none";
      return;
    }
    this.#pending = [line];
    if (isList) {
      this.#block = "list";
      this.#listIndent = contentIndent(line);
    } else if (QUOTE.test(line)) this.#block = "quote";
    else if (INDENTED.test(line)) this.#block = "indented";
    else this.#block = "paragraph";
  }

  #finishBlock(next: string | undefined): void {
    this.#closePending();
    this.#block = "none";
    this.#blanks = [];
    if (next !== undefined) this.#start(next);
  }

  #code(line: string): void {
    const fence = this.#fence!;
    if (fenceCloses(line, fence)) {
      this.#emit("code-close", [line], fence);
      this.#block = "none";
      this.#fence = undefined;
      return;
    }
    this.#emit("code-line", [line], fence);
  }

  #paragraph(line: string): void {
    if (BLANK.test(line)) return this.#finishBlock(line);
    const last = this.#pending.at(-1)!;
    if (SETEXT.test(line)) {
      // The last line becomes a heading; the lines before it stay a paragraph.
      this.#pending.pop();
      this.#closePending();
      this.#pending = [last, line];
      return this.#finishBlock(undefined);
    }
    if (isDelimiterRow(line) && last.includes("|")) {
      this.#pending.pop();
      const before = this.#pending.length > 0;
      this.#closePending();
      if (before) this.#pendingSeparator = true;
      this.#pending = [last, line];
      this.#block = "table";
      return;
    }
    if (interrupts(line) || listItemCanInterruptParagraph(line)) return this.#finishBlock(line);
    if (inlineBalanced(this.#pending.join("\n"))) this.#closePending();
    this.#pending.push(line);
  }

  #list(line: string): void {
    if (BLANK.test(line)) {
      this.#blanks.push(line);
      return;
    }
    const indent = leadingSpaces(line);
    if (HR.test(line) && indent < this.#listIndent) return this.#finishBlock(line);
    if (LIST_ITEM.test(line) && indent < this.#listIndent) {
      // The next item at the top level: the current item is complete.
      this.#closePending();
      this.#pending = [line];
      this.#blanks = [];
      this.#listIndent = contentIndent(line);
      return;
    }
    const continues = indent >= this.#listIndent || (this.#blanks.length === 0 && !interrupts(line));
    if (!continues) return this.#finishBlock(line);
    this.#pending.push(...this.#blanks, line);
    this.#blanks = [];
  }

  #quote(line: string): void {
    if (BLANK.test(line)) return this.#finishBlock(line);
    if (!QUOTE.test(line)) {
      const lastInner = this.#pending.at(-1)!.replace(QUOTE_PREFIX, "");
      const lazy = !interrupts(line) && !LIST_ITEM.test(line) && !BLANK.test(lastInner) && openFence(lastInner) === undefined;
      if (!lazy) return this.#finishBlock(line);
      this.#pending.push(line);
      return;
    }
    const inner = line.replace(QUOTE_PREFIX, "");
    if (quoteIsPlain(this.#pending) && !SETEXT.test(inner) && !isDelimiterRow(inner) && !INDENTED.test(inner)) this.#closePending();
    this.#pending.push(line);
  }

  #table(line: string): void {
    if (BLANK.test(line)) return this.#finishBlock(line);
    if (!line.includes("|") || interrupts(line)) return this.#finishBlock(line);
    this.#pending.push(line);
  }

  #indented(line: string): void {
    if (BLANK.test(line)) {
      this.#blanks.push(line);
      return;
    }
    if (INDENTED.test(line)) {
      this.#pending.push(...this.#blanks, line);
      this.#blanks = [];
      return;
    }
    this.#finishBlock(line);
  }
}

/** Quote lines holding only paragraph text: each can be drawn on its own. */
function quoteIsPlain(lines: readonly string[]): boolean {
  for (const line of lines) {
    const inner = line.replace(QUOTE_PREFIX, "");
    if (BLANK.test(inner) || QUOTE.test(inner) || LIST_ITEM.test(inner) || openFence(inner) !== undefined || INDENTED.test(inner)) return false;
  }
  return inlineBalanced(lines.join("\n"));
}
