/**
 * Content blocks written by the original Go zot, which carry no `type` tag
 * and are told apart by their fields. Maps one such value to a typed block,
 * or undefined when nothing usable remains (e.g. an empty text). Unlike the
 * original, a reasoning block holding only a `summary` stays reasoning.
 * Tool-call arguments are raw JSON of any depth: see arguments.ts.
 */
import type { ContentBlock, ImageBlock, TextBlock } from "../providers/types.ts";
import { argumentsFromFile } from "./arguments.ts";
import type { ParsedBlock } from "./format.ts";

type Fields = Readonly<Record<string, unknown>>;

function asFields(value: unknown): Fields | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;
}

function str(fields: Fields, key: string): string | undefined {
  const value = fields[key];
  return typeof value === "string" ? value : undefined;
}

function innerBlock(fields: Fields): TextBlock | ImageBlock | undefined {
  const mime = str(fields, "mime_type");
  if (mime !== undefined) return { type: "image", mime_type: mime, data: str(fields, "data") ?? "" };
  const text = str(fields, "text");
  return text ? { type: "text", text } : undefined;
}

function plain(block: ContentBlock | undefined): ParsedBlock | undefined {
  return block === undefined ? undefined : { block, replacedArguments: false };
}

export function legacyBlock(value: unknown): ParsedBlock | undefined {
  const fields = asFields(value);
  if (!fields) return undefined;
  if ("reasoning_id" in fields || "encrypted_content" in fields || ("summary" in fields && !("text" in fields))) {
    const id = str(fields, "reasoning_id");
    const summary = str(fields, "summary");
    const encrypted = str(fields, "encrypted_content");
    return plain({
      type: "reasoning",
      ...(id !== undefined ? { id } : {}),
      ...(summary !== undefined ? { summary } : {}),
      ...(encrypted !== undefined ? { encrypted_content: encrypted } : {}),
    });
  }
  const id = str(fields, "id");
  const name = str(fields, "name");
  if (id !== undefined && name !== undefined) {
    const args = argumentsFromFile(fields.arguments);
    return { block: { type: "tool_call", id, name, arguments: args.text }, replacedArguments: args.replaced };
  }
  const callId = str(fields, "call_id");
  if (callId !== undefined) {
    const inner = Array.isArray(fields.content) ? fields.content : [];
    const content: (TextBlock | ImageBlock)[] = [];
    for (const item of inner) {
      const itemFields = asFields(item);
      const block = itemFields ? innerBlock(itemFields) : undefined;
      if (block) content.push(block);
    }
    return plain({ type: "tool_result", call_id: callId, content, is_error: fields.is_error === true });
  }
  return plain(innerBlock(fields));
}
