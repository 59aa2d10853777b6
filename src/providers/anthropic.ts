/**
 * Anthropic Messages API client (`POST {base}/v1/messages`, streaming).
 * Request: system + tools + messages with prompt-cache breakpoints on the
 * system block, the last tool and the last block of the last user-role
 * message; tool results travel in their own user message; thinking and
 * redacted_thinking blocks are replayed verbatim. Response: text, tool_use
 * (input_json_delta), thinking (+signature) and redacted_thinking blocks
 * assembled in index order; usage assigned from message_start/message_delta
 * (never added); `error` events reject with ProviderError "api".
 * ZOT_DEBUG_ANTHROPIC=<file> appends every request body to <file> (debug-log.ts).
 */
import * as v from "valibot";
import type { SseEvent } from "./sse.ts";
import {
  argumentsObject,
  endToolCall,
  joinUrl,
  MAX_CONTENT_BLOCKS,
  parseEventJson,
  runStream,
  streamLimits,
  streamErrorEvent,
  taggedEventDecoder,
  tokenCount,
  tooManyBlocks,
  type ClientOptions,
  type StreamDecoder,
} from "./shared.ts";
import { WireConversation } from "./wire-conversation.ts";
import {
  ProviderError,
  emptyUsage,
  type ContentBlock,
  type Message,
  type ProviderClient,
  type ReasoningLevel,
  type StopReason,
  type StreamEvent,
  type StreamRequest,
  type StreamResult,
  type Usage,
} from "./types.ts";
import { logAnthropicRequest } from "./debug-log.ts";

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
export const ANTHROPIC_VERSION = "2023-06-01";
export const THINKING_BUDGETS: Readonly<Record<ReasoningLevel, number>> = { low: 2048, medium: 8192, high: 16384 };

export type AnthropicClientOptions = ClientOptions;

type JsonObject = Record<string, unknown>;
const EPHEMERAL = { type: "ephemeral" } as const;

function imageBlock(mimeType: string, data: string): JsonObject {
  return { type: "image", source: { type: "base64", media_type: mimeType, data } };
}

function toWireBlock(block: ContentBlock): JsonObject | undefined {
  switch (block.type) {
    case "text":
      return block.text === "" ? undefined : { type: "text", text: block.text };
    case "image":
      return imageBlock(block.mime_type, block.data);
    case "tool_call":
      return { type: "tool_use", id: block.id, name: block.name, input: argumentsObject(block.arguments) };
    case "tool_result": {
      const allText = block.content.every((part) => part.type === "text");
      const content = allText
        ? block.content.map((part) => (part.type === "text" ? part.text : "")).join("\n")
        : block.content.map((part) => (part.type === "text" ? { type: "text", text: part.text } : imageBlock(part.mime_type, part.data)));
      return { type: "tool_result", tool_use_id: block.call_id, content, is_error: block.is_error };
    }
    case "thinking":
      // A thinking block without its signature is rejected by the API.
      return block.signature ? { type: "thinking", thinking: block.thinking, signature: block.signature } : undefined;
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "reasoning":
      return undefined; // OpenAI-only replay data
  }
}

type WireMessage = { readonly role: "user" | "assistant"; readonly content: readonly JsonObject[] };

function toWireMessage(message: Message): WireMessage[] {
  const content = message.content.map(toWireBlock).filter((block): block is JsonObject => block !== undefined);
  return content.length === 0 ? [] : [{ role: message.role === "assistant" ? "assistant" : "user", content }];
}

/** A client's incremental converter of its conversation (wire-conversation.ts). */
export function anthropicConversation(): WireConversation<WireMessage> {
  return new WireConversation(toWireMessage);
}

/**
 * The JSON body of one Messages API request; `conversation` (the client's)
 * converts only the messages appended since its previous request.
 */
export function buildAnthropicBody(request: StreamRequest, conversation = anthropicConversation()): JsonObject {
  const messages = conversation.items(request.messages);
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== "user") continue;
    const last = message.content[message.content.length - 1];
    // A copy: the cached wire message is shared with later requests, whose breakpoint is elsewhere.
    if (last) messages[i] = { role: message.role, content: [...message.content.slice(0, -1), { ...last, cache_control: EPHEMERAL }] };
    break;
  }
  let maxTokens = request.maxTokens ?? request.model.maxOutput;
  const body: JsonObject = { model: request.model.id, max_tokens: maxTokens, messages, stream: true };
  if (request.system !== "") body.system = [{ type: "text", text: request.system, cache_control: EPHEMERAL }];
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool, index) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.schema,
      ...(index === request.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
    }));
  }
  if (request.reasoning && request.model.reasoning) {
    const budget = THINKING_BUDGETS[request.reasoning];
    if (maxTokens <= budget) maxTokens = budget + 4096;
    body.max_tokens = maxTokens;
    body.thinking = { type: "enabled", budget_tokens: budget };
  }
  return body;
}

