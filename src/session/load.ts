/**
 * Loading a session file into a resumable transcript, streaming it in
 * bounded memory (lines.ts, scan.ts): meta, usage and compaction rows are
 * folded as they come; message lines are kept unparsed in a window that
 * restarts at every compaction row (summary + the rows it keeps) and holds
 * at most `budgetBytes` (RESUME_BUDGET_BYTES, 32 MiB) of message lines: when
 * the messages since the last compaction are more than that, the oldest are
 * left out (they stay in the file), the resumed part then starts at a user
 * message, and a warning says how many rows were left out. Only the kept
 * lines are parsed. Tool pairing is then repaired (repair.ts) and the
 * cumulative usage seeded from the last usage row.
 *
 * A torn last line (crash mid-write) is cut off the file and a missing final
 * newline added, so later appends stay valid; pass `repair: false` to read
 * without touching the file. Unusable lines are skipped and reported as
 * warnings. Throws SessionError when the file is missing, unreadable or its
 * first row is not a meta row.
 */
import { closeSync, constants, fstatSync, ftruncateSync, writeSync } from "node:fs";
import { systemErrorCode } from "../common/errors.ts";
import type { Message, Usage } from "../providers/types.ts";
import { SessionError } from "./errors.ts";
import { NotRegularFileError, openRegular } from "../common/regular-file.ts";
import type { SessionMeta } from "./format.ts";
import { COLLECT_EVERY_BYTES } from "./lines.ts";
import { repairToolPairing, type TranscriptEntry } from "./repair.ts";
import { parseLine, scanSessionFd, WarningList, type MessageLine, type ScanResult, type SessionWarning } from "./scan.ts";
import { SummaryFold, type SummaryState } from "./summary.ts";

/** Message bytes since the last compaction that a resume keeps in memory (and may send). */
export const RESUME_BUDGET_BYTES = 32 * 1024 * 1024;

export interface LoadedSession {
  readonly path: string;
  /** The last meta row (with any later rename applied). */
  readonly meta: SessionMeta;
  /** The transcript to resume: compacted, within the budget, pairing-repaired. */
  readonly messages: readonly Message[];
  /** Parallel to `messages`: each one's message row index, null when synthesised (summary, stub). */
  readonly messageRows: readonly (number | null)[];
  /** Message rows in the file: the row index the next appended message gets. */
  readonly messageRowCount: number;
  /** `cumulative` of the last usage row; zero when there is none. */
  readonly cumulativeUsage: Usage;
  /** True when a compaction row shaped the transcript. */
  readonly compacted: boolean;
  /** Message rows since the last compaction left out by the resume budget. */
  readonly leftOutRows: number;
  readonly warnings: readonly SessionWarning[];
  /** The listing summary of the file (for its index). */
  readonly summary: SummaryState;
  /** Bytes in the file after any repair (always ends with "\n"). */
  readonly size: number;
}

export interface LoadOptions {
  /** Fix the file's tail (torn last line, missing newline). Default true. */
  readonly repair?: boolean;
  /** Default RESUME_BUDGET_BYTES. */
  readonly budgetBytes?: number;
}

export function sessionFsError(path: string, err: unknown, action: string): SessionError {
  if (err instanceof SessionError) return err;
  if (err instanceof NotRegularFileError) return new SessionError("unreadable", path, "not a regular file", {}, { cause: err });
  const code = systemErrorCode(err);
  if (code === "ENOENT") return new SessionError("not_found", path, "session file not found", {}, { cause: err });
  return new SessionError("unreadable", path, `cannot ${action} session file (${code ?? "error"})`, {}, { cause: err });
}

interface Pending {
  readonly line: number;
  readonly row: number;
  readonly bytes: number;
  text?: string;
  message?: Message;
}

/** The message window since the last compaction, trimmed to a byte budget from the front. */
class MessageWindow {
  #items: Pending[] = [];
  #head = 0;
  #bytes = 0;
  trimmed = false;

  constructor(readonly budget: number) {}

  push(item: Pending): void {
    this.#items.push(item);
    this.#bytes += item.bytes;
    while (this.#bytes > this.budget && this.#items.length - this.#head > 1) {
      const dropped = this.#items[this.#head++];
      if (dropped === undefined) break;
      // Its text or message goes now; the small record goes at the next #compact.
      dropped.text = undefined;
      dropped.message = undefined;
      this.#bytes -= dropped.bytes;
      this.trimmed = true;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) this.#compact();
  }

  /** Keeps only rows >= keptFrom (a compaction). */
  restartAt(keptFrom: number): void {
    this.#items = this.#items.slice(this.#head).filter((item) => item.row >= keptFrom);
    this.#head = 0;
    this.#bytes = this.#items.reduce((sum, item) => sum + item.bytes, 0);
  }

  items(): Pending[] {
    this.#compact();
    return this.#items;
  }

  #compact(): void {
    this.#items = this.#items.slice(this.#head);
    this.#head = 0;
  }
}

/** Applies the tail repair `scan` asks for through `fd`; returns the file size after it. */
function repairTail(fd: number, path: string, scan: ScanResult): number {
  try {
    if (scan.tail === "torn") {
      ftruncateSync(fd, scan.goodLength);
      return scan.goodLength;
    }
    if (scan.tail === "unterminated") {
      const size = fstatSync(fd).size;
      writeSync(fd, "\n", size);
      return size + 1;
    }
    return fstatSync(fd).size;
  } catch (err) {
    throw new SessionError("write", path, `cannot repair the end of the session file (${systemErrorCode(err) ?? "error"})`, {}, { cause: err });
  }
}

