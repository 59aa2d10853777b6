/**
 * Finding sessions, reading a bounded amount of each file. listSessions
 * summarises every session file of one cwd directory (newest modified
 * first, ties by file name descending) from its index file (index-file.ts)
 * plus the rows appended since; a file without a valid index is read once in
 * full, in bounded memory, and indexed when that read was long.
 * latestSession, what `--continue` resumes, reads only the head of each
 * file, newest first, until one holds a message row. pickSession prints a
 * numbered list to a writable (stderr) and reads the choice from a readable
 * (stdin) for the headless `--resume` (it shows the file's message rows;
 * the chat screen's picker shows what resuming restores: restored.ts). Listing never repairs session files, and files
 * that are not sessions are left out.
 */
import { fstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { systemErrorCode } from "../common/errors.ts";
import { localMinuteText } from "../common/local-time.ts";
import { yieldToEventLoop } from "../common/yield.ts";
import { zotPaths } from "../common/home.ts";
import type { Usage } from "../providers/types.ts";
import { SessionError } from "./errors.ts";
import { withRegularFile } from "../common/regular-file.ts";
import { readIndex, writeIndex } from "./index-file.ts";
import { sessionDirForCwd, SESSION_FILE_EXTENSION } from "./paths.ts";
import { scanSessionFd, WarningList } from "./scan.ts";
import { SummaryFold } from "./summary.ts";

export interface SessionSummary {
  readonly path: string;
  readonly id: string;
  /** meta.started (RFC 3339). */
  readonly started: string;
  /** The last meta row's provider and model. */
  readonly provider: string;
  readonly model: string;
  readonly mtime: Date;
  /** Message rows in the file (what a resume restores can differ: restored.ts). */
  readonly messageCount: number;
  /** Text of the first user message ("" when none), at most FIRST_USER_TEXT_MAX characters. */
  readonly firstUserText: string;
  readonly title?: string;
  /** meta.parent: the session this one was forked from (by its id). */
  readonly parent?: string;
  readonly cumulativeUsage: Usage;
}

/** A file read without an index for at least this many bytes gets one. */
export const INDEX_AFTER_BYTES = 1024 * 1024;

/** Summary of one session file; undefined when it is not a readable session. */
export function summarizeSession(path: string): SessionSummary | undefined {
  return withRegularFile(path, undefined, (fd) => {
    const mtime = fstatSync(fd).mtime;
    const index = readIndex(path, fd);
    const fold = new SummaryFold(index?.summary);
    const warnings = new WarningList();
    const from = index?.size ?? 0;
    const scan = scanSessionFd(fd, {
      from,
      messagesBefore: index?.summary.messageRowCount ?? 0,
      deferMessages: true,
      warnings,
      onRow: (row) => fold.onRow(row),
      onMessageLine: (line) => fold.onMessageLine(line, warnings),
    });
    const state = fold.state(scan.messageRowCount);
    if (state === undefined) return undefined;
    if (scan.terminatedEnd - from >= INDEX_AFTER_BYTES && scan.goodLength === scan.terminatedEnd) {
      writeIndex(path, fd, { size: scan.terminatedEnd, summary: state });
    }
    return {
      path,
      id: state.meta.id,
      started: state.meta.started,
      provider: state.meta.provider,
      model: state.meta.model,
      mtime,
      messageCount: state.messageRowCount,
      firstUserText: state.firstUserText ?? "",
      ...(state.meta.title !== undefined ? { title: state.meta.title } : {}),
      ...(state.meta.parent !== undefined ? { parent: state.meta.parent } : {}),
      cumulativeUsage: state.cumulative,
    };
  });
}

export type SessionHead = "messages" | "empty" | "not_session";

/**
 * Reads a session file from its start until its first message row: whether
 * it holds one ("messages"), has a meta row and none ("empty"), or is not a
 * session. Only a file with no message row is read to its end.
 */
export function sessionHead(path: string): SessionHead {
  return withRegularFile(path, "not_session", (fd): SessionHead => {
    const fold = new SummaryFold();
    let sawMessage = false;
    let messageFirst = false;
    scanSessionFd(fd, {
      deferMessages: true,
      warnings: new WarningList(),
      onRow: (row) => {
        fold.onRow(row);
        if (row.row.type === "message") sawMessage = true;
      },
      onMessageLine: () => {
        if (!fold.hasMeta) messageFirst = true;
        sawMessage = true;
      },
      keepGoing: () => !sawMessage && fold.invalidAt === undefined,
    });
    if (!fold.hasMeta || messageFirst || fold.invalidAt !== undefined) return "not_session";
    return sawMessage ? "messages" : "empty";
  });
}

/**
 * Session files (names ending .jsonl) in `dir`; [] when the directory does
 * not exist. The listing is synchronous (one directory of one cwd): an
 * asynchronous readdir would start the runtime's fs worker threads in a
 * print run that needs no other asynchronous file work (pruning calls this
 * at every session start; docs/benchmarks.md, "Sixth pass").
 */
export async function sessionFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if (systemErrorCode(err) === "ENOENT") return [];
    throw new SessionError("unreadable", dir, `cannot list sessions (${systemErrorCode(err) ?? "error"})`, {}, { cause: err });
  }
  return names.filter((name) => name.endsWith(SESSION_FILE_EXTENSION) && !name.startsWith(".")).map((name) => join(dir, name));
}

