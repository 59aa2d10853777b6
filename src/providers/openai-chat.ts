/**
 * OpenAI Chat Completions client (`{base}/v1/chat/completions`, or
 * `{base}/chat/completions` when base ends in /v1), streaming. Also serves
 * Ollama and any OpenAI-compatible server. Request: system message first,
 * images as data URLs, tool results as role "tool" messages, reasoning models
 * get max_completion_tokens (+ reasoning_effort), others max_tokens.
 * Response: text deltas, tool_calls assembled by index (announced once id and
 * name are known; calls by index count against the 1024-call cap, and
 * arguments buffered before that against the output cap, as shared.ts's),
 * reasoning_content kept as a reasoning block, usage from the
 * include_usage chunk (input = prompt − cached; cached → cache read);
 * `data: [DONE]` is the terminal event; a top-level `error` (or a chunk
 * with `"object": "error"`, or an SSE event named `error`: vLLM, gateways)
 * → ProviderError "api"
 * (`openai: <message>`, also for the "kimi" client, as the original words it).
 * A connection failure of the "ollama" client says an Ollama server is expected there.
 * Assistant turns with neither text nor tool calls are left out (Kimi rejects them).
 */
import * as v from "valibot";
import type { SseEvent } from "./sse.ts";
import { resolveMaxOutputChars } from "./http.ts";
import {
  dataUrl,
  endToolCall,
  MAX_TOOL_CALLS,
  openAiUrl,
  openAiUsage,
  outputTooLong,
  parseEventJson,
  runStream,
  streamErrorEvent,
  streamLimits,
  tooManyToolCalls,
  validateEvent,
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
  type ProviderName,
  type StopReason,
  type StreamEvent,
  type StreamRequest,
  type StreamResult,
  type Usage,
} from "./types.ts";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com";
/** Added to a connection failure of the ollama provider. */
export const OLLAMA_CONNECT_HINT = "is an Ollama server running there? (`ollama serve`)";

export interface OpenAiClientOptions extends ClientOptions {
  /** The client's name; "ollama" for local servers, "kimi" for Kimi Code. */
  readonly name?: ProviderName;
}

type JsonObject = Record<string, unknown>;

function userContent(blocks: readonly ContentBlock[]): string | JsonObject[] | undefined {
  const parts: JsonObject[] = [];
  for (const block of blocks) {
    if (block.type === "text" && block.text !== "") parts.push({ type: "text", text: block.text });
    if (block.type === "image") parts.push({ type: "image_url", image_url: { url: dataUrl(block.mime_type, block.data) } });
  }
  if (parts.length === 0) return undefined;
  if (parts.every((part) => part.type === "text")) return parts.map((part) => part.text as string).join("\n");
  return parts;
}

function toolMessages(blocks: readonly ContentBlock[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const block of blocks) {
    if (block.type !== "tool_result") continue;
    const hasImage = block.content.some((part) => part.type === "image");
    let content: string | JsonObject[];
    if (!hasImage) {
      content = block.content.map((part) => (part.type === "text" ? part.text : "")).join("\n") + (block.is_error ? " [error]" : "");
    } else {
      content = block.content.map((part) =>
        part.type === "text"
          ? { type: "text", text: part.text }
          : { type: "image_url", image_url: { url: dataUrl(part.mime_type, part.data) } },
      );
      if (block.is_error) content.push({ type: "text", text: "[error]" });
    }
    out.push({ role: "tool", tool_call_id: block.call_id, content });
  }
  return out;
}

function assistantMessage(message: Message): JsonObject | undefined {
  const text = message.content
    .filter((block): block is Extract<ContentBlock, { type: "text" }> => block.type === "text" && block.text.trim() !== "")
    .map((block) => block.text)
    .join("\n");
  const calls = message.content.flatMap((block) =>
    block.type === "tool_call"
      ? [{ id: block.id, type: "function", function: { name: block.name, arguments: block.arguments.trim() === "" ? "{}" : block.arguments } }]
      : [],
  );
  if (text === "" && calls.length === 0) return undefined; // Kimi (and some other servers) reject empty assistant turns
  const out: JsonObject = { role: "assistant", content: text === "" ? null : text };
  if (calls.length > 0) {
    out.tool_calls = calls;
    const reasoning = message.content
      .flatMap((block) => (block.type === "reasoning" && block.summary ? [block.summary] : []))
      .join("\n");
    if (reasoning !== "") out.reasoning_content = reasoning;
  }
  return out;
}

