/**
 * `/session import <path>`: a session from elsewhere becomes a new session
 * of this directory (the source is only read). Two kinds of file:
 *  - a session file (line 1 a meta row): this zot's, the original zot's, or
 *    an exported `.zotsession`. Its rows other than meta and rename are
 *    copied verbatim, as a fork copies them (fork.ts copySession), under a
 *    new id, this cwd, a new start time and this version; provider, model
 *    and title are kept (as the original's import). No parent is recorded.
 *  - a `zot --json` transcript (docs/json.md), such as the `.jsonl` that
 *    `/session export` writes: user_message and assistant_message lines
 *    become messages, consecutive tool_result lines one tool message; other
 *    event lines are passed over. --json writes no image bytes, so an image
 *    comes back as a text placeholder.
 * The file's kind is told by its first usable line; anything else is
 * refused (SessionError "invalid"). Reading is in bounded memory (lines.ts);
 * the new session is then opened like a resumed one (load.ts: repair,
 * budget).
 */
import { closeSync, constants } from "node:fs";
import { parseJson } from "../common/json.ts";
import type { ContentBlock, Message, ToolResultBlock } from "../providers/types.ts";
import { SessionError } from "./errors.ts";
import { openRegular } from "../common/regular-file.ts";
import { copySession } from "./fork.ts";
import { readLines } from "./lines.ts";
import { sessionFsError } from "./load.ts";
import { SessionWriter, type ResumedSession } from "./writer.ts";

export interface ImportTarget {
  readonly cwd: string;
  readonly sessionsRoot: string;
  /** For a --json transcript, which names none. */
  readonly provider: string;
  readonly model: string;
}

type Json = Readonly<Record<string, unknown>>;

const EVENT_TYPES = new Set(["user_message", "assistant_message", "tool_call", "tool_result", "turn_start", "turn_end", "assistant_start", "usage", "text_delta", "done", "error", "retry"]);

function asRecord(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function withSource<T>(path: string, use: (fd: number) => T): T {
  let fd: number;
  try {
    fd = openRegular(path, constants.O_RDONLY);
  } catch (err) {
    throw sessionFsError(path, err, "open");
  }
  try {
    return use(fd);
  } catch (err) {
    throw err instanceof SessionError ? err : sessionFsError(path, err, "read");
  } finally {
    closeSync(fd);
  }
}

/** "session", "events", or undefined: what the first usable line of `path` says it is. */
function sourceKind(path: string): "session" | "events" | undefined {
  return withSource(path, (fd) => {
    let kind: "session" | "events" | undefined;
    readLines(fd, {}, (line) => {
      if (line.text === undefined) return false;
      const parsed = parseJson(line.text);
      const type = parsed.ok ? str(asRecord(parsed.value)?.type) : undefined;
      if (type === "meta") kind = "session";
      else if (type !== undefined && EVENT_TYPES.has(type)) kind = "events";
      return false;
    });
    return kind;
  });
}

function textBlock(text: string): ContentBlock {
  return { type: "text", text };
}

function resultContent(value: unknown): ToolResultBlock["content"] {
  const out: ToolResultBlock["content"][number][] = [];
  for (const item of Array.isArray(value) ? value : []) {
    const block = asRecord(item);
    const text = str(block?.text);
    if (block?.type === "text" && text !== undefined) out.push({ type: "text", text });
    else if (block?.type === "image") out.push({ type: "text", text: `[image: ${str(block.mime_type) ?? "unknown type"}, not kept by --json]` });
  }
  return out;
}

function messageContent(value: unknown): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const item of Array.isArray(value) ? value : []) {
    const block = asRecord(item);
    if (block === undefined) continue;
    const text = str(block.text);
    const id = str(block.id);
    const name = str(block.name);
    if (block.type === "text" && text !== undefined) out.push(textBlock(text));
    else if (block.type === "image") out.push(textBlock(`[image: ${str(block.mime_type) ?? "unknown type"}, not kept by --json]`));
    else if (block.type === "tool_call" && id !== undefined && name !== undefined) {
      const args = block.args === undefined ? "{}" : typeof block.args === "string" ? block.args : JSON.stringify(block.args);
      out.push({ type: "tool_call", id, name, arguments: args });
    }
  }
  return out;
}

/** Messages of a --json transcript, handed to `append` one by one. */
function eventMessages(fd: number, append: (message: Message) => void): void {
  let results: ToolResultBlock[] = [];
  let resultTime = "";
  let lastTime: string | undefined;
  const flushResults = (): void => {
    if (results.length > 0) append({ role: "tool", content: results, time: resultTime });
    results = [];
  };
  readLines(fd, {}, (line) => {
    if (line.text === undefined) return;
    const parsed = parseJson(line.text);
    const event = parsed.ok ? asRecord(parsed.value) : undefined;
    if (event === undefined) return;
    // tool_result lines carry no time: the time of the message before them (else now), never an empty one.
    const time = str(event.time) ?? lastTime ?? new Date().toISOString();
    lastTime = time;
    if (event.type === "user_message" || event.type === "assistant_message") {
      flushResults();
      const content = messageContent(event.content);
      if (content.length > 0) append({ role: event.type === "user_message" ? "user" : "assistant", content, time });
    } else if (event.type === "tool_result") {
      const id = str(event.id);
      if (id === undefined) return;
      if (results.length === 0) resultTime = time;
      results.push({ type: "tool_result", call_id: id, content: resultContent(event.content), is_error: event.is_error === true });
    }
  });
  flushResults();
}

export function importSession(sourcePath: string, target: ImportTarget): ResumedSession {
  const kind = sourceKind(sourcePath);
  if (kind === "session") {
    return copySession(sourcePath, (source) => ({
      cwd: target.cwd,
      sessionsRoot: target.sessionsRoot,
      provider: source.meta.provider || target.provider,
      model: source.meta.model || target.model,
      ...(source.meta.title !== undefined ? { title: source.meta.title } : {}),
    }));
  }
  if (kind === undefined) {
    throw new SessionError("invalid", sourcePath, "neither a session file (line 1 a meta row) nor a `zot --json` transcript");
  }
  const writer = SessionWriter.create({ cwd: target.cwd, sessionsRoot: target.sessionsRoot, provider: target.provider, model: target.model });
  try {
    withSource(sourcePath, (fd) => eventMessages(fd, (message) => void writer.appendMessage(message)));
    if (writer.messageRowCount === 0) throw new SessionError("invalid", sourcePath, "holds no user or assistant message");
    return SessionWriter.adoptFilled(writer);
  } catch (err) {
    writer.close();
    throw err;
  }
}
