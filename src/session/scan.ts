/**
 * Streams the lines of a session file (lines.ts) into rows for a consumer:
 * meta, usage, compaction and rename rows are parsed at once; message lines
 * are counted by their leading type and, when the consumer asks, handed over
 * unparsed (`deferMessages`), so a fold that keeps only the newest messages
 * never parses the others. Every line goes through parseJson
 * (common/json.ts): a line nested deeper than MAX_JSON_DEPTH is skipped with
 * a warning, except that a message or compaction line up to SALVAGE_MAX_BYTES
 * whose only deep parts are tool-call arguments keeps its row with those
 * arguments replaced by {} (files of the original zot store arguments as raw
 * JSON of any depth). A line longer than MAX_SESSION_LINE_BYTES is skipped
 * with a warning (a message line still counts as a row). The last line is
 * checked for a tear: invalid JSON without a final "\n" is a crash mid-write
 * ("torn": the caller may cut it off); a whole line without "\n" is
 * "unterminated". Line numbers are 1-based. Warnings are kept up to
 * MAX_WARNINGS; the rest are counted.
 */
import { describeJsonProblem, MAX_JSON_DEPTH, MAX_VALUE_DEPTH, parseJson, valueTooDeep } from "../common/json.ts";
import { parseRow, type SessionRow } from "./format.ts";
import { LINE_PREFIX_BYTES, MAX_SESSION_LINE_BYTES, peekRowType, readLines, type SessionLine } from "./lines.ts";

const OVER_LONG_WARNING = `line longer than ${MAX_SESSION_LINE_BYTES / (1024 * 1024)} MiB, skipped`;

export interface SessionWarning {
  readonly line: number;
  readonly message: string;
}

/** Warnings kept per read; later ones are only counted. */
export const MAX_WARNINGS = 50;
/** Largest too-deep line that is parsed to rescue its row (parsing costs memory proportional to nesting). */
export const SALVAGE_MAX_BYTES = 1024 * 1024;

export class WarningList {
  readonly #kept: SessionWarning[] = [];
  #dropped = 0;