// Token counts are checked by tokenCount (a bad one is ignored), not here.
const UsageSchema = v.looseObject({
  input_tokens: v.optional(v.unknown()),
  output_tokens: v.optional(v.unknown()),
  cache_read_input_tokens: v.optional(v.unknown()),
  cache_creation_input_tokens: v.optional(v.unknown()),
});
type WireUsage = v.InferOutput<typeof UsageSchema>;
const BlockStartSchema = v.looseObject({
  type: v.string(),
  text: v.optional(v.string()),
  id: v.optional(v.string()),
  name: v.optional(v.string()),
  thinking: v.optional(v.string()),
  signature: v.optional(v.string()),
  data: v.optional(v.string()),
});
type WireBlockStart = v.InferOutput<typeof BlockStartSchema>;
const DeltaSchema = v.looseObject({
  type: v.string(),
  text: v.optional(v.string()),
  partial_json: v.optional(v.string()),
  thinking: v.optional(v.string()),
  signature: v.optional(v.string()),
});
type WireDelta = v.InferOutput<typeof DeltaSchema>;
const EventSchema = v.variant("type", [
  v.looseObject({ type: v.literal("message_start"), message: v.looseObject({ usage: v.optional(UsageSchema) }) }),
  v.looseObject({ type: v.literal("content_block_start"), index: v.number(), content_block: BlockStartSchema }),
  v.looseObject({ type: v.literal("content_block_delta"), index: v.number(), delta: DeltaSchema }),
  v.looseObject({ type: v.literal("content_block_stop"), index: v.number() }),
  v.looseObject({
    type: v.literal("message_delta"),
    delta: v.optional(v.looseObject({ stop_reason: v.nullish(v.string()) })),
    usage: v.optional(UsageSchema),
  }),
  v.looseObject({ type: v.literal("message_stop") }),
  v.looseObject({
    type: v.literal("error"),
    error: v.optional(v.looseObject({ type: v.optional(v.string()), message: v.optional(v.string()) })),
  }),
]);
/** Events the schema lists, validated; undefined for ping and future kinds. */
const decodeEvent = taggedEventDecoder("anthropic", EventSchema);

type BlockState =
  | { kind: "text"; text: string }
  | { kind: "tool"; id: string; name: string; args: string; ended: boolean }
  | { kind: "thinking"; thinking: string; signature: string }
  | { kind: "redacted"; data: string };

function mapStopReason(reason: string): StopReason {
  if (reason === "max_tokens") return "length";
  if (reason === "tool_use") return "tool_use";
  return "end";
}

/** Any field of a parsed JSON value, or undefined. */
function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[name] : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/**
 * An SSE event named `error`, whatever its shape: Anthropic's
 * `{"type":"error","error":{"type","message"}}`, or a proxy's `{"error":"…"}`
 * or `{"message":"…"}`. The original's wording: "anthropic <type>: <message>".
 */
function errorEventOf(event: SseEvent): ProviderError {
  const json = parseEventJson("anthropic", event);
  const error = field(json, "error");
  const kind = text(field(error, "type")) ?? "error";
  const message = text(error) ?? text(field(error, "message")) ?? text(field(json, "message")) ?? "stream error";
  return streamErrorEvent(`anthropic ${kind}: ${message}`, { type: kind });
}

class AnthropicDecoder implements StreamDecoder {
  private readonly blocks = new Map<number, BlockState>();
  private readonly tokens: Usage = emptyUsage();
  private stop: StopReason | undefined;

  constructor(
    private readonly emit: (event: StreamEvent) => void,
    private readonly countOutput: (chars: number) => void,
  ) {}

  private assignUsage(usage: WireUsage | undefined, initial: boolean): void {
    if (!usage) return;
    const assign = (field: keyof Usage, reported: unknown) => {
      const value = tokenCount(reported);
      if (value !== undefined && (initial || value > 0)) this.tokens[field] = value;
    };
    assign("input_tokens", usage.input_tokens);
    assign("output_tokens", usage.output_tokens);
    assign("cache_read_tokens", usage.cache_read_input_tokens);
    assign("cache_write_tokens", usage.cache_creation_input_tokens);
  }

