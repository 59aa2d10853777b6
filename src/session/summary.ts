/**
 * What listing shows about a session (reference notes §4.8: first user text,
 * message count, last cumulative cost, title), folded row by row from a scan
 * (scan.ts) so that it can start from a saved state (index-file.ts) and go on
 * over the rows appended since; the session writer folds the rows it appends
 * the same way, so the index it keeps agrees with a read of the file.
 * Message lines are parsed only while the first
 * user text is still being looked for, and only in the first
 * FIRST_USER_SEARCH_ROWS message rows. The first valid row must be a meta
 * row; a message line before it means the file is not a session.
 */
import { emptyUsage, type Message, type Usage } from "../providers/types.ts";
import type { SessionMeta, SessionRow } from "./format.ts";
import { parseLine, type MessageLine, type ScannedRow, type WarningList } from "./scan.ts";

/** Characters of the first user text kept. */
export const FIRST_USER_TEXT_MAX = 1000;
/** Message rows looked at for the first user text. */
export const FIRST_USER_SEARCH_ROWS = 16;

export interface SummaryState {
  /** The last meta row, with later renames applied. */
  readonly meta: SessionMeta;
  /** Message rows (the row index the next message gets). */
  readonly messageRowCount: number;
  /** Text of the first user message; undefined while not found. */
  readonly firstUserText?: string;
  /** Message rows looked at for the first user text so far. */
  readonly searchedRows: number;
  /** `cumulative` of the last usage row. */
  readonly cumulative: Usage;
}

/** The first text of a user message, capped; undefined when it has none. */
export function userTextOf(message: Message): string | undefined {
  if (message.role !== "user") return undefined;
  const text = message.content.find((block) => block.type === "text");
  return text?.type === "text" ? text.text.slice(0, FIRST_USER_TEXT_MAX) : undefined;
}

export class SummaryFold {
  #meta: SessionMeta | undefined;
  #firstUserText: string | undefined;
  #searchedRows: number;
  #cumulative: Usage;
  /** Set when the file turned out not to be a session: the line at fault. */
  #invalidAt: number | undefined;

  constructor(initial?: SummaryState) {
    this.#meta = initial?.meta;
    this.#firstUserText = initial?.firstUserText;
    this.#searchedRows = initial?.searchedRows ?? 0;
    this.#cumulative = initial ? { ...initial.cumulative } : emptyUsage();
  }

  /** Line of the first row when that row is not a meta row. */
  get invalidAt(): number | undefined {
    return this.#invalidAt;
  }

  get hasMeta(): boolean {
    return this.#meta !== undefined;
  }

  get searching(): boolean {
    return this.#firstUserText === undefined && this.#searchedRows < FIRST_USER_SEARCH_ROWS;
  }

  onRow({ line, row }: ScannedRow): void {
    if (this.#invalidAt !== undefined) return;
    if (this.#meta === undefined && row.type !== "meta") {
      this.#invalidAt = line;
      return;
    }
    this.apply(row);
  }

  /** Folds in one row of a file whose meta row has been seen (the session writer's own rows). */
  apply(row: SessionRow): void {
    switch (row.type) {
      case "meta":
        this.#meta = row.meta;
        break;
      case "rename":
        if (this.#meta) this.#meta = { ...this.#meta, title: row.title };
        break;
      case "usage":
        this.#cumulative = { ...row.cumulative };
        break;
      case "message":
        this.#noteMessage(row.message);
        break;
      case "compaction":
        break;
    }
  }

  /** A deferred message line: parsed only while the first user text is looked for. */
  onMessageLine(line: MessageLine, warnings: WarningList): void {
    if (this.#invalidAt !== undefined) return;
    if (this.#meta === undefined) {
      this.#invalidAt = line.line;
      return;
    }
    if (!this.searching) return;
    const parsed = parseLine(line.text, line.line, line.row, warnings);
    if (parsed?.row.type === "message") this.#noteMessage(parsed.row.message);
    else this.#searchedRows++;
  }

  #noteMessage(message: Message): void {
    if (!this.searching) return;
    this.#searchedRows++;
    this.#firstUserText = userTextOf(message);
  }

  /** The state after the rows seen; undefined when no meta row was seen or the file is not a session. */
  state(messageRowCount: number): SummaryState | undefined {
    if (this.#meta === undefined || this.#invalidAt !== undefined) return undefined;
    return {
      meta: this.#meta,
      messageRowCount,
      ...(this.#firstUserText !== undefined ? { firstUserText: this.#firstUserText } : {}),
      searchedRows: this.#searchedRows,
      cumulative: { ...this.#cumulative },
    };
  }
}
