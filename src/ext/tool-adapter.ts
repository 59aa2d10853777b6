/**
 * Extension tools as agent Tools. `execute` sends `tool_call` to the owning
 * extension and maps its `tool_result` (text and base64 image blocks,
 * is_error, activate_tools) to a ToolOutcome tagged with the extension name.
 * An image block goes on only when its bytes are a PNG, JPEG, GIF or WebP
 * image, with the media type its bytes show (whatever `mime_type` said);
 * anything else becomes a text line naming the extension and marks an error.
 * Calls pass the connection's flow control: the model's calls in the model
 * lane, calls made for an extension's call_tool in the nested lane (never
 * waiting for a slot). The reply timeout (60 s default; none for interactive
 * tools) starts when the call is sent; a call that waited in the host until
 * the extension had answered nothing for that long fails unsent (timed_out).
 * Timeouts, cancellation, disconnects and refusals become typed outcomes
 * (timed_out / cancelled / failed); a `tool_cancel` goes to extensions that
 * advertised it only when a call that was sent is abandoned. Late results are
 * ignored by the connection. Interactive calls are recorded in `interactive`
 * (interactive-calls.ts) while they wait, so the host can tie a panel to one
 * and dismiss it: a dismissed call ends as cancelled ("the user closed its
 * panel").
 */
import { sniffImageMime } from "../tools/read.ts";
import type { Tool, ToolContext, ToolOutcome, ToolResultContent } from "../tools/types.ts";
import type { ExtensionConnection } from "./connection.ts";
import { ExtensionRequestError, describeRequestFailure } from "./errors.ts";
import type { ToolResultFrame, WireContentBlock } from "./frames.ts";
import { type HostCallTracker, parentChain } from "./host-calls.ts";
import { nextRequestId } from "./ids.ts";
import type { InteractiveCalls } from "./interactive-calls.ts";
import type { RegisteredTool } from "./registry.ts";

export const TOOL_REPLY_TIMEOUT_MS = 60_000;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Enough base64 for the 12 leading bytes sniffImageMime looks at. */
const SNIFF_BASE64_CHARS = 24;

export function mapResultBlocks(extension: string, blocks: readonly WireContentBlock[]): { content: ToolResultContent[]; invalid: boolean } {
  const content: ToolResultContent[] = [];
  let invalid = false;
  for (const block of blocks) {
    if (block.type === "text") {
      if (block.text) content.push({ type: "text", text: block.text });
    } else if (block.type === "image") {
      const data = (block.data ?? "").replace(/\s+/g, "");
      if (!block.mime_type || data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) {
        invalid = true;
        content.push({ type: "text", text: `[invalid image block from extension ${extension}: needs mime_type and base64 data]` });
        continue;
      }
      // The provider refuses the whole request (this one and every later one of the conversation) for an image
      // whose bytes are not PNG, JPEG, GIF or WebP, or do not match its media type: the bytes decide.
      const sniffed = sniffImageMime(Buffer.from(data.slice(0, SNIFF_BASE64_CHARS), "base64"));
      if (sniffed === undefined) {
        invalid = true;
        content.push({ type: "text", text: `[invalid image block from extension ${extension}: its data is not a PNG, JPEG, GIF or WebP image (mime_type ${JSON.stringify(block.mime_type.slice(0, 100))})]` });
        continue;
      }
      content.push({ type: "image", mime_type: sniffed, data });
    } else {
      content.push({ type: "text", text: `[unknown block type "${block.type}" from extension ${extension}]` });
    }
  }
  if (content.length === 0) content.push({ type: "text", text: "(extension returned no content)" });
  return { content, invalid };
}

export interface ToolCallOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  /** Headless hosts cannot serve interactive tools. */
  readonly allowInteractive?: boolean;
  /** Records running calls and their tool chains (call_tool parent_id rules). */
  readonly tracker?: HostCallTracker;
  /** Where interactive calls wait (the host ties panels to them and may dismiss them). */
  readonly interactive?: InteractiveCalls;
}