  add(line: number, message: string): void {
    if (this.#kept.length < MAX_WARNINGS) this.#kept.push({ line, message });
    else this.#dropped++;
  }

  list(): SessionWarning[] {
    if (this.#dropped === 0) return [...this.#kept];
    return [...this.#kept, { line: 0, message: `${this.#dropped} more warning(s) not shown` }];
  }
}

export interface ScannedRow {
  readonly line: number;
  readonly row: SessionRow;
  /** Message rows (valid or not) before this line: a message row's row index (see format.ts). */
  readonly messagesBefore: number;
  /** Bytes of the line on disk. */
  readonly bytes: number;
}

/** A message line handed over unparsed (deferMessages). */
export interface MessageLine {
  readonly line: number;
  readonly text: string;
  /** Its row index. */
  readonly row: number;
  /** Bytes on disk. */
  readonly bytes: number;
}

export type TailRepair =
  /** The last line is not valid JSON (a crash mid-write): cut the file to `goodLength`. */
  | "torn"
  /** The last line is whole but lacks its "\n": append one before appending rows. */
  | "unterminated";

export interface ScanOptions {
  readonly from?: number;
  readonly firstLine?: number;
  /** Message rows before `from`. */
  readonly messagesBefore?: number;
  /** Hand message lines to `onMessageLine` unparsed instead of parsing them. */
  readonly deferMessages?: boolean;
  readonly warnings: WarningList;
  readonly onRow: (row: ScannedRow) => void;
  readonly onMessageLine?: (line: MessageLine) => void;
  /** Return false to stop after the current line. */
  readonly keepGoing?: () => boolean;
}

export interface ScanResult {
  /** Message rows up to where the scan stopped. */
  readonly messageRowCount: number;
  /** End of the last row read (a torn last line excluded). */
  readonly goodLength: number;
  /** End of the last "\n"-terminated line read: a safe resume point. */
  readonly terminatedEnd: number;
  readonly tail?: TailRepair;
}

function rowTypeOf(raw: unknown): unknown {
  return typeof raw === "object" && raw !== null && "type" in raw ? raw.type : undefined;
}

/** Replaces every tool-call `arguments` in a row's message content nested too deep by {}; returns how many. */
function replaceDeepArguments(raw: unknown): number {
  if (typeof raw !== "object" || raw === null) return 0;
  const message = (raw as { message?: unknown }).message;
  const content = typeof message === "object" && message !== null ? (message as { content?: unknown }).content : undefined;
  if (!Array.isArray(content)) return 0;
  let replaced = 0;
  for (const block of content) {
    if (typeof block !== "object" || block === null || !("arguments" in block)) continue;
    const fields = block as { arguments: unknown };
    if (valueTooDeep(fields.arguments, MAX_VALUE_DEPTH)) {
      fields.arguments = {};
      replaced++;
    }
  }
  return replaced;
}

export type LineDecode =
  | { readonly ok: true; readonly raw: unknown; readonly replacedArguments: number }
  | { readonly ok: false; readonly syntax: boolean; readonly problem: string };

/** One line's JSON, depth-bounded, with deep tool-call arguments rescued where possible. */
export function decodeLine(text: string, declaredType: string | undefined): LineDecode {
  const parsed = parseJson(text, MAX_JSON_DEPTH);
  if (parsed.ok) return { ok: true, raw: parsed.value, replacedArguments: 0 };
  if (parsed.problem.kind === "syntax") return { ok: false, syntax: true, problem: parsed.problem.message };
  const tooDeep = { ok: false, syntax: false, problem: `${describeJsonProblem(parsed.problem)}, skipped` } as const;
  if ((declaredType !== "message" && declaredType !== "compaction") || text.length > SALVAGE_MAX_BYTES) return tooDeep;
  let raw: unknown;
  try {
    // JSON.parse copes with any depth; only walks of the value could overflow, and none happens before the check below.
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, syntax: true, problem: err instanceof Error ? err.message : String(err) };
  }
  const replacedArguments = replaceDeepArguments(raw);
  if (replacedArguments === 0 || valueTooDeep(raw, MAX_JSON_DEPTH)) return tooDeep;
  return { ok: true, raw, replacedArguments };
}

function undecodedWarning(decoded: { readonly syntax: boolean; readonly problem: string }): string {
  return decoded.syntax ? `not valid JSON, skipped (${decoded.problem})` : decoded.problem;
}

/** Parses one line into a row, adding warnings; undefined when the line is unusable. */
export function parseLine(text: string, line: number, messagesBefore: number, warnings: WarningList): ScannedRow | undefined {
  const decoded = decodeLine(text, peekRowType(text.slice(0, LINE_PREFIX_BYTES)));
  if (!decoded.ok) {
    warnings.add(line, undecodedWarning(decoded));
    return undefined;
  }
  return rowFromRaw(decoded, line, messagesBefore, warnings, Buffer.byteLength(text) + 1);
}

function rowFromRaw(
  decoded: { readonly raw: unknown; readonly replacedArguments: number },
  line: number,
  messagesBefore: number,
  warnings: WarningList,
  bytes: number,
): ScannedRow | undefined {
  const parsed = parseRow(decoded.raw);
  if (!parsed.ok) {
    warnings.add(line, `invalid row, skipped (${parsed.problem})`);
    return undefined;
  }
  if (parsed.droppedBlocks > 0) warnings.add(line, `${parsed.droppedBlocks} invalid content block(s) dropped`);
  const replaced = parsed.replacedArguments + decoded.replacedArguments;
  if (replaced > 0) warnings.add(line, `${replaced} tool call argument value(s) nested deeper than ${MAX_VALUE_DEPTH} levels replaced by {}`);
  return { line, row: parsed.row, messagesBefore, bytes };
}

/** Streams the rows of an open session file to `options`' callbacks. */
export function scanSessionFd(fd: number, options: ScanOptions): ScanResult {
  const { warnings } = options;
  let messageRowCount = options.messagesBefore ?? 0;
  let goodLength = options.from ?? 0;
  let terminatedEnd = goodLength;
  let tail: TailRepair | undefined;

  const visit = (line: SessionLine): boolean => {
    const declared = peekRowType(line.prefix);
    if (line.text === undefined) {
      if (declared === "message") messageRowCount++;
      warnings.add(line.line, OVER_LONG_WARNING);
      if (!line.terminated) tail = "unterminated";
      goodLength = line.end;
      if (line.terminated) terminatedEnd = line.end;
      return options.keepGoing?.() ?? true;
    }
    const deferred = declared === "message" && options.deferMessages === true && line.terminated;
    if (deferred) {
      const row = messageRowCount++;
      // The text is decoded only if the consumer reads it.
      options.onMessageLine?.({
        line: line.line,
        row,
        bytes: line.end - line.start,
        get text(): string {
          return line.text ?? "";
        },
      });
    } else {
      const text = line.text;
      const decoded = decodeLine(text, declared);
      if (!decoded.ok && decoded.syntax && !line.terminated) {
        tail = "torn";
        warnings.add(line.line, "torn last line dropped");
        return false;
      }
      const isMessage = declared === "message" || (decoded.ok && rowTypeOf(decoded.raw) === "message");
      const messagesBefore = messageRowCount;
      if (isMessage) messageRowCount++;
      if (!decoded.ok) {
        warnings.add(line.line, undecodedWarning(decoded));
      } else if (isMessage && options.deferMessages === true) {
        options.onMessageLine?.({ line: line.line, text, row: messagesBefore, bytes: line.end - line.start });
      } else {
        const row = rowFromRaw(decoded, line.line, messagesBefore, warnings, line.end - line.start);
        if (row !== undefined) options.onRow(row);
      }
      if (!line.terminated) tail = "unterminated";
    }
    goodLength = line.end;
    if (line.terminated) terminatedEnd = line.end;
    return options.keepGoing?.() ?? true;
  };

  readLines(fd, { from: options.from ?? 0, firstLine: options.firstLine ?? 1 }, visit);
  const result = { messageRowCount, goodLength, terminatedEnd };
  return tail === undefined ? result : { ...result, tail };
}
