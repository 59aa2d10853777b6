/**
 * Splits the bytes of a session file into validated rows. Pure: it reports
 * what the file's tail needs (a torn last line to cut off, or a missing final
 * newline) and leaves the fixing to the caller. Unusable middle lines become
 * warnings, never errors. Line numbers are 1-based.
 */
import { errorMessage } from "../common/errors.ts";
import { parseRow, type SessionRow } from "./format.ts";

export interface SessionWarning {
  readonly line: number;
  readonly message: string;
}

export interface ScannedRow {
  readonly line: number;
  readonly row: SessionRow;
  /** Message rows (valid or not) before this line: a message row's row index (see format.ts). */
  readonly messagesBefore: number;
}

export type TailRepair =
  /** The last line is not valid JSON (a crash mid-write): cut the file to `goodLength`. */
  | "torn"
  /** The last line is whole but lacks its "\n": append one before appending rows. */
  | "unterminated";

export interface ScanResult {
  readonly rows: readonly ScannedRow[];
  readonly warnings: readonly SessionWarning[];
  /** Lines whose `type` is "message", valid or not. */
  readonly messageRowCount: number;
  /** Byte length of the file without a torn last line. */
  readonly goodLength: number;
  readonly tail?: TailRepair;
}

const NEWLINE = 0x0a;

interface LineSpan {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly line: number;
}

function splitLines(bytes: Uint8Array): LineSpan[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const spans: LineSpan[] = [];
  let start = 0;
  while (start < buffer.length) {
    const newline = buffer.indexOf(NEWLINE, start);
    const end = newline === -1 ? buffer.length : newline;
    let text = buffer.toString("utf8", start, end);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    spans.push({ start, end, text, line: spans.length + 1 });
    start = end + 1;
  }
  return spans;
}

function rowType(raw: unknown): unknown {
  return typeof raw === "object" && raw !== null && "type" in raw ? raw.type : undefined;
}

export function scanSession(bytes: Uint8Array): ScanResult {
  const spans = splitLines(bytes).filter((span) => span.text.trim() !== "");
  const rows: ScannedRow[] = [];
  const warnings: SessionWarning[] = [];
  let messageRowCount = 0;
  let goodLength = bytes.byteLength;
  let tail: TailRepair | undefined;
  const lineNumber = (span: LineSpan): number => span.line;

  spans.forEach((span, position) => {
    const isLast = position === spans.length - 1;
    let raw: unknown;
    try {
      raw = JSON.parse(span.text);
    } catch (err) {
      if (isLast) {
        tail = "torn";
        goodLength = span.start;
        warnings.push({ line: lineNumber(span), message: "torn last line dropped" });
      } else {
        warnings.push({ line: lineNumber(span), message: `not valid JSON, skipped (${errorMessage(err)})` });
      }
      return;
    }
    if (isLast && span.end === bytes.byteLength) tail = "unterminated";
    const messagesBefore = messageRowCount;
    if (rowType(raw) === "message") messageRowCount++;
    const parsed = parseRow(raw);
    if (!parsed.ok) {
      warnings.push({ line: lineNumber(span), message: `invalid row, skipped (${parsed.problem})` });
      return;
    }
    if (parsed.droppedBlocks > 0) {
      warnings.push({ line: lineNumber(span), message: `${parsed.droppedBlocks} invalid content block(s) dropped` });
    }
    rows.push({ line: lineNumber(span), row: parsed.row, messagesBefore });
  });

  return tail === undefined
    ? { rows, warnings, messageRowCount, goodLength }
    : { rows, warnings, messageRowCount, goodLength, tail };
}
