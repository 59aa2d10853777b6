/**
 * Forking a session (`zot --fork <path>`): a new session in the cwd's
 * directory whose meta names the source as `parent` and the number of
 * message rows copied as `fork_point` (as the original zot's branch), and
 * which holds a verbatim copy of the source's rows other than meta and
 * rename rows: messages, usage (so the cost carries over), compactions.
 * The source is only read, never locked, so a session another zot is
 * writing can be forked: the copy ends at the source's last complete line at
 * the time. The source is read twice (count, then copy), in bounded memory;
 * a message line too long to read is copied as an empty message row, which
 * keeps the row numbering that compaction rows refer to. The new session is
 * then loaded like a resumed one (load.ts).
 */
import { closeSync, constants } from "node:fs";
import { SessionError } from "./errors.ts";
import { openRegular } from "../common/regular-file.ts";
import type { SessionMeta } from "./format.ts";
import { peekRowType, readLines, type SessionLine } from "./lines.ts";
import { sessionFsError, type LoadOptions } from "./load.ts";
import { decodeLine, parseLine, WarningList } from "./scan.ts";
import { SessionWriter, type NewSessionOptions, type ResumedSession } from "./writer.ts";

const PLACEHOLDER_MESSAGE_ROW = '{"type":"message","message":{"role":"user","content":[],"time":""}}\n';
const COPY_BATCH_BYTES = 1024 * 1024;

function lineType(line: SessionLine): string | undefined {
  const declared = peekRowType(line.prefix);
  if (declared !== undefined || line.text === undefined) return declared;
  const decoded = decodeLine(line.text, undefined);
  if (!decoded.ok || typeof decoded.raw !== "object" || decoded.raw === null || !("type" in decoded.raw)) return undefined;
  return typeof decoded.raw.type === "string" ? decoded.raw.type : undefined;
}

function copied(type: string | undefined): boolean {
  return type !== "meta" && type !== "rename";
}

interface SourcePlan {
  readonly meta: SessionMeta;
  readonly messageRows: number;
  /** Copy lines ending at or before this offset. */
  readonly end: number;
}

function planFork(fd: number, path: string): SourcePlan {
  let meta: SessionMeta | undefined;
  let messageRows = 0;
  let end = 0;
  let invalid = false;
  let title: string | undefined;
  readLines(fd, {}, (line) => {
    if (!line.terminated) return false;
    if (meta === undefined) {
      const first = line.text === undefined ? undefined : parseLine(line.text, line.line, 0, new WarningList());
      if (first === undefined) return true; // unusable lines before the meta row are skipped, as on load
      if (first.row.type !== "meta") {
        invalid = true;
        return false;
      }
      meta = first.row.meta;
      end = line.end;
      return true;
    }
    const type = lineType(line);
    if (type === "message") messageRows++;
    else if ((type === "rename" || type === "meta") && line.text !== undefined) {
      // The title the picker shows is the last rename (or a later meta row's): an import keeps it.
      const row = parseLine(line.text, line.line, 0, new WarningList())?.row;
      if (row?.type === "rename") title = row.title;
      else if (row?.type === "meta" && row.meta.title !== undefined) title = row.meta.title;
    }
    end = line.end;
    return true;
  });
  if (meta === undefined || invalid) throw new SessionError("invalid", path, "not a session file (line 1 is not a meta row)");
  return { meta: title === undefined ? meta : { ...meta, title }, messageRows, end };
}

function copyRows(fd: number, plan: SourcePlan, writer: SessionWriter): void {
  let batch: string[] = [];
  let batchBytes = 0;
  const flush = (): void => {
    if (batch.length === 0) return;
    writer.appendRawLines(Buffer.from(batch.join(""), "utf8"));
    batch = [];
    batchBytes = 0;
  };
  let metaSeen = false;
  readLines(fd, {}, (line) => {
    if (line.end > plan.end) return false;
    const type = lineType(line);
    if (!metaSeen) {
      metaSeen = type === "meta";
      return true;
    }
    if (!copied(type)) return true;
    const text = line.text === undefined ? (type === "message" ? PLACEHOLDER_MESSAGE_ROW : "") : `${line.text}\n`;
    batch.push(text);
    batchBytes += text.length;
    if (batchBytes >= COPY_BATCH_BYTES) flush();
    return true;
  });
  flush();
}

/** Creates a fork of the session at `sourcePath` and opens it like a resumed session. */
export function forkSession(sourcePath: string, options: NewSessionOptions & LoadOptions): ResumedSession {
  return copySession(sourcePath, (source) => ({ ...options, parent: source.meta.id, forkPoint: source.messageRows }), options);
}

/** What copySession knows of the source when it creates the copy. */
export interface CopySource {
  readonly meta: SessionMeta;
  readonly messageRows: number;
}

/**
 * Copies the rows of the session at `sourcePath` (as a fork does) into a
 * new session whose meta `newSession` chooses, and opens it like a resumed
 * one; `/session import` uses it with no lineage.
 */
export function copySession(sourcePath: string, newSession: (source: CopySource) => NewSessionOptions, options: LoadOptions = {}): ResumedSession {
  let fd: number;
  try {
    fd = openRegular(sourcePath, constants.O_RDONLY);
  } catch (err) {
    throw sessionFsError(sourcePath, err, "open");
  }
  let writer: SessionWriter | undefined;
  try {
    const plan = planFork(fd, sourcePath);
    writer = SessionWriter.create(newSession({ meta: plan.meta, messageRows: plan.messageRows }));
    copyRows(fd, plan, writer);
    return SessionWriter.adoptFilled(writer, options);
  } catch (err) {
    writer?.close();
    throw err instanceof SessionError ? err : sessionFsError(sourcePath, err, "read");
  } finally {
    closeSync(fd);
  }
}
