/**
 * SessionWriter appends rows (format.ts) to one session file as the
 * conversation happens. Each row is one line written by one write(2) on an
 * O_APPEND descriptor, nothing is buffered across rows, so a crash (even
 * kill -9) loses at most the line being written; loadSession repairs that.
 * create() makes a new file with O_EXCL (0644) and writes the meta row at
 * once; openExisting() repairs a torn tail and appends after it. close()
 * deletes a file this writer created if no message was ever appended.
 * If another zot prunes our still message-less file, the next append
 * recreates it (meta first) instead of writing into an unlinked inode.
 * Failures throw SessionError.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync, unlinkSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { systemErrorCode } from "../common/errors.ts";
import { zotPaths } from "../common/home.ts";
import { ZOT_VERSION } from "../common/version.ts";
import type { Message, Usage } from "../providers/types.ts";
import { SessionError } from "./errors.ts";
import { serializeRow, type SessionMeta, type SessionRow } from "./format.ts";
import { assembleSession, readSessionFile, repairTail } from "./load.ts";
import { sessionDirForCwd, sessionFileName } from "./paths.ts";
import { scanSession } from "./scan.ts";

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

const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND;
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND;
const FILE_MODE = 0o644;
const CREATE_ATTEMPTS = 5;

function openFile(path: string, flags: number): number {
  try {
    return openSync(path, flags, FILE_MODE);
  } catch (err) {
    const code = systemErrorCode(err);
    if (code === "EEXIST") throw new SessionError("exists", path, "session file already exists", {}, { cause: err });
    if (code === "ENOENT") throw new SessionError("not_found", path, "session file not found", {}, { cause: err });
    throw new SessionError("unreadable", path, `cannot open session file (${code ?? "error"})`, {}, { cause: err });
  }
}

function writeLine(fd: number, path: string, line: string): void {
  const bytes = Buffer.from(line, "utf8");
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
  } catch (err) {
    throw new SessionError("write", path, `cannot write session file (${systemErrorCode(err) ?? "error"})`, {}, { cause: err });
  }
}

export class SessionWriter {
  #fd: number | undefined;
  #meta: SessionMeta;
  #messageRowCount: number;
  #appendedMessages = 0;
  #created: boolean;

  private constructor(
    readonly path: string,
    fd: number,
    meta: SessionMeta,
    messageRowCount: number,
    created: boolean,
  ) {
    this.#created = created;
    this.#fd = fd;
    this.#meta = meta;
    this.#messageRowCount = messageRowCount;
  }

  /** Creates a new session file for `options.cwd` and writes its meta row. */
  static create(options: NewSessionOptions): SessionWriter {
    const dir = sessionDirForCwd(options.cwd, options.sessionsRoot ?? zotPaths().sessions);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o755 });
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
      };
      let fd: number;
      try {
        fd = openFile(path, CREATE_FLAGS);
      } catch (err) {
        if (err instanceof SessionError && err.kind === "exists" && attempt < CREATE_ATTEMPTS) continue;
        throw err;
      }
      const writer = new SessionWriter(path, fd, meta, 0, true);
      try {
        writeLine(fd, path, serializeRow({ type: "meta", meta }));
      } catch (err) {
        writer.close();
        throw err;
      }
      return writer;
    }
  }

  /** Opens an existing session file for appending, repairing a torn tail first. */
  static openExisting(path: string): SessionWriter {
    const scan = scanSession(readSessionFile(path));
    const { meta } = assembleSession(path, scan);
    repairTail(path, scan);
    return new SessionWriter(path, openFile(path, APPEND_FLAGS), meta, scan.messageRowCount, false);
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

  /** Closes the file; returns true when it was deleted for holding no message. */
  close(): boolean {
    const fd = this.#fd;
    if (fd === undefined) return false;
    this.#fd = undefined;
    closeSync(fd);
    if (!this.#created || this.#appendedMessages > 0) return false;
    try {
      unlinkSync(this.path);
    } catch (err) {
      if (systemErrorCode(err) !== "ENOENT") {
        throw new SessionError("write", this.path, `cannot delete empty session file (${systemErrorCode(err) ?? "error"})`, {}, { cause: err });
      }
    }
    return true;
  }

  #write(row: SessionRow): void {
    let fd = this.#fd;
    if (fd === undefined) throw new SessionError("closed", this.path, "session writer is closed");
    if (this.#messageRowCount === 0 && fstatSync(fd).nlink === 0) fd = this.#recreate(fd);
    writeLine(fd, this.path, serializeRow(row));
  }

  /** Our message-less file was pruned by another process: start it again. */
  #recreate(stale: number): number {
    closeSync(stale);
    this.#fd = undefined;
    const fd = openFile(this.path, CREATE_FLAGS);
    this.#fd = fd;
    this.#created = true;
    writeLine(fd, this.path, serializeRow({ type: "meta", meta: this.#meta }));
    return fd;
  }
}
