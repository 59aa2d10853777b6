/**
 * The index of a session file: a small private JSON file beside it,
 * `.<session file name>.idx` (hidden, and not ending in .jsonl, so no session
 * reader takes it for a session), holding the listing summary (summary.ts)
 * of the file's first `size` bytes, plus the pid of the zot writing it and
 * (listing's cache, restored.ts) how many messages resuming those bytes
 * restores. It
 * lets listing read a few hundred bytes instead of the whole transcript.
 *
 * It is a cache, never the truth: it is used only when the session file is
 * still the same inode, at least `size` bytes long, and its bytes just
 * before `size` hash to `tail_hash`; then only the rows after `size` are
 * read. Otherwise the file is read in full (bounded memory) as if there
 * were no index. Session files are append-only apart from a torn last line,
 * which always lies after an index's `size`. Written by the session writer
 * (on open, after usage rows, on close) and by listing after a long read;
 * writes are atomic (temp + rename, 0600) and best effort: a failure is
 * ignored.
 */
import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as v from "valibot";
import { parseJson } from "../common/json.ts";
import { PRIVATE_FILE_MODE } from "../common/private.ts";
import { readSmallFile } from "../common/regular-file.ts";
import type { SummaryState } from "./summary.ts";

/** Bytes before `size` whose hash ties an index to its file. */
export const INDEX_TAIL_BYTES = 256;
const INDEX_VERSION = 1;

export interface SessionIndex {
  readonly size: number;
  readonly summary: SummaryState;
  readonly writerPid?: number;
  /** Messages a resume of exactly the first `size` bytes restores (restored.ts); a cache like the rest. */
  readonly restoredMessages?: number;
}

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const UsageSchema = v.object({
  input_tokens: v.number(),
  output_tokens: v.number(),
  cache_read_tokens: v.number(),
  cache_write_tokens: v.number(),
  cost_usd: v.number(),
});
const IndexSchema = v.object({
  version: v.literal(INDEX_VERSION),
  size: count,
  ino: v.number(),
  tail_hash: v.string(),
  writer_pid: v.optional(count),
  restored_messages: v.optional(count),
  summary: v.object({
    meta: v.object({
      id: v.string(),
      cwd: v.string(),
      model: v.string(),
      provider: v.string(),
      started: v.string(),
      version: v.string(),
      title: v.optional(v.string()),
      parent: v.optional(v.string()),
      fork_point: v.optional(count),
    }),
    message_rows: count,
    first_user_text: v.optional(v.string()),
    searched_rows: count,
    cumulative: UsageSchema,
  }),
});

export function indexPathFor(sessionPath: string): string {
  return join(dirname(sessionPath), `.${basename(sessionPath)}.idx`);
}

/** Hash of the INDEX_TAIL_BYTES before `size` in `fd`. */
function tailHash(fd: number, size: number): string {
  const length = Math.min(size, INDEX_TAIL_BYTES);
  const bytes = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const got = readSync(fd, bytes, read, length - read, size - length + read);
    if (got === 0) break;
    read += got;
  }
  return Bun.hash(bytes.subarray(0, read)).toString(16);
}

function readIndexFile(sessionPath: string): v.InferOutput<typeof IndexSchema> | undefined {
  const text = readSmallFile(indexPathFor(sessionPath), 64 * 1024);
  if (text === undefined) return undefined;
  const parsed = parseJson(text);
  if (!parsed.ok) return undefined;
  const result = v.safeParse(IndexSchema, parsed.value);
  return result.success ? result.output : undefined;
}

/** The index of the session open as `fd`, when it still describes the file (its writer pid: indexWriterPid). */
export function readIndex(sessionPath: string, fd: number): SessionIndex | undefined {
  const index = readIndexFile(sessionPath);
  if (index === undefined) return undefined;
  let info;
  try {
    info = fstatSync(fd);
    if (info.ino !== index.ino || info.size < index.size || tailHash(fd, index.size) !== index.tail_hash) return undefined;
  } catch {
    return undefined;
  }
  const { summary } = index;
  return {
    size: index.size,
    ...(index.restored_messages !== undefined ? { restoredMessages: index.restored_messages } : {}),
    summary: {
      meta: summary.meta,
      messageRowCount: summary.message_rows,
      ...(summary.first_user_text !== undefined ? { firstUserText: summary.first_user_text } : {}),
      searchedRows: summary.searched_rows,
      cumulative: summary.cumulative,
    },
  };
}

/** The pid an index names as the session's writer, valid or not. */
export function indexWriterPid(sessionPath: string): number | undefined {
  return readIndexFile(sessionPath)?.writer_pid;
}

let tempCounter = 0;

/** Writes the index of the session open as `fd` covering its first `size` bytes; best effort. */
export function writeIndex(sessionPath: string, fd: number, index: SessionIndex): void {
  const path = indexPathFor(sessionPath);
  const temp = `${path}.${process.pid}.${++tempCounter}.tmp`;
  try {
    const { summary } = index;
    const document = {
      version: INDEX_VERSION,
      size: index.size,
      ino: fstatSync(fd).ino,
      tail_hash: tailHash(fd, index.size),
      ...(index.writerPid !== undefined ? { writer_pid: index.writerPid } : {}),
      ...(index.restoredMessages !== undefined ? { restored_messages: index.restoredMessages } : {}),
      summary: {
        meta: summary.meta,
        message_rows: summary.messageRowCount,
        ...(summary.firstUserText !== undefined ? { first_user_text: summary.firstUserText } : {}),
        searched_rows: summary.searchedRows,
        cumulative: summary.cumulative,
      },
    };
    const out = openSync(temp, "wx", PRIVATE_FILE_MODE);
    try {
      writeSync(out, `${JSON.stringify(document)}\n`);
    } finally {
      closeSync(out);
    }
    renameSync(temp, path);
  } catch {
    rmSync(temp, { force: true });
  }
}

export function removeIndex(sessionPath: string): void {
  try {
    rmSync(indexPathFor(sessionPath), { force: true });
  } catch {
    // best effort
  }
}