function byNewest<T extends { readonly path: string; readonly mtime: Date }>(a: T, b: T): number {
  return b.mtime.getTime() - a.mtime.getTime() || (a.path < b.path ? 1 : a.path > b.path ? -1 : 0);
}

/** Every session in `dir` (one cwd's directory), newest modified first. */
export async function listSessions(dir: string): Promise<SessionSummary[]> {
  const sessions: SessionSummary[] = [];
  for (const path of await sessionFiles(dir)) {
    const summary = summarizeSession(path);
    if (summary !== undefined) sessions.push(summary);
    await yieldToEventLoop();
  }
  return sessions.sort(byNewest);
}

export interface LatestSession {
  readonly path: string;
  readonly mtime: Date;
}

/** The session `--continue` resumes: the newest modified one holding at least one message row. */
export async function latestSession(cwd: string, sessionsRoot: string = zotPaths().sessions): Promise<LatestSession | undefined> {
  const files: LatestSession[] = [];
  for (const path of await sessionFiles(sessionDirForCwd(cwd, sessionsRoot))) {
    try {
      files.push({ path, mtime: statSync(path).mtime });
    } catch {
      // gone meanwhile
    }
  }
  for (const file of files.sort(byNewest)) {
    if (sessionHead(file.path) === "messages") return file;
  }
  return undefined;
}

export interface PickerIO {
  readonly input: NodeJS.ReadableStream;
  readonly output: { write(text: string): unknown };
}

const LABEL_WIDTH = 70;

export function localTime(at: Date): string {
  return localMinuteText(at);
}

/** One-line label of a session: its title, else its first user text. */
export function sessionLabel(session: SessionSummary): string {
  const raw = session.title || session.firstUserText || "(no messages)";
  const line = raw.replace(/\s+/g, " ").trim();
  return line.length > LABEL_WIDTH ? `${line.slice(0, LABEL_WIDTH - 1)}…` : line;
}

/**
 * Prints `sessions` as a numbered list and reads choices until a valid number
 * (returns that session), an empty line or "q", or end of input (undefined).
 */
export async function pickSession(sessions: readonly SessionSummary[], io: PickerIO): Promise<SessionSummary | undefined> {
  if (sessions.length === 0) {
    io.output.write("no sessions to resume\n");
    return undefined;
  }
  // Loaded here, not at import: node:readline is slow to load and only --resume needs it.
  const { createInterface } = await import("node:readline");
  sessions.forEach((session, index) => {
    const count = `${session.messageCount} msg${session.messageCount === 1 ? "" : "s"}`;
    io.output.write(`${String(index + 1).padStart(3)}) ${localTime(session.mtime)}  ${count.padEnd(9)} ${sessionLabel(session)}\n`);
  });
  const prompt = `resume which session? [1-${sessions.length}, empty to cancel]: `;
  io.output.write(prompt);
  const reader = createInterface({ input: io.input, terminal: false });
  try {
    for await (const line of reader) {
      const answer = line.trim();
      if (answer === "" || answer.toLowerCase() === "q") return undefined;
      const choice = /^\d+$/.test(answer) ? Number(answer) : NaN;
      const picked = sessions[choice - 1];
      if (picked && choice >= 1) return picked;
      io.output.write(`not a choice: ${answer}\n${prompt}`);
    }
    return undefined;
  } finally {
    reader.close();
  }
}