function failure(tool: RegisteredTool, detail: string, status: ToolOutcome["status"]): ToolOutcome {
  return {
    content: [{ type: "text", text: `extension ${tool.extension}/${tool.name} failed: ${detail}` }],
    isError: true,
    status,
    extension: tool.extension,
  };
}

/** Sends one tool_call and waits for its outcome. Never throws. */
export async function callExtensionTool(
  connection: ExtensionConnection | undefined,
  tool: RegisteredTool,
  args: Readonly<Record<string, unknown>>,
  options: ToolCallOptions = {},
): Promise<ToolOutcome> {
  if (!connection || connection.closed) return failure(tool, "the extension is not running", "failed");
  if (tool.interactive && !options.allowInteractive) {
    return failure(tool, "interactive tools need the interactive TUI; this mode cannot ask the user", "failed");
  }
  const id = nextRequestId("tool");
  const timeoutMs = tool.interactive ? undefined : (options.timeoutMs ?? TOOL_REPLY_TIMEOUT_MS);
  const chainAbove = parentChain.getStore();
  options.tracker?.begin({ requestId: id, extension: tool.extension, chain: [...(chainAbove ?? []), tool.name], signal: options.signal });
  const waiting = tool.interactive ? options.interactive?.begin(id, tool.extension, tool.name) : undefined;
  const signal = waiting === undefined ? options.signal : options.signal === undefined ? waiting.signal : AbortSignal.any([options.signal, waiting.signal]);
  let answered = false;
  try {
    const reply = (await connection.request({ type: "tool_call", id, name: tool.name, args }, "tool_result", {
      timeoutMs,
      signal,
      // A call made for an extension's call_tool never waits for a slot its callers hold.
      lane: chainAbove === undefined ? "model" : "nested",
    })) as ToolResultFrame;
    answered = true;
    const mapped = mapResultBlocks(tool.extension, reply.content);
    return {
      content: mapped.content,
      isError: reply.is_error === true || mapped.invalid,
      extension: tool.extension,
      details: { extension: tool.extension, tool: tool.name },
      ...(reply.activate_tools.length > 0 ? { activateTools: reply.activate_tools } : {}),
    };
  } catch (err) {
    if (!(err instanceof ExtensionRequestError)) return failure(tool, String(err), "failed");
    const cause = err.failure;
    const abandoned = cause.kind === "timeout" || (cause.kind === "cancelled" && cause.sent);
    if (abandoned && connection.capabilities.has("tool_cancel")) connection.send({ type: "tool_cancel", id });
    switch (cause.kind) {
      case "timeout":
        return failure(tool, `no result within ${cause.timeoutMs / 1000} s (timed out)`, "timed_out");
      case "cancelled":
        return failure(tool, waiting?.signal.aborted === true ? "cancelled: the user closed its panel" : "cancelled", "cancelled");
      case "stalled":
        return failure(tool, `${describeRequestFailure(cause)} (timed out)`, "timed_out");
      case "disconnected":
        return failure(tool, `extension disconnected: ${cause.detail}`, "failed");
      case "overloaded":
      case "too_large":
      case "invalid_reply":
        return failure(tool, describeRequestFailure(cause), "failed");
      default:
        return failure(tool, "the call could not be delivered", "failed");
    }
  } finally {
    options.tracker?.end(id);
    if (waiting !== undefined) options.interactive?.end(id, answered ? "answered" : "abandoned");
  }
}

/** The agent-facing Tool for a registered extension tool. */
export function extensionTool(
  tool: RegisteredTool,
  connectionOf: (extension: string) => ExtensionConnection | undefined,
  defaults: Pick<ToolCallOptions, "allowInteractive" | "timeoutMs" | "tracker" | "interactive"> = {},
): Tool {
  return {
    name: tool.name,
    description: tool.description,
    schema: tool.schema,
    deferred: tool.deferred,
    interactive: tool.interactive,
    extension: tool.extension,
    execute: (args: Readonly<Record<string, unknown>>, ctx: ToolContext) =>
      callExtensionTool(connectionOf(tool.extension), tool, args, { ...defaults, signal: ctx.signal }),
  };
}
