/**
 * SessionWriter appends rows (format.ts) to one session file as the
 * conversation happens. Each row is one line written by one write(2) on an
 * O_APPEND descriptor, nothing is buffered across rows, so a crash (even
 * kill -9) loses at most the line being written; loading repairs that.
 *
 * Privacy: files are created 0600 in 0700 directories; an existing file
 * opened for appending is tightened to 0600 (common/private.ts).
 * One writer per file: every writer holds the session's exclusive lock
 * (lock.ts) from open to close; opening a session another zot holds throws
 * SessionError "busy" naming that zot's pid and the `zot --fork` remedy.
 *
 * create() makes a new file with O_EXCL and writes the meta row at once;
 * resume() locks an existing file, loads it (load.ts, streaming, repairing a
 * torn tail) and appends after it; fork() (fork.ts) copies a session into a
 * new one. The writer keeps the file's index (index-file.ts) current: on
 * resume and fork, on close, and after a usage row once the file has grown by
 * INDEX_REFRESH_BYTES since the index last covered it (so a live session's
 * listing reads at most that much past its index, and a long session does not
 * rewrite a file per model call). A file create() made gets its first index
 * at one of those points, not at once: until then listing reads it whole
 * (it is under INDEX_REFRESH_BYTES), and a zot refused by its lock learns the
 * holder's pid from the kernel (lock.ts). close() deletes a file this
 * writer created if no message was ever appended. If another zot prunes our
 * still message-less file, the next append recreates it (meta first)
 * instead of writing into an unlinked inode. Failures throw SessionError.
 */
import { closeSync, constants, fstatSync, unlinkSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { systemErrorCode } from "../common/errors.ts";
import { zotPaths } from "../common/home.ts";
import { ensurePrivateDirs, PRIVATE_FILE_MODE, tightenFd } from "../common/private.ts";
import { ZOT_VERSION } from "../common/version.ts";
import { emptyUsage, type Message, type Usage } from "../providers/types.ts";
import { SessionError } from "./errors.ts";
import { openRegular } from "../common/regular-file.ts";
import { serializeRow, type SessionMeta, type SessionRow } from "./format.ts";
import { removeIndex, writeIndex } from "./index-file.ts";
import { loadSessionFd, sessionFsError, type LoadedSession, type LoadOptions } from "./load.ts";
import { lockSession, type SessionLock } from "./lock.ts";
import { sessionDirForCwd, sessionFileName } from "./paths.ts";
import { SummaryFold, type SummaryState } from "./summary.ts";

export interface NewSessionOptions {
  readonly cwd: string;
  readonly model: string;
  readonly provider: string;
  /** Default: zotPaths().sessions. */
  readonly sessionsRoot?: string;
  /** Default: ZOT_VERSION. */
  readonly version?: string;
  readonly title?: string;
  readonly parent?: string;
  readonly forkPoint?: number;
  /** A subagent's session: its agent_id (with `parent` the parent conversation's id). */
  readonly agentId?: string;
  /** Start time; default now. */
  readonly now?: Date;
}

export interface CompactionRecord {
  /** The summary user message that replaces the compacted history. */
  readonly summary: Message;
  /** Row index of the first kept message (see appendMessage / LoadedSession.messageRows). */
  readonly keptFrom: number;
  readonly tokensBefore?: number;
}

export type MetaUpdate = Partial<Omit<SessionMeta, "id">>;

export interface ResumedSession {
  readonly writer: SessionWriter;
  readonly loaded: LoadedSession;
}

const CREATE_FLAGS = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND;
const APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND;
const CREATE_ATTEMPTS = 5;
/** After a usage row the index is rewritten only once the file has grown this much past it. */
export const INDEX_REFRESH_BYTES = 256 * 1024;

function openFile(path: string, flags: number): number {
  try {
    return openRegular(path, flags, PRIVATE_FILE_MODE);
  } catch (err) {
    if (systemErrorCode(err) === "EEXIST") throw new SessionError("exists", path, "session file already exists", {}, { cause: err });
    throw sessionFsError(path, err, "open");
  }
}

function writeBytes(fd: number, path: string, bytes: Uint8Array): void {
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
  } catch (err) {
    throw new SessionError("write", path, `cannot write session file (${systemErrorCode(err) ?? "error"})`, {}, { cause: err });
  }
}

/** `path` as one shell word. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

/** Takes the session lock on `fd` or throws SessionError "busy" (closing `fd`). */
function lockOrThrow(fd: number, path: string): SessionLock {
  const attempt = lockSession(fd, path);
  if (attempt.ok) return attempt.lock;
  closeSync(fd);
  if (attempt.reason === "error") {
    throw new SessionError("unreadable", path, `cannot lock session file (${attempt.code})`);
  }
  const holder = attempt.holderPid === undefined ? "another zot" : `another zot (pid ${attempt.holderPid})`;
  throw new SessionError(
    "busy",
    path,
    `in use by ${holder}; to continue from it in a new session, run: zot --fork ${shellWord(path)}`,
    attempt.holderPid === undefined ? {} : { pid: attempt.holderPid },
  );
}