/** Loads the session open as `fd` (read-write when repairing). */
export function loadSessionFd(fd: number, path: string, options: LoadOptions = {}): LoadedSession {
  const warnings = new WarningList();
  const fold = new SummaryFold();
  const window = new MessageWindow(options.budgetBytes ?? RESUME_BUDGET_BYTES);
  let summaryMessage: Message | undefined;
  let keptFloor = 0;
  let compacted = false;
  const foldWarnings = new WarningList();

  const onMessageLine = (line: MessageLine): void => {
    fold.onMessageLine(line, foldWarnings);
    if (fold.hasMeta) window.push({ line: line.line, row: line.row, bytes: line.bytes, text: line.text });
  };
  let scan: ScanResult;
  try {
    scan = scanSessionFd(fd, {
      deferMessages: true,
      warnings,
      onMessageLine,
      onRow: (scanned) => {
        fold.onRow(scanned);
        if (!fold.hasMeta || fold.invalidAt !== undefined) return;
        const { row, line, messagesBefore, bytes } = scanned;
        if (row.type === "message") {
          window.push({ line, row: messagesBefore, bytes, message: row.message });
        } else if (row.type === "compaction") {
          const keptFrom = Math.min(Math.max(row.kept_from, keptFloor), messagesBefore);
          if (keptFrom !== row.kept_from) warnings.add(line, `compaction kept_from ${row.kept_from} out of range, using ${keptFrom}`);
          keptFloor = keptFrom;
          compacted = true;
          summaryMessage = row.message;
          window.restartAt(keptFrom);
        }
      },
    });
  } catch (err) {
    throw sessionFsError(path, err, "read");
  }
  const summary = fold.state(scan.messageRowCount);
  if (summary === undefined) {
    throw new SessionError("invalid", path, "not a session file (line 1 is not a meta row)", { line: fold.invalidAt ?? 1 });
  }
  const size = options.repair === false ? scan.goodLength : repairTail(fd, path, scan);

  let entries: TranscriptEntry[] = [];
  for (const item of window.items()) {
    let message = item.message;
    if (message === undefined && item.text !== undefined) {
      const parsed = parseLine(item.text, item.line, item.row, warnings);
      item.text = undefined;
      if (parsed?.row.type === "message") message = parsed.row.message;
    }
    if (message !== undefined && message.content.length > 0) entries.push({ message, row: item.row });
  }
  // A long read leaves its lines (and the parsed-over window) as garbage: collect it before the run starts.
  if (size >= COLLECT_EVERY_BYTES) Bun.gc(true);
  let leftOutRows = 0;
  if (window.trimmed) {
    const firstUser = entries.findIndex((entry) => entry.message.role === "user");
    if (firstUser > 0) entries = entries.slice(firstUser);
    leftOutRows = Math.max(0, (entries[0]?.row ?? scan.messageRowCount) - keptFloor);
    const mib = 1024 * 1024;
    const budget = window.budget >= mib ? `${Math.round(window.budget / mib)} MiB` : `${window.budget}-byte`;
    warnings.add(
      0,
      `resumed the newest messages only: ${leftOutRows} older message row(s) since ${compacted ? "the last compaction" : "the start"} ` +
        `are beyond the ${budget} resume budget (they stay in the file)`,
    );
  }
  if (summaryMessage !== undefined) entries.unshift({ message: summaryMessage, row: null });

  const repaired = repairToolPairing(entries);
  const allWarnings = warnings.list();
  if (repaired.stubbedCalls.length > 0) {
    allWarnings.push({ line: 0, message: `stub results added for ${repaired.stubbedCalls.length} unanswered tool call(s)` });
  }
  if (repaired.droppedResults.length > 0) {
    allWarnings.push({ line: 0, message: `${repaired.droppedResults.length} orphan tool result(s) dropped` });
  }
  return {
    path,
    meta: summary.meta,
    messages: repaired.entries.map((entry) => entry.message),
    messageRows: repaired.entries.map((entry) => entry.row),
    messageRowCount: scan.messageRowCount,
    cumulativeUsage: summary.cumulative,
    compacted,
    leftOutRows,
    warnings: allWarnings,
    summary,
    size,
  };
}

/**
 * Opens, loads (and by default repairs) a session file; no lock is taken. A
 * file zot may not write is loaded without repair.
 */
export function loadSession(path: string, options: LoadOptions = {}): LoadedSession {
  let fd: number;
  let repair = options.repair !== false;
  try {
    fd = openRegular(path, repair ? constants.O_RDWR : constants.O_RDONLY);
  } catch (err) {
    const code = systemErrorCode(err);
    if (!repair || (code !== "EACCES" && code !== "EPERM" && code !== "EROFS")) throw sessionFsError(path, err, "open");
    repair = false;
    try {
      fd = openRegular(path, constants.O_RDONLY);
    } catch (again) {
      throw sessionFsError(path, again, "open");
    }
  }
  try {
    return loadSessionFd(fd, path, { ...options, repair });
  } finally {
    closeSync(fd);
  }
}
