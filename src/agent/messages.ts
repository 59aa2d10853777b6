/**
 * Pure helpers over transcript messages used by the loop: visible text,
 * emptiness, the user-visible text replacement, the tool-role
 * result message and the OpenAI-style image mirror (reference notes §4.2).
 */
import type { ContentBlock, ImageBlock, Message, TextBlock, ToolResultBlock } from "../providers/types.ts";
import type { ToolCallRecord } from "./types.ts";

export function nowTimestamp(): string {
  return new Date().toISOString();
}

/** Text blocks joined with "\n" (what assistant hooks and print mode see). */
export function messageText(message: Message): string {
  const parts: string[] = [];
  for (const block of message.content) if (block.type === "text") parts.push(block.text);
  return parts.join("\n");
}

/** True when no block carries anything (no blocks, or only empty text). */
export function isEmptyMessage(message: Message): boolean {
  return message.content.every((block) => block.type === "text" && block.text === "");
}

/** Collapses all text blocks into one carrying `text`, at the first text block's position. */
export function replaceMessageText(content: readonly ContentBlock[], text: string): ContentBlock[] {
  const out: ContentBlock[] = [];
  let placed = false;
  for (const block of content) {
    if (block.type !== "text") out.push(block);
    else if (!placed) {
      out.push({ type: "text", text });
      placed = true;
    }
  }
  return out;
}

export function userMessage(text: string, images: readonly ImageBlock[]): Message {
  const content: ContentBlock[] = [];
  if (text !== "") content.push({ type: "text", text });
  content.push(...images);
  return { role: "user", content, time: nowTimestamp() };
}

export function toolResultBlock(record: ToolCallRecord): ToolResultBlock {
  return { type: "tool_result", call_id: record.id, content: record.outcome.content, is_error: record.outcome.isError };
}

export function toolResultMessage(records: readonly ToolCallRecord[]): Message {
  return { role: "tool", content: records.map(toolResultBlock), time: nowTimestamp() };
}

export const IMAGE_MIRROR_INTRO = "Tool output included the following image content:";
export const IMAGE_MIRROR_META_KEY = "image_mirror";
const MIRRORED_TEXT_LIMIT = 500;

/**
 * For chat-completions style providers that cannot carry images in tool
 * results: a hidden user message repeating the results' images, with short
 * (≤ 500 byte) result texts for context. Undefined when there are no images.
 */
export function imageMirrorMessage(records: readonly ToolCallRecord[]): Message | undefined {
  const images: ImageBlock[] = [];
  const texts: TextBlock[] = [];
  for (const record of records) {
    for (const block of record.outcome.content) {
      if (block.type === "image") images.push(block);
      else if (Buffer.byteLength(block.text, "utf8") <= MIRRORED_TEXT_LIMIT) texts.push(block);
    }
  }
  if (images.length === 0) return undefined;
  return {
    role: "user",
    content: [{ type: "text", text: IMAGE_MIRROR_INTRO }, ...texts, ...images],
    time: nowTimestamp(),
    meta: { [IMAGE_MIRROR_META_KEY]: "true" },
  };
}