interface WriterState {
  readonly fd: number;
  readonly lock: SessionLock;
  readonly meta: SessionMeta;
  readonly summary: SummaryState;
  readonly size: number;
  readonly created: boolean;
}

export class SessionWriter {
  #fd: number | undefined;
  #lock: SessionLock;
  #meta: SessionMeta;
  #messageRowCount: number;
  #appendedMessages = 0;
  #created: boolean;
  #size: number;
  /** File size the index last written by this writer covers (-1: none written yet). */
  #indexedSize = -1;
  /** The listing summary of the rows on disk, for the index. */
  #summary: SummaryFold;

  private constructor(readonly path: string, state: WriterState) {
    this.#fd = state.fd;
    this.#lock = state.lock;
    this.#meta = state.meta;
    this.#messageRowCount = state.summary.messageRowCount;
    this.#created = state.created;
    this.#size = state.size;
    this.#summary = new SummaryFold(state.summary);
  }

  /** Creates a new session file for `options.cwd` and writes its meta row. */
  static create(options: NewSessionOptions): SessionWriter {
    const root = options.sessionsRoot ?? zotPaths().sessions;
    const dir = sessionDirForCwd(options.cwd, root);
    try {
      ensurePrivateDirs([root, dir]);
    } catch (err) {
      throw new SessionError("write", dir, `cannot create sessions directory (${systemErrorCode(err) ?? "error"})`, {}, { cause: err });
    }
    const started = options.now ?? new Date();
    for (let attempt = 1; ; attempt++) {
      const id = crypto.randomUUID();
      const path = join(dir, sessionFileName(started, id));
      const meta: SessionMeta = {
        id,
        cwd: resolve(options.cwd),
        model: options.model,
        provider: options.provider,
        started: started.toISOString(),
        version: options.version ?? ZOT_VERSION,
        ...(options.title !== undefined ? { title: options.title } : {}),
        ...(options.parent !== undefined ? { parent: options.parent } : {}),
        ...(options.forkPoint !== undefined ? { fork_point: options.forkPoint } : {}),
        ...(options.agentId !== undefined ? { agent_id: options.agentId } : {}),
      };
      let fd: number;
      try {
        fd = openFile(path, CREATE_FLAGS);
      } catch (err) {
        if (err instanceof SessionError && err.kind === "exists" && attempt < CREATE_ATTEMPTS) continue;
        throw err;
      }
      const lock = lockOrThrow(fd, path);
      const summary: SummaryState = { meta, messageRowCount: 0, searchedRows: 0, cumulative: emptyUsage() };
      const writer = new SessionWriter(path, { fd, lock, meta, summary, size: 0, created: true });
      try {
        writer.#write({ type: "meta", meta });
      } catch (err) {
        writer.close();
        throw err;
      }
      return writer;
    }
  }

  /** Locks an existing session file, loads it (repairing a torn tail) and opens it for appending. */
  static resume(path: string, options: LoadOptions = {}): ResumedSession {
    const fd = openFile(path, APPEND_FLAGS);
    const lock = lockOrThrow(fd, path);
    tightenFd(fd);
    let loaded: LoadedSession;
    try {
      loaded = loadSessionFd(fd, path, { ...options, repair: true });
    } catch (err) {
      lock.release();
      closeSync(fd);
      throw err;
    }
    const writer = new SessionWriter(path, { fd, lock, meta: loaded.meta, summary: loaded.summary, size: loaded.size, created: false });
    writer.#saveIndex(true);
    return { writer, loaded };
  }

  /** resume() without the transcript. */
  static openExisting(path: string): SessionWriter {
    return SessionWriter.resume(path).writer;
  }

  /** For fork.ts: a writer over a new file it filled (rows already on disk), loaded from it. */
  static adoptFilled(created: SessionWriter, options: LoadOptions = {}): ResumedSession {
    const fd = created.#fd;
    if (fd === undefined) throw new SessionError("closed", created.path, "session writer is closed");
    const loaded = loadSessionFd(fd, created.path, { ...options, repair: true });
    created.#meta = loaded.meta;
    created.#messageRowCount = loaded.messageRowCount;
    created.#size = loaded.size;
    created.#summary = new SummaryFold(loaded.summary);
    if (loaded.messageRowCount > 0) created.#appendedMessages = loaded.messageRowCount;
    created.#saveIndex(true);
    return { writer: created, loaded };
  }

  get meta(): SessionMeta {
    return this.#meta;
  }

  get id(): string {
    return this.#meta.id;
  }

  /** Message rows in the file: the row index the next appended message gets. */
  get messageRowCount(): number {
    return this.#messageRowCount;
  }

