/**
 * Reading a session file line by line in bounded memory: positional reads of
 * READ_CHUNK_BYTES from an open descriptor, never the whole file. A line up
 * to MAX_SESSION_LINE_BYTES is handed over with its text decoded on demand
 * ("\r\n" endings trimmed), so a reader that only needs a line's type never
 * decodes it; a longer line is skipped without being buffered, and only its
 * first LINE_PREFIX_BYTES are kept so its row type can still be told (see
 * peekRowType). Blank lines are not reported. Memory: the chunk being read
 * plus the current line; a long read asks for a garbage collection every
 * COLLECT_EVERY_BYTES so the lines it has looked at never pile up. Read
 * errors throw (the caller maps them to SessionError).
 */
import { readSync } from "node:fs";

/** Longest session line read as a row (32 MiB, the largest request any provider accepts); longer lines are skipped. */
export const MAX_SESSION_LINE_BYTES = 32 * 1024 * 1024;
export const READ_CHUNK_BYTES = 1024 * 1024;
/** A long read asks for a garbage collection every this many bytes read. */
export const COLLECT_EVERY_BYTES = 32 * 1024 * 1024;
/** Bytes of a line decoded to tell its type. */
export const LINE_PREFIX_BYTES = 256;

export interface SessionLine {
  /** 1-based line number in the file (blank lines included). */
  readonly line: number;
  /** Byte offset of the line's first byte. */
  readonly start: number;
  /** Byte offset just past the line, its "\n" included when terminated. */
  readonly end: number;
  /** The line without its "\n" (and a trailing "\r"), decoded on first use; undefined when longer than the limit. */
  readonly text: string | undefined;
  /** The first LINE_PREFIX_BYTES of the line, decoded. */
  readonly prefix: string;
  /** False for a last line without "\n". */
  readonly terminated: boolean;
}

export interface LineReadOptions {
  /** Byte offset to start at (must be a line start). Default 0. */
  readonly from?: number;
  /** Line number of the line at `from`. Default 1. */
  readonly firstLine?: number;
  readonly maxLineBytes?: number;
  readonly chunkBytes?: number;
}

/** Offset reached: just past the last byte read. */
export interface LineReadEnd {
  readonly end: number;
  /** True when `visit` asked to stop early. */
  readonly stopped: boolean;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;

class LineView implements SessionLine {
  #bytes: Buffer | undefined;
  #text: string | undefined;
  readonly prefix: string;

  /** `bytes` undefined: the line is over the limit and `overLongPrefix` is all that was kept of it. */
  constructor(
    readonly line: number,
    readonly start: number,
    readonly end: number,
    bytes: Buffer | undefined,
    overLongPrefix: string | undefined,
    readonly terminated: boolean,
  ) {
    this.#bytes = bytes;
    this.prefix = overLongPrefix ?? bytes?.toString("utf8", 0, LINE_PREFIX_BYTES) ?? "";
  }

  get text(): string | undefined {
    if (this.#text === undefined && this.#bytes !== undefined) {
      this.#text = this.#bytes.toString("utf8");
      this.#bytes = undefined;
    }
    return this.#text;
  }
}

function joined(parts: readonly Buffer[], length: number): Buffer {
  const bytes = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts as Buffer[], length);
  return length > 0 && bytes[length - 1] === CARRIAGE_RETURN ? bytes.subarray(0, length - 1) : bytes;
}

function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte !== SPACE && byte !== TAB && byte !== CARRIAGE_RETURN) return false;
  return true;
}

/** The first `count` bytes of `parts`, decoded (a character cut in half becomes U+FFFD). */
function firstBytes(parts: readonly Buffer[], count: number): string {
  const taken: Buffer[] = [];
  let left = count;
  for (const part of parts) {
    if (left <= 0) break;
    const piece = part.subarray(0, left);
    taken.push(piece);
    left -= piece.length;
  }
  return Buffer.concat(taken).toString("utf8");
}

/**
 * Calls `visit` for each non-blank line from `options.from` on; `visit`
 * returning false stops the read.
 */
export function readLines(fd: number, options: LineReadOptions, visit: (line: SessionLine) => boolean | void): LineReadEnd {
  const maxLine = options.maxLineBytes ?? MAX_SESSION_LINE_BYTES;
  const chunkBytes = options.chunkBytes ?? READ_CHUNK_BYTES;
  let position = options.from ?? 0;
  let lineNumber = options.firstLine ?? 1;
  let lineStart = position;
  // Views into the chunks read: each read gets a fresh chunk, so a line is copied at most once (when it spans chunks).
  let parts: Buffer[] = [];
  let length = 0;
  let overLongPrefix: string | undefined;

  const emit = (end: number, terminated: boolean): boolean => {
    const line = lineNumber++;
    const start = lineStart;
    lineStart = end;
    const bytes = overLongPrefix === undefined ? joined(parts, length) : undefined;
    const prefix = overLongPrefix;
    parts = [];
    length = 0;
    overLongPrefix = undefined;
    if (bytes !== undefined && isBlank(bytes)) return true;
    return visit(new LineView(line, start, end, bytes, prefix, terminated)) !== false;
  };

  let sinceCollect = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(chunkBytes);
    const read = readSync(fd, chunk, 0, chunkBytes, position);
    if (read === 0) break;
    sinceCollect += read;
    if (sinceCollect >= COLLECT_EVERY_BYTES) {
      Bun.gc(true);
      sinceCollect = 0;
    }
    let from = 0;
    while (from < read) {
      const newline = chunk.indexOf(NEWLINE, from);
      const stop = newline === -1 || newline >= read ? read : newline;
      const piece = chunk.subarray(from, stop);
      if (overLongPrefix === undefined && length + piece.length > maxLine) {
        overLongPrefix = firstBytes([...parts, piece], LINE_PREFIX_BYTES);
        parts = [];
        length = 0;
      }
      if (overLongPrefix === undefined && piece.length > 0) {
        parts.push(piece);
        length += piece.length;
      }
      if (stop === read) break;
      if (!emit(position + stop + 1, true)) return { end: position + stop + 1, stopped: true };
      from = stop + 1;
    }
    position += read;
  }
  if (length > 0 || overLongPrefix !== undefined) {
    if (!emit(position, false)) return { end: position, stopped: true };
  }
  return { end: position, stopped: false };
}

const ROW_TYPE_PREFIX = /^\s*\{\s*"type"\s*:\s*"([A-Za-z_]{1,32})"/;

/** The row type a line declares in its leading `"type"` field (every writer of the format puts it first); undefined otherwise. */
export function peekRowType(prefix: string): string | undefined {
  return ROW_TYPE_PREFIX.exec(prefix)?.[1];
}