function toWireMessages(message: Message): JsonObject[] {
  if (message.role === "assistant") {
    const wire = assistantMessage(message);
    return wire ? [wire] : [];
  }
  const out = toolMessages(message.content);
  const content = userContent(message.content);
  if (content !== undefined) out.push({ role: "user", content });
  return out;
}

/** A client's incremental converter of its conversation (wire-conversation.ts). */
export function chatConversation(): WireConversation<JsonObject> {
  return new WireConversation(toWireMessages);
}

/**
 * The JSON body of one Chat Completions request; `conversation` (the
 * client's) converts only the messages appended since its previous request.
 */
export function buildChatBody(request: StreamRequest, conversation = chatConversation()): JsonObject {
  const converted = conversation.items(request.messages);
  const messages: JsonObject[] = request.system !== "" ? [{ role: "system", content: request.system }, ...converted] : converted;
  const body: JsonObject = { model: request.model.id, messages, stream: true, stream_options: { include_usage: true } };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.schema },
    }));
    body.tool_choice = "auto";
  }
  const maxTokens = request.maxTokens ?? request.model.maxOutput;
  if (request.model.reasoning) {
    body.max_completion_tokens = maxTokens;
    if (request.reasoning) body.reasoning_effort = request.reasoning;
  } else {
    body.max_tokens = maxTokens;
  }
  return body;
}

const ToolCallDeltaSchema = v.looseObject({
  index: v.optional(v.number()),
  id: v.nullish(v.string()),
  function: v.nullish(v.looseObject({ name: v.nullish(v.string()), arguments: v.nullish(v.string()) })),
});
const ChunkSchema = v.looseObject({
  choices: v.nullish(
    v.array(
      v.looseObject({
        delta: v.nullish(
          v.looseObject({
            content: v.nullish(v.string()),
            reasoning_content: v.nullish(v.string()),
            tool_calls: v.nullish(v.array(ToolCallDeltaSchema)),
          }),
        ),
        finish_reason: v.nullish(v.string()),
      }),
    ),
  ),
  usage: v.nullish(
    v.looseObject({
      prompt_tokens: v.optional(v.unknown()),
      completion_tokens: v.optional(v.unknown()),
      prompt_tokens_details: v.nullish(v.looseObject({ cached_tokens: v.optional(v.unknown()) })),
    }),
  ),
  error: v.nullish(v.union([v.string(), v.looseObject({ message: v.nullish(v.string()), type: v.nullish(v.string()) })])),
  // vLLM-style errors mid-stream: {"object":"error","message":…}.
  object: v.optional(v.unknown()),
  message: v.optional(v.unknown()),
});

type Part =
  | { kind: "text"; text: string }
  | { kind: "tool"; id: string; name: string; args: string; announced: boolean; ended: boolean };

class ChatDecoder implements StreamDecoder {
  private readonly parts: Part[] = [];
  private readonly toolsByIndex = new Map<number, Extract<Part, { kind: "tool" }>>();
  private reasoning = "";
  private readonly tokens: Usage = emptyUsage();
  private finish: string | undefined;
  /** Argument characters of calls not yet announced (no id or name yet): runStream's output cap does not see them. */
  private unannouncedChars = 0;
  private readonly maxOutputChars = resolveMaxOutputChars();

  constructor(
    private readonly label: string,
    private readonly emit: (event: StreamEvent) => void,
  ) {}