  handle(event: SseEvent): boolean {
    if (event.event === "error") throw errorEventOf(event);
    const data = decodeEvent(event);
    if (data === undefined) return false; // ping and future kinds
    switch (data.type) {
      case "message_start":
        this.assignUsage(data.message.usage, true);
        return false;
      case "content_block_start":
        this.startBlock(data.index, data.content_block);
        return false;
      case "content_block_delta":
        this.applyDelta(data.index, data.delta);
        return false;
      case "content_block_stop": {
        const block = this.blocks.get(data.index);
        if (block?.kind === "tool") endToolCall(block, this.emit);
        return false;
      }
      case "message_delta":
        if (data.delta?.stop_reason) this.stop = mapStopReason(data.delta.stop_reason);
        this.assignUsage(data.usage, false);
        return false;
      case "message_stop":
        return true;
      case "error": {
        const kind = data.error?.type ?? "error";
        // The original's wording: "anthropic <type>: <message>".
        throw streamErrorEvent(`anthropic ${kind}: ${data.error?.message ?? "stream error"}`, { type: kind });
      }
    }
  }

  private startBlock(index: number, start: WireBlockStart): void {
    if (this.blocks.size >= MAX_CONTENT_BLOCKS && !this.blocks.has(index)) throw tooManyBlocks("anthropic");
    switch (start.type) {
      case "text":
        this.blocks.set(index, { kind: "text", text: start.text ?? "" });
        if (start.text) this.emit({ type: "text_delta", delta: start.text });
        return;
      case "tool_use": {
        if (start.id === undefined || start.name === undefined) {
          throw new ProviderError("malformed", "anthropic: tool_use block without id or name");
        }
        this.blocks.set(index, { kind: "tool", id: start.id, name: start.name, args: "", ended: false });
        this.emit({ type: "tool_use_start", id: start.id, name: start.name });
        return;
      }
      case "thinking":
        this.countOutput(start.signature?.length ?? 0);
        this.blocks.set(index, { kind: "thinking", thinking: start.thinking ?? "", signature: start.signature ?? "" });
        if (start.thinking) this.emit({ type: "thinking_delta", delta: start.thinking });
        return;
      case "redacted_thinking":
        this.countOutput(start.data?.length ?? 0);
        this.blocks.set(index, { kind: "redacted", data: start.data ?? "" });
        return;
      default:
        return; // server-side tool blocks etc. are not part of zot's model
    }
  }

  private applyDelta(index: number, delta: WireDelta): void {
    const block = this.blocks.get(index);
    if (delta.type === "text_delta" && block?.kind === "text" && delta.text) {
      block.text += delta.text;
      this.emit({ type: "text_delta", delta: delta.text });
    } else if (delta.type === "input_json_delta" && block?.kind === "tool" && delta.partial_json) {
      block.args += delta.partial_json;
      this.emit({ type: "tool_use_args", id: block.id, delta: delta.partial_json });
    } else if (delta.type === "thinking_delta" && block?.kind === "thinking" && delta.thinking) {
      block.thinking += delta.thinking;
      this.emit({ type: "thinking_delta", delta: delta.thinking });
    } else if (delta.type === "signature_delta" && block?.kind === "thinking" && delta.signature) {
      this.countOutput(delta.signature.length);
      block.signature += delta.signature;
    }
  }

  closeOpen(): void {
    for (const block of this.blocks.values()) if (block.kind === "tool") endToolCall(block, this.emit);
  }

  content(): ContentBlock[] {
    const ordered = [...this.blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
    const out: ContentBlock[] = [];
    for (const block of ordered) {
      if (block.kind === "text") {
        if (block.text !== "") out.push({ type: "text", text: block.text });
      } else if (block.kind === "tool") {
        out.push({ type: "tool_call", id: block.id, name: block.name, arguments: block.args.trim() === "" ? "{}" : block.args });
      } else if (block.kind === "thinking") {
        out.push(
          block.signature
            ? { type: "thinking", thinking: block.thinking, signature: block.signature }
            : { type: "thinking", thinking: block.thinking },
        );
      } else {
        out.push({ type: "redacted_thinking", data: block.data });
      }
    }
    return out;
  }

  stopReason(): StopReason {
    if (this.stop) return this.stop;
    return [...this.blocks.values()].some((block) => block.kind === "tool") ? "tool_use" : "end";
  }

  usage(): Usage {
    return { ...this.tokens };
  }
}

export function createAnthropicClient(options: AnthropicClientOptions): ProviderClient {
  const base = options.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL;
  const conversation = anthropicConversation();
  return {
    name: "anthropic",
    stream(request: StreamRequest, onEvent: (event: StreamEvent) => void): Promise<StreamResult> {
      const body = buildAnthropicBody(request, conversation);
      logAnthropicRequest(body);
      return runStream({
        label: "anthropic",
        terminalName: "message_stop",
        url: joinUrl(base, "v1/messages"),
        headers: { "x-api-key": options.apiKey, "anthropic-version": ANTHROPIC_VERSION },
        body,
        request,
        ...streamLimits(options),
        decoder: (emit, countOutput) => new AnthropicDecoder(emit, countOutput),
        onEvent,
      });
    },
  };
}