  /** Messages appended through this writer. */
  get appendedMessages(): number {
    return this.#appendedMessages;
  }

  /** True when this writer created the file (and so may delete it on close). */
  get created(): boolean {
    return this.#created;
  }

  get closed(): boolean {
    return this.#fd === undefined;
  }

  /** Appends a message row; returns its row index. */
  appendMessage(message: Message): number {
    this.#write({ type: "message", message });
    this.#appendedMessages++;
    return this.#messageRowCount++;
  }

  /** Appends the usage of one model call and the running total after it. */
  appendUsage(turn: Usage, cumulative: Usage): void {
    this.#write({ type: "usage", usage: turn, cumulative });
    if (this.#size - this.#indexedSize >= INDEX_REFRESH_BYTES) this.#saveIndex(true);
  }

  /** Records a compaction: on load the transcript restarts from the summary + rows >= keptFrom. */
  appendCompaction(record: CompactionRecord): void {
    if (!Number.isInteger(record.keptFrom) || record.keptFrom < 0 || record.keptFrom > this.#messageRowCount) {
      throw new SessionError("write", this.path, `compaction keptFrom ${record.keptFrom} is outside 0..${this.#messageRowCount}`);
    }
    this.#write(
      record.tokensBefore === undefined
        ? { type: "compaction", message: record.summary, kept_from: record.keptFrom }
        : { type: "compaction", message: record.summary, kept_from: record.keptFrom, tokens_before: record.tokensBefore },
    );
  }

  /** Writes a complete meta row with `update` applied (model switch, rename); returns it. */
  appendMeta(update: MetaUpdate): SessionMeta {
    const meta: SessionMeta = { ...this.#meta, ...update, id: this.#meta.id };
    this.#write({ type: "meta", meta });
    this.#meta = meta;
    return meta;
  }

  /** Appends a rename row (the title listing shows from now on, as the original zot's `/sessions` rename). */
  appendRename(title: string): void {
    this.#write({ type: "rename", title });
    this.#meta = { ...this.#meta, title };
    this.#saveIndex(true);
  }

  /** Appends raw, already-serialised lines (fork.ts copies rows verbatim; adoptFilled recounts them). */
  appendRawLines(bytes: Uint8Array): void {
    const fd = this.#fd;
    if (fd === undefined) throw new SessionError("closed", this.path, "session writer is closed");
    writeBytes(fd, this.path, bytes);
    this.#size += bytes.length;
  }

  /** Closes the file and releases its lock; returns true when it was deleted for holding no message. */
  close(): boolean {
    const fd = this.#fd;
    if (fd === undefined) return false;
    const remove = this.#created && this.#appendedMessages === 0;
    if (!remove) this.#saveIndex(false);
    this.#fd = undefined;
    if (remove) {
      try {
        unlinkSync(this.path);
      } catch (err) {
        if (systemErrorCode(err) !== "ENOENT") {
          this.#lock.release();
          closeSync(fd);
          throw new SessionError("write", this.path, `cannot delete empty session file (${systemErrorCode(err) ?? "error"})`, {}, { cause: err });
        }
      }
      removeIndex(this.path);
    }
    this.#lock.release();
    closeSync(fd);
    return remove;
  }

  /** Rewrites the index when the file holds exactly what this writer knows of. */
  #saveIndex(withPid: boolean): void {
    const fd = this.#fd;
    if (fd === undefined) return;
    let size: number;
    try {
      size = fstatSync(fd).size;
    } catch {
      return;
    }
    if (size !== this.#size) {
      // Someone else (the original zot takes no lock) appended: the summary may be off.
      removeIndex(this.path);
      return;
    }
    const summary = this.#summary.state(this.#messageRowCount);
    if (summary === undefined) return;
    writeIndex(this.path, fd, withPid ? { size, summary, writerPid: process.pid } : { size, summary });
    this.#indexedSize = size;
  }

  #write(row: SessionRow): void {
    let fd = this.#fd;
    if (fd === undefined) throw new SessionError("closed", this.path, "session writer is closed");
    if (this.#messageRowCount === 0 && fstatSync(fd).nlink === 0) fd = this.#recreate(fd);
    const bytes = Buffer.from(serializeRow(row), "utf8");
    writeBytes(fd, this.path, bytes);
    this.#size += bytes.length;
    this.#summary.apply(row);
  }

  /** Our message-less file was pruned by another process: start it again. */
  #recreate(stale: number): number {
    this.#lock.release();
    closeSync(stale);
    this.#fd = undefined;
    const fd = openFile(this.path, CREATE_FLAGS);
    this.#lock = lockOrThrow(fd, this.path);
    this.#fd = fd;
    this.#created = true;
    this.#size = 0;
    const bytes = Buffer.from(serializeRow({ type: "meta", meta: this.#meta }), "utf8");
    writeBytes(fd, this.path, bytes);
    this.#size = bytes.length;
    return fd;
  }
}