  handle(event: SseEvent): boolean {
    if (event.data.trim() === "[DONE]") return true;
    const chunk = validateEvent(this.label, event, ChunkSchema, parseEventJson(this.label, event));
    if (chunk.error) {
      const message = typeof chunk.error === "string" ? chunk.error : (chunk.error.message ?? "stream error");
      throw streamErrorEvent(`${this.label}: ${message}`);
    }
    if (chunk.object === "error" || event.event === "error") {
      throw streamErrorEvent(`${this.label}: ${typeof chunk.message === "string" && chunk.message.trim() !== "" ? chunk.message : "stream error"}`);
    }
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta;
      if (delta?.reasoning_content) {
        this.reasoning += delta.reasoning_content;
        this.emit({ type: "thinking_delta", delta: delta.reasoning_content });
      }
      if (delta?.content) this.appendText(delta.content);
      for (const call of delta?.tool_calls ?? []) this.applyToolDelta(call);
      if (choice.finish_reason) {
        this.finish = choice.finish_reason;
        this.closeOpen();
      }
    }
    if (chunk.usage) {
      const { prompt_tokens, completion_tokens, prompt_tokens_details } = chunk.usage;
      Object.assign(this.tokens, openAiUsage(prompt_tokens, completion_tokens, prompt_tokens_details?.cached_tokens));
    }
    return false;
  }

  private appendText(text: string): void {
    const last = this.parts[this.parts.length - 1];
    if (last?.kind === "text") last.text += text;
    else this.parts.push({ kind: "text", text });
    this.emit({ type: "text_delta", delta: text });
  }

  private applyToolDelta(call: v.InferOutput<typeof ToolCallDeltaSchema>): void {
    const index = call.index ?? this.toolsByIndex.size;
    let tool = this.toolsByIndex.get(index);
    if (!tool) {
      if (this.toolsByIndex.size >= MAX_TOOL_CALLS) throw tooManyToolCalls(this.label);
      tool = { kind: "tool", id: "", name: "", args: "", announced: false, ended: false };
      this.toolsByIndex.set(index, tool);
      this.parts.push(tool);
    }
    if (call.id) tool.id = call.id;
    if (call.function?.name) tool.name += call.function.name;
    const args = call.function?.arguments ?? "";
    if (!tool.announced) {
      this.unannouncedChars += args.length + (call.function?.name?.length ?? 0);
      if (this.unannouncedChars > this.maxOutputChars) throw outputTooLong(this.label, this.maxOutputChars);
    }
    tool.args += args;
    if (!tool.announced && tool.id !== "" && tool.name !== "") {
      tool.announced = true;
      this.emit({ type: "tool_use_start", id: tool.id, name: tool.name });
      if (tool.args !== "") this.emit({ type: "tool_use_args", id: tool.id, delta: tool.args });
    } else if (tool.announced && args !== "") {
      this.emit({ type: "tool_use_args", id: tool.id, delta: args });
    }
  }

  closeOpen(): void {
    for (const tool of this.toolsByIndex.values()) if (tool.announced) endToolCall(tool, this.emit);
  }

  content(): ContentBlock[] {
    const out: ContentBlock[] = [];
    if (this.reasoning !== "") out.push({ type: "reasoning", summary: this.reasoning });
    for (const part of this.parts) {
      if (part.kind === "text") out.push({ type: "text", text: part.text });
      else if (part.id !== "" || part.name !== "") {
        out.push({ type: "tool_call", id: part.id, name: part.name, arguments: part.args.trim() === "" ? "{}" : part.args });
      }
    }
    return out;
  }

  stopReason(): StopReason {
    if (this.finish === "length") return "length";
    // Some compatible servers finish with "stop" even when they called tools.
    if (this.toolsByIndex.size > 0) return "tool_use";
    return "end";
  }

  usage(): Usage {
    return { ...this.tokens };
  }
}

export function createOpenAiChatClient(options: OpenAiClientOptions): ProviderClient {
  const base = options.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
  const name = options.name ?? "openai";
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const conversation = chatConversation();
  return {
    name,
    stream(request: StreamRequest, onEvent: (event: StreamEvent) => void): Promise<StreamResult> {
      return runStream({
        label: name,
        terminalName: "[DONE]",
        url: openAiUrl(base, "chat/completions"),
        headers,
        body: buildChatBody(request, conversation),
        request,
        ...streamLimits(options),
        ...(name === "ollama" ? { connectHint: OLLAMA_CONNECT_HINT } : {}),
        decoder: (emit) => new ChatDecoder(name === "kimi" ? "openai" : name, emit),
        onEvent,
      });
    },
  };
}
