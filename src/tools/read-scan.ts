/**
 * Streaming line scanner behind the `read` tool. It walks a file of any size
 * chunk by chunk, selects one page of lines (1-based start, a line window)
 * within a byte budget, and keeps counting newlines afterwards so the caller
 * can say how many lines the file has. Counting stops after COUNT_SCAN_LIMIT
 * bytes past the page; the total is then reported as unknown. Lines split on
 * "\n" only; a final line without a newline still counts.
 */
import type { FileHandle } from "node:fs/promises";
import { utf8Boundary } from "./shared.ts";

const CHUNK_BYTES = 64 * 1024;
/** Bytes scanned past the page just to count lines before giving up. */
const COUNT_SCAN_LIMIT = 256 * 1024 * 1024;
const NEWLINE = 0x0a;

export type PageStop = "eof" | "window" | "byte_cap" | "cancelled";

export interface TextPage {
  /** Selected lines, each followed by "\n". */
  readonly text: string;
  readonly startLine: number;
  readonly linesShown: number;
  /** Total lines of the file; undefined when counting was abandoned. */
  readonly totalLines: number | undefined;
  /** A lower bound on the total lines (exact when totalLines is known). */
  readonly linesSeen: number;
  readonly stop: PageStop;
  /** The page's only line was longer than the byte budget and was cut. */
  readonly cutLine: boolean;
}

export interface PageRequest {
  readonly startLine: number;
  readonly maxLines: number;
  readonly maxBytes: number;
  readonly signal: AbortSignal;
  /** Bytes of the file already read by the caller (its head); scanning starts after them. */
  readonly head: Uint8Array;
  /** The head already reached end of file: nothing more is read. */
  readonly headIsWholeFile?: boolean;
}

function countNewlines(bytes: Uint8Array, from: number): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE, from); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) count++;
  return count;
}

/** `handle` may be undefined only when the head is the whole file (nothing more is read). */
export async function scanPage(handle: FileHandle | undefined, request: PageRequest): Promise<TextPage> {
  const { startLine, maxLines, maxBytes } = request;
  const decoder = new TextDecoder("utf-8");
  const shown: string[] = [];
  let shownBytes = 0;
  // Held in an object: the closures below change it, which flow analysis cannot see.
  const state: { phase: "before" | "collecting" | "done"; stop: PageStop } = {
    phase: startLine <= 1 ? "collecting" : "before",
    stop: "eof",
  };
  let cutLine = false;
  /** 1-based number of the line being scanned (newlines seen + 1). */
  let lineNo = 1;
  let lastByte = -1;
  let fileBytes = 0;
  let countedAfterStop = 0;
  let totalKnown = true;
  let lineParts: Uint8Array[] = [];
  let lineStoredBytes = 0;
  let lineTrueBytes = 0;

  const appendToLine = (part: Uint8Array): void => {
    lineTrueBytes += part.length;
    const room = maxBytes + 1 - lineStoredBytes;
    if (room <= 0 || part.length === 0) return;
    const kept = part.length > room ? part.slice(0, room) : part.slice();
    lineParts.push(kept);
    lineStoredBytes += kept.length;
  };

  const finishLine = (): void => {
    const bytes = Buffer.concat(lineParts, lineStoredBytes);
    const needed = lineTrueBytes + 1;
    if (shownBytes + needed <= maxBytes) {
      shown.push(decoder.decode(bytes), "\n");
      shownBytes += needed;
      if (shown.length / 2 >= maxLines) {
        state.phase = "done";
        state.stop = "window";
      }
    } else {
      if (shown.length === 0) {
        const cut = utf8Boundary(bytes, maxBytes - 1);
        shown.push(decoder.decode(bytes.subarray(0, cut)), "\n");
        shownBytes += cut + 1;
        cutLine = true;
      }
      state.phase = "done";
      state.stop = "byte_cap";
    }
    lineParts = [];
    lineStoredBytes = 0;
    lineTrueBytes = 0;
  };

  const consume = (chunk: Uint8Array): void => {
    fileBytes += chunk.length;
    if (chunk.length > 0) lastByte = chunk[chunk.length - 1] ?? -1;
    let pos = 0;
    while (pos < chunk.length) {
      if (state.phase === "done") {
        lineNo += countNewlines(chunk, pos);
        countedAfterStop += chunk.length - pos;
        return;
      }
      const newline = chunk.indexOf(NEWLINE, pos);
      const end = newline === -1 ? chunk.length : newline;
      if (state.phase === "collecting") appendToLine(chunk.subarray(pos, end));
      if (newline === -1) return;
      if (state.phase === "collecting") finishLine();
      lineNo++;
      if (state.phase === "before" && lineNo >= startLine) state.phase = "collecting";
      pos = newline + 1;
    }
  };

  consume(request.head);
  const buffer = new Uint8Array(request.headIsWholeFile === true ? 0 : CHUNK_BYTES);
  for (;;) {
    if (request.signal.aborted) {
      state.stop = "cancelled";
      break;
    }
    if (request.headIsWholeFile === true || handle === undefined) break;
    if (state.phase === "done" && countedAfterStop > COUNT_SCAN_LIMIT) {
      totalKnown = false;
      break;
    }
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
    if (bytesRead === 0) break;
    consume(buffer.subarray(0, bytesRead));
  }
  const endsWithPartialLine = fileBytes > 0 && lastByte !== NEWLINE;
  if (state.stop !== "cancelled" && totalKnown && state.phase === "collecting" && endsWithPartialLine) finishLine();
  const linesSeen = endsWithPartialLine ? lineNo : lineNo - 1;
  return {
    text: shown.join(""),
    startLine,
    linesShown: shown.length / 2,
    totalLines: totalKnown && state.stop !== "cancelled" ? linesSeen : undefined,
    linesSeen,
    stop: state.stop,
    cutLine,
  };
}
