/**
 * Loading a session file into a resumable transcript. loadSession reads the
 * file, validates every line (format.ts), applies compaction rows, repairs
 * tool pairing (repair.ts) and seeds the cumulative usage from the last usage
 * row. A torn last line (crash mid-write) is cut off the file, and a missing
 * final newline added, so later appends stay valid; pass `repair: false` to
 * read without touching the file. Unusable middle lines are skipped and
 * reported as warnings. Throws SessionError when the file is missing,
 * unreadable or has no meta row on its first line.
 */
import { appendFileSync, readFileSync, truncateSync } from "node:fs";
import { systemErrorCode } from "../common/errors.ts";
import { emptyUsage, type Message, type Usage } from "../providers/types.ts";
import { SessionError } from "./errors.ts";
import type { SessionMeta } from "./format.ts";
import { repairToolPairing, type TranscriptEntry } from "./repair.ts";
import { scanSession, type ScanResult, type SessionWarning } from "./scan.ts";

export interface LoadedSession {
  readonly path: string;
  /** The last meta row (with any later rename applied). */
  readonly meta: SessionMeta;
  /** The transcript to resume: compacted, pairing-repaired. */
  readonly messages: readonly Message[];
  /** Parallel to `messages`: each one's message row index, null when synthesised (summary, stub). */
  readonly messageRows: readonly (number | null)[];
  /** Message rows in the file: the row index the next appended message gets. */
  readonly messageRowCount: number;
  /** `cumulative` of the last usage row; zero when there is none. */
  readonly cumulativeUsage: Usage;
  /** True when a compaction row shaped the transcript. */
  readonly compacted: boolean;
  readonly warnings: readonly SessionWarning[];
}

export interface LoadOptions {
  /** Fix the file's tail (torn last line, missing newline). Default true. */
  readonly repair?: boolean;
}

/** Reads a session file's bytes, mapping failures to SessionError. */
export function readSessionFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = systemErrorCode(err);
    if (code === "ENOENT") throw new SessionError("not_found", path, "session file not found", {}, { cause: err });
    throw new SessionError("unreadable", path, `cannot read session file (${code ?? "error"})`, {}, { cause: err });
  }
}

/** The first row must be a meta row; returns the meta of the first one. */
export function requireMeta(path: string, scan: ScanResult): SessionMeta {
  const first = scan.rows[0];
  if (!first || first.row.type !== "meta") {
    throw new SessionError("invalid", path, "not a session file (line 1 is not a meta row)", { line: first?.line ?? 1 });
  }
  return first.row.meta;
}

/** Applies the tail repair `scan` asks for. */
export function repairTail(path: string, scan: ScanResult): void {
  try {
    if (scan.tail === "torn") truncateSync(path, scan.goodLength);
    else if (scan.tail === "unterminated") appendFileSync(path, "\n");
  } catch (err) {
    throw new SessionError("write", path, `cannot repair the end of the session file (${systemErrorCode(err) ?? "error"})`, {}, { cause: err });
  }
}

interface Assembled {
  readonly meta: SessionMeta;
  readonly entries: readonly TranscriptEntry[];
  readonly cumulativeUsage: Usage;
  readonly compacted: boolean;
  readonly warnings: readonly SessionWarning[];
}

/** Folds the rows of a scan into meta, transcript and usage. Pure. */
export function assembleSession(path: string, scan: ScanResult): Assembled {
  let meta = requireMeta(path, scan);
  const warnings: SessionWarning[] = [...scan.warnings];
  const messageEntries: TranscriptEntry[] = [];
  let transcript: TranscriptEntry[] = [];
  let cumulativeUsage = emptyUsage();
  let keptFloor = 0;
  let compacted = false;

  for (const { line, row, messagesBefore } of scan.rows) {
    switch (row.type) {
      case "meta":
        meta = row.meta;
        break;
      case "rename":
        meta = { ...meta, title: row.title };
        break;
      case "usage":
        cumulativeUsage = { ...row.cumulative };
        break;
      case "message": {
        if (row.message.content.length === 0) break;
        const entry: TranscriptEntry = { message: row.message, row: messagesBefore };
        messageEntries.push(entry);
        transcript.push(entry);
        break;
      }
      case "compaction": {
        const keptFrom = Math.min(Math.max(row.kept_from, keptFloor), messagesBefore);
        if (keptFrom !== row.kept_from) {
          warnings.push({ line, message: `compaction kept_from ${row.kept_from} out of range, using ${keptFrom}` });
        }
        keptFloor = keptFrom;
        compacted = true;
        const kept = messageEntries.filter((entry) => entry.row !== null && entry.row >= keptFrom);
        transcript = [{ message: row.message, row: null }, ...kept];
        break;
      }
    }
  }
  return { meta, entries: transcript, cumulativeUsage, compacted, warnings };
}

export function loadSession(path: string, options: LoadOptions = {}): LoadedSession {
  const scan = scanSession(readSessionFile(path));
  const assembled = assembleSession(path, scan);
  if (options.repair !== false) repairTail(path, scan);
  const repaired = repairToolPairing(assembled.entries);
  const warnings = [...assembled.warnings];
  if (repaired.stubbedCalls.length > 0) {
    warnings.push({ line: 0, message: `stub results added for ${repaired.stubbedCalls.length} unanswered tool call(s)` });
  }
  if (repaired.droppedResults.length > 0) {
    warnings.push({ line: 0, message: `${repaired.droppedResults.length} orphan tool result(s) dropped` });
  }
  return {
    path,
    meta: assembled.meta,
    messages: repaired.entries.map((entry) => entry.message),
    messageRows: repaired.entries.map((entry) => entry.row),
    messageRowCount: scan.messageRowCount,
    cumulativeUsage: assembled.cumulativeUsage,
    compacted: assembled.compacted,
    warnings,
  };
}
