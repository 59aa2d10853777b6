/**
 * `/session export [path]`: the conversation (the transcript the model sees,
 * as a resume restores it) written twice, side by side: `<base>.md`, a
 * readable markdown transcript (prompts, answers, each tool call with its
 * arguments and its result in fenced blocks), and `<base>.jsonl`, the same
 * conversation as `zot --json` event lines (user_message, assistant_message,
 * tool_call, tool_result; docs/json.md), which `/session import` reads back.
 * The session file itself is only read from memory, never touched. Each
 * file is written atomically (temp file, fsync, rename) with mode 0600 and
 * an existing file is never replaced (SessionExportError names it).
 *
 * Where: no path → the default directory ($HOME/Downloads when it exists,
 * else $HOME) with the original zot's name `<UTC start YYYYMMDD-HHMMSS>-
 * <id[:8]>-<slug of the first prompt, ≤40 chars of [a-z0-9-]>`; a
 * directory → that name inside it; a path ending .md or .jsonl → that base;
 * any other path → the base as given. `~/` expands to $HOME.
 */
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { eventJson, goJsonStringify, parseArgsForDisplay, type AgentEvent } from "../agent/events.ts";
import { writeFileAtomic } from "../common/atomic.ts";
import { ZotError } from "../common/errors.ts";
import { PRIVATE_FILE_MODE } from "../common/private.ts";
import type { ContentBlock, Message } from "../providers/types.ts";
import type { SessionMeta } from "../session/index.ts";
import { sessionTimestamp } from "../session/paths.ts";

export interface ExportInput {
  readonly messages: readonly Message[];
  readonly meta: SessionMeta;
  /** The argument of `/session export` ("" for the default place). */
  readonly target: string;
  readonly home: string;
  readonly cwd: string;
  readonly now?: Date;
}

export interface ExportResult {
  readonly markdownPath: string;
  readonly jsonlPath: string;
}

const SLUG_MAX = 40;

function firstPrompt(messages: readonly Message[]): string {
  for (const message of messages) {
    if (message.role !== "user") continue;
    const text = message.content.find((block) => block.type === "text");
    if (text?.type === "text" && text.text.trim() !== "") return text.text;
  }
  return "";
}

export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, SLUG_MAX)
    .replace(/-+$/, "");
}

export function defaultExportName(meta: SessionMeta, messages: readonly Message[]): string {
  const started = new Date(meta.started);
  const stamp = sessionTimestamp(Number.isNaN(started.getTime()) ? new Date() : started);
  const id = meta.id.replace(/-/g, "").slice(0, 8).toLowerCase();
  const tail = slug(meta.title ?? firstPrompt(messages));
  return `${stamp}-${id}${tail === "" ? "" : `-${tail}`}`;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The base path (without .md / .jsonl) the export writes to. */
export function exportBase(input: ExportInput): string {
  const name = defaultExportName(input.meta, input.messages);
  const target = input.target.trim();
  if (target === "") {
    const downloads = join(input.home, "Downloads");
    return join(isDirectory(downloads) ? downloads : input.home, name);
  }
  const expanded = target === "~" ? input.home : target.startsWith("~/") ? join(input.home, target.slice(2)) : target;
  const path = resolve(input.cwd, expanded);
  if (isDirectory(path) || target.endsWith("/")) return join(path, name);
  return path.replace(/\.(md|jsonl)$/i, "");
}

/** A code fence longer than any run of backticks in `text`. */
function fence(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return "`".repeat(Math.max(3, longest + 1));
}

function fenced(text: string, language = ""): string {
  const marks = fence(text);
  return `${marks}${language}\n${text.replace(/\n$/, "")}\n${marks}`;
}

function argumentsText(raw: string): string {
  const parsed = parseArgsForDisplay(raw);
  return typeof parsed === "string" ? parsed : JSON.stringify(parsed, null, 2);
}

function blockMarkdown(block: ContentBlock): string | undefined {
  switch (block.type) {
    case "text":
      return block.text.trim() === "" ? undefined : block.text;
    case "image":
      return `*[image: ${block.mime_type}]*`;
    case "tool_call":
      return `**tool call** \`${block.name}\` (${block.id})\n\n${fenced(argumentsText(block.arguments), "json")}`;
    case "tool_result": {
      const text = block.content.map((part) => (part.type === "text" ? part.text : `[image: ${part.mime_type}]`)).join("\n");
      return `**tool result**${block.is_error ? " (error)" : ""} (${block.call_id})\n\n${fenced(text)}`;
    }
    default:
      return undefined;
  }
}

const HEADINGS: Readonly<Record<Message["role"], string>> = { user: "User", assistant: "Assistant", tool: "Tool" };

export function conversationMarkdown(meta: SessionMeta, messages: readonly Message[], exportedAt: Date): string {
  const title = meta.title ?? (firstPrompt(messages).split("\n")[0] ?? "").slice(0, 80);
  const out = [
    `# ${title === "" ? "zot session" : title}`,
    "",
    `- session: ${meta.id}`,
    `- model: ${meta.provider}/${meta.model}`,
    `- started: ${meta.started}`,
    `- exported: ${exportedAt.toISOString()}`,
    `- messages: ${messages.length}`,
  ];
  for (const message of messages) {
    const parts = message.content.flatMap((block) => blockMarkdown(block) ?? []);
    if (parts.length === 0) continue;
    out.push("", `## ${HEADINGS[message.role]}`, "", parts.join("\n\n"));
  }
  return `${out.join("\n")}\n`;
}

/** The conversation as `zot --json` events: what a replay of the transcript would have written. */
export function conversationEvents(messages: readonly Message[]): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (const message of messages) {
    if (message.role === "user") events.push({ type: "user_message", content: message.content, time: message.time });
    else if (message.role === "assistant") {
      events.push({ type: "assistant_message", content: message.content, time: message.time });
      for (const block of message.content) {
        if (block.type === "tool_call") events.push({ type: "tool_call", id: block.id, name: block.name, args: parseArgsForDisplay(block.arguments) });
      }
    } else {
      for (const block of message.content) {
        if (block.type === "tool_result") events.push({ type: "tool_result", id: block.call_id, is_error: block.is_error, content: block.content });
      }
    }
  }
  return events;
}

export function conversationJsonl(messages: readonly Message[]): string {
  return conversationEvents(messages).map((event) => `${goJsonStringify(eventJson(event))}\n`).join("");
}

function refuseExisting(path: string): void {
  if (existsSync(path)) throw new ZotError("session.export_exists", `${path}: already exists; give another path`, { path });
}

export async function exportConversation(input: ExportInput): Promise<ExportResult> {
  const base = exportBase(input);
  const markdownPath = `${base}.md`;
  const jsonlPath = `${base}.jsonl`;
  refuseExisting(markdownPath);
  refuseExisting(jsonlPath);
  const now = input.now ?? new Date();
  await writeFileAtomic(markdownPath, conversationMarkdown(input.meta, input.messages, now), {
    mode: PRIVATE_FILE_MODE,
    verify: () => refuseExisting(markdownPath),
  });
  await writeFileAtomic(jsonlPath, conversationJsonl(input.messages), { mode: PRIVATE_FILE_MODE, verify: () => refuseExisting(jsonlPath) });
  return { markdownPath, jsonlPath };
}
