/**
 * The text side of compaction: the summariser's system prompt and checkpoint
 * instruction, the plain-text serialisation of a transcript (`--- role ---`
 * sections; images as `[image: mime, N bytes]`, calls as `[tool_call name
 * args]`, results as `[tool_result] text`; thinking and reasoning left out)
 * and the token estimate (UTF-8 bytes of each message's JSON-serialised text
 * content / 4, images not counted). Pure functions.
 */
import type { ContentBlock, Message } from "../providers/types.ts";

export const SUMMARISER_SYSTEM_PROMPT = [
  "You are the context summariser of a coding agent.",
  "You receive the earlier part of a conversation between a user and an AI coding assistant, including the assistant's tool calls and their results.",
  "Do not continue the conversation, do not answer questions asked in it and do not call tools.",
  "Write only the checkpoint summary you are asked for: it replaces the transcript, and the assistant will continue the work from it alone.",
].join(" ");

export const SUMMARY_INSTRUCTION = `The conversation above is being compacted to free context space. Write a structured checkpoint that lets the assistant continue the work without the original messages. Use exactly these Markdown sections:

## Goal
What the user is trying to achieve (a list when there are several goals).

## Constraints & Preferences
Requirements, conventions and preferences the user stated or the work revealed.

## Progress
### Done
### In Progress
### Blocked

## Key Decisions
Decisions taken, each with its reason.

## Next Steps
An ordered list of what to do next.

## Critical Context
Anything else needed to continue: data, examples, references, open questions.

Keep exact file paths, function, type and variable names, commands and error messages verbatim. Be concise and leave out anything that no longer matters. Write "(none)" under an empty section.`;

function textParts(message: Message): string[] {
  const parts: string[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "tool_call":
        parts.push(block.name, block.arguments);
        break;
      case "tool_result":
        for (const inner of block.content) if (inner.type === "text") parts.push(inner.text);
        break;
      case "thinking":
        parts.push(block.thinking);
        break;
      case "reasoning":
        if (block.summary !== undefined) parts.push(block.summary);
        break;
      case "image":
      case "redacted_thinking":
        break;
    }
  }
  return parts;
}

/** Serialised text bytes / 4: UTF-8 bytes of each message's text content as JSON; images not counted. */
export function estimateTokens(messages: readonly Message[]): number {
  let bytes = 0;
  for (const message of messages) bytes += Buffer.byteLength(JSON.stringify(textParts(message)), "utf8");
  return Math.floor(bytes / 4);
}

function base64ByteLength(data: string): number {
  const trimmed = data.replace(/\s+/g, "");
  const padding = trimmed.endsWith("==") ? 2 : trimmed.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding);
}

function describeImage(mime: string, data: string): string {
  return `[image: ${mime}, ${base64ByteLength(data)} bytes]`;
}

function serializeBlock(block: ContentBlock): string | undefined {
  switch (block.type) {
    case "text":
      return block.text === "" ? undefined : block.text;
    case "image":
      return describeImage(block.mime_type, block.data);
    case "tool_call":
      return `[tool_call ${block.name} ${block.arguments}]`;
    case "tool_result": {
      const inner = block.content.map((part) => (part.type === "text" ? part.text : describeImage(part.mime_type, part.data)));
      return `[tool_result]${block.is_error ? " (error)" : ""} ${inner.join("\n")}`;
    }
    case "thinking":
    case "redacted_thinking":
    case "reasoning":
      return undefined;
  }
}

/** Plain-text sections: `--- role ---` then one line group per block. */
export function serializeConversation(messages: readonly Message[]): string {
  const sections: string[] = [];
  for (const message of messages) {
    const parts: string[] = [];
    for (const block of message.content) {
      const text = serializeBlock(block);
      if (text !== undefined) parts.push(text);
    }
    sections.push(`--- ${message.role} ---\n${parts.join("\n")}`);
  }
  return sections.join("\n\n");
}

/** The single user message the summariser receives. */
export function summaryRequestText(messages: readonly Message[], instructions?: string): string {
  const extra = instructions?.trim() ?? "";
  const tail = extra === "" ? "" : `\n\nAdditional instructions from the user:\n${extra}`;
  return `<conversation>\n${serializeConversation(messages)}\n</conversation>\n\n${SUMMARY_INSTRUCTION}${tail}`;
}
