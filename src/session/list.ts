/**
 * Finding sessions: listSessions summarises every session file of one cwd
 * directory (newest modified first, ties by file name descending);
 * latestSession picks the one `--continue` resumes; pickSession prints a
 * numbered list to a writable (stderr) and reads the choice from a readable
 * (stdin) for `--resume`. Listing only reads: it never repairs files, and
 * files that are not sessions are left out.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { systemErrorCode } from "../common/errors.ts";
import { zotPaths } from "../common/home.ts";
import { emptyUsage, type Usage } from "../providers/types.ts";
import { SessionError } from "./errors.ts";
import { sessionDirForCwd, SESSION_FILE_EXTENSION } from "./paths.ts";
import { scanSession } from "./scan.ts";

export interface SessionSummary {
  readonly path: string;
  readonly id: string;
  /** meta.started (RFC 3339). */
  readonly started: string;
  readonly mtime: Date;
  /** Message rows in the file. */
  readonly messageCount: number;
  /** Text of the first user message ("" when none). */
  readonly firstUserText: string;
  readonly title?: string;
  readonly cumulativeUsage: Usage;
}

/** Summary of one session file; undefined when it is not a readable session. */
export async function summarizeSession(path: string): Promise<SessionSummary | undefined> {
  let bytes: Buffer;
  let mtime: Date;
  try {
    [bytes, mtime] = await Promise.all([readFile(path), stat(path).then((info) => info.mtime)]);
  } catch {
    return undefined;
  }
  const scan = scanSession(bytes);
  const first = scan.rows[0];
  if (!first || first.row.type !== "meta") return undefined;
  let meta = first.row.meta;
  let firstUserText: string | undefined;
  let cumulativeUsage = emptyUsage();
  for (const { row } of scan.rows) {
    if (row.type === "meta") meta = row.meta;
    else if (row.type === "rename") meta = { ...meta, title: row.title };
    else if (row.type === "usage") cumulativeUsage = { ...row.cumulative };
    else if (row.type === "message" && firstUserText === undefined && row.message.role === "user") {
      const text = row.message.content.find((block) => block.type === "text");
      if (text) firstUserText = text.text;
    }
  }
  return {
    path,
    id: meta.id,
    started: meta.started,
    mtime,
    messageCount: scan.messageRowCount,
    firstUserText: firstUserText ?? "",
    ...(meta.title !== undefined ? { title: meta.title } : {}),
    cumulativeUsage,
  };
}

/** Session files (names ending .jsonl) in `dir`; [] when the directory does not exist. */
export async function sessionFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if (systemErrorCode(err) === "ENOENT") return [];
    throw new SessionError("unreadable", dir, `cannot list sessions (${systemErrorCode(err) ?? "error"})`, {}, { cause: err });
  }
  return names.filter((name) => name.endsWith(SESSION_FILE_EXTENSION) && !name.startsWith(".")).map((name) => join(dir, name));
}

/** Every session in `dir` (one cwd's directory), newest modified first. */
export async function listSessions(dir: string): Promise<SessionSummary[]> {
  const summaries = await Promise.all((await sessionFiles(dir)).map(summarizeSession));
  const sessions = summaries.filter((summary): summary is SessionSummary => summary !== undefined);
  return sessions.sort((a, b) => b.mtime.getTime() - a.mtime.getTime() || (a.path < b.path ? 1 : a.path > b.path ? -1 : 0));
}

/** The session `--continue` resumes: newest modified one holding at least one message. */
export async function latestSession(cwd: string, sessionsRoot: string = zotPaths().sessions): Promise<SessionSummary | undefined> {
  const sessions = await listSessions(sessionDirForCwd(cwd, sessionsRoot));
  return sessions.find((session) => session.messageCount > 0);
}

export interface PickerIO {
  readonly input: NodeJS.ReadableStream;
  readonly output: { write(text: string): unknown };
}

const LABEL_WIDTH = 70;

function pad2(value: number): string {
  return String(value).padStart(2, "0");
}

function localTime(at: Date): string {
  return `${at.getFullYear()}-${pad2(at.getMonth() + 1)}-${pad2(at.getDate())} ${pad2(at.getHours())}:${pad2(at.getMinutes())}`;
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
