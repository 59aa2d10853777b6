/**
 * Bounds tool-result content for extensions to observe (tool_result events,
 * call_tool replies, tool_result interception): at most 256 KiB of combined
 * text / base64 data / MIME type bytes and 128 blocks. Text is cut at a UTF-8
 * character boundary; images that do not fit and unsupported block types are
 * omitted; `truncated` says whether anything was dropped. The model and the
 * session always keep the full result; only the copy sent out is bounded.
 */
import type { ToolResultContent } from "../tools/types.ts";
import type { WireResultBlock } from "./frames.ts";

export const OBSERVATION_MAX_BYTES = 256 * 1024;
export const OBSERVATION_MAX_BLOCKS = 128;

export interface BoundedContent {
  readonly content: WireResultBlock[];
  readonly truncated: boolean;
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`. */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return "";
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to a character start.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

export function boundContent(
  blocks: readonly ToolResultContent[],
  maxBytes: number = OBSERVATION_MAX_BYTES,
  maxBlocks: number = OBSERVATION_MAX_BLOCKS,
): BoundedContent {
  const content: WireResultBlock[] = [];
  let remaining = maxBytes;
  let truncated = false;
  for (const block of blocks) {
    if (content.length >= maxBlocks) {
      truncated = true;
      break;
    }
    if (block.type === "text") {
      const size = Buffer.byteLength(block.text, "utf8");
      if (size <= remaining) {
        content.push({ type: "text", text: block.text });
        remaining -= size;
      } else {
        truncated = true;
        const cut = utf8Prefix(block.text, remaining);
        if (cut.length > 0) content.push({ type: "text", text: cut });
        remaining -= Buffer.byteLength(cut, "utf8");
      }
    } else if (block.type === "image") {
      const size = block.data.length + block.mime_type.length;
      if (size <= remaining) {
        content.push({ type: "image", mime_type: block.mime_type, data: block.data });
        remaining -= size;
      } else {
        truncated = true;
      }
    } else {
      truncated = true;
    }
  }
  return { content, truncated };
}
