/**
 * OpenAI Responses API client (`{base}/v1/responses`, streaming) for catalog
 * models marked `api: "responses"`. Request: `instructions` + input items,
 * `store:false`, `include:["reasoning.encrypted_content"]`; reasoning items
 * (with their encrypted content) are replayed, tool calls travel as
 * function_call items and results as function_call_output items.
 * Response: output items assembled by output_index from output_item.added /
 * output_text.delta / function_call_arguments.delta / output_item.done;
 * `response.completed` (or `response.incomplete`) is terminal and carries
 * usage; `response.failed` and `error` reject with ProviderError "api".
 */
import * as v from "valibot";
import type { SseEvent } from "./sse.ts";
import { OPENAI_DEFAULT_BASE_URL, type OpenAiClientOptions } from "./openai-chat.ts";
import {
  dataUrl,
  endToolCall,
  MAX_CONTENT_BLOCKS,
  openAiUrl,
  openAiUsage,
  runStream,
  streamErrorEvent,
  streamLimits,
  taggedEventDecoder,
  tooManyBlocks,
  type StreamDecoder,
} from "./shared.ts";
import { WireConversation } from "./wire-conversation.ts";
import {
  ProviderError,
  emptyUsage,
  type ContentBlock,
  type Message,
  type ProviderClient,
  type StopReason,
  type StreamEvent,
  type StreamRequest,
  type StreamResult,
  type Usage,
} from "./types.ts";

type JsonObject = Record<string, unknown>;

function messageItems(message: Message): JsonObject[] {
  const items: JsonObject[] = [];
  if (message.role === "assistant") {
    for (const block of message.content) {
      if (block.type === "text" && block.text.trim() !== "") {
        items.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: block.text }] });
      } else if (block.type === "tool_call") {
        items.push({ type: "function_call", call_id: block.id, name: block.name, arguments: block.arguments || "{}" });
      } else if (block.type === "reasoning" && block.encrypted_content) {
        items.push({
          type: "reasoning",
          ...(block.id ? { id: block.id } : {}),
          summary: block.summary ? [{ type: "summary_text", text: block.summary }] : [],
          encrypted_content: block.encrypted_content,
        });
      }
    }
    return items;
  }
  const parts: JsonObject[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result") {
      const text = block.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n");
      items.push({ type: "function_call_output", call_id: block.call_id, output: block.is_error ? `${text} [error]` : text });
    } else if (block.type === "text" && block.text !== "") {
      parts.push({ type: "input_text", text: block.text });
    } else if (block.type === "image") {
      parts.push({ type: "input_image", image_url: dataUrl(block.mime_type, block.data) });
    }
  }
  if (parts.length > 0) items.push({ role: "user", content: parts });
  return items;
}

/** A client's incremental converter of its conversation (wire-conversation.ts). */
export function responsesConversation(): WireConversation<JsonObject> {
  return new WireConversation(messageItems);
}

/**
 * The JSON body of one Responses API request; `conversation` (the client's)
 * converts only the messages appended since its previous request.
 */
export function buildResponsesBody(request: StreamRequest, conversation = responsesConversation()): JsonObject {
  const body: JsonObject = {
    model: request.model.id,
    input: conversation.items(request.messages),
    stream: true,
    store: false,
    include: ["reasoning.encrypted_content"],
    max_output_tokens: request.maxTokens ?? request.model.maxOutput,
  };
  if (request.system !== "") body.instructions = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.schema,
      strict: false,
    }));
    body.tool_choice = "auto";
  }
  if (request.model.reasoning && request.reasoning) body.reasoning = { effort: request.reasoning, summary: "auto" };
  return body;
}

const ItemSchema = v.looseObject({
  type: v.string(),
  id: v.nullish(v.string()),
  call_id: v.nullish(v.string()),
  name: v.nullish(v.string()),
  arguments: v.nullish(v.string()),
  encrypted_content: v.nullish(v.string()),
  summary: v.nullish(v.array(v.looseObject({ text: v.nullish(v.string()) }))),
  content: v.nullish(v.array(v.looseObject({ type: v.string(), text: v.nullish(v.string()) }))),
});
type WireItem = v.InferOutput<typeof ItemSchema>;
const ResponseSchema = v.looseObject({
  status: v.nullish(v.string()),
  usage: v.nullish(
    v.looseObject({
      input_tokens: v.optional(v.unknown()),
      output_tokens: v.optional(v.unknown()),
      input_tokens_details: v.nullish(v.looseObject({ cached_tokens: v.optional(v.unknown()) })),
    }),
  ),
  incomplete_details: v.nullish(v.looseObject({ reason: v.nullish(v.string()) })),
  error: v.nullish(v.looseObject({ code: v.nullish(v.string()), message: v.nullish(v.string()) })),
});
const EventSchema = v.variant("type", [
  v.looseObject({ type: v.literal("response.output_item.added"), output_index: v.number(), item: ItemSchema }),
  v.looseObject({ type: v.literal("response.output_item.done"), output_index: v.number(), item: ItemSchema }),
  v.looseObject({ type: v.literal("response.output_text.delta"), output_index: v.number(), delta: v.string() }),
  v.looseObject({ type: v.literal("response.function_call_arguments.delta"), output_index: v.number(), delta: v.string() }),
  v.looseObject({ type: v.literal("response.reasoning_summary_text.delta"), output_index: v.number(), delta: v.string() }),
  v.looseObject({ type: v.literal("response.completed"), response: ResponseSchema }),
  v.looseObject({ type: v.literal("response.incomplete"), response: ResponseSchema }),
  v.looseObject({ type: v.literal("response.failed"), response: ResponseSchema }),
  v.looseObject({ type: v.literal("error"), code: v.nullish(v.string()), message: v.nullish(v.string()) }),
]);
/** Events the schema lists, validated; undefined for kinds zot does not use. */
const decodeEvent = taggedEventDecoder("openai", EventSchema);

type OutputItem =
  | { kind: "message"; text: string }
  | { kind: "call"; id: string; name: string; args: string; ended: boolean }
  | { kind: "reasoning"; id?: string; summary: string; encrypted?: string }
  | { kind: "other" };

class ResponsesDecoder implements StreamDecoder {
  private readonly items = new Map<number, OutputItem>();
  private readonly tokens: Usage = emptyUsage();
  private stop: StopReason = "end";

  constructor(
    private readonly emit: (event: StreamEvent) => void,
    private readonly countOutput: (chars: number) => void,
  ) {}

  handle(event: SseEvent): boolean {
    const data = decodeEvent(event);
    if (data === undefined) return false;
    switch (data.type) {
      case "response.output_item.added":
        this.addItem(data.output_index, data.item);
        return false;
      case "response.output_item.done":
        this.finishItem(data.output_index, data.item);
        return false;
      case "response.output_text.delta": {
        const item = this.items.get(data.output_index);
        if (item?.kind === "message") item.text += data.delta;
        else {
          if (this.items.size >= MAX_CONTENT_BLOCKS && item === undefined) throw tooManyBlocks("openai");
          this.items.set(data.output_index, { kind: "message", text: data.delta });
        }
        if (data.delta) this.emit({ type: "text_delta", delta: data.delta });
        return false;
      }
      case "response.function_call_arguments.delta": {
        const item = this.items.get(data.output_index);
        if (item?.kind === "call" && data.delta) {
          item.args += data.delta;
          this.emit({ type: "tool_use_args", id: item.id, delta: data.delta });
        }
        return false;
      }
      case "response.reasoning_summary_text.delta": {
        const item = this.items.get(data.output_index);
        if (item?.kind === "reasoning" && data.delta) {
          item.summary += data.delta;
          this.emit({ type: "thinking_delta", delta: data.delta });
        }
        return false;
      }
      case "response.completed":
      case "response.incomplete":
        this.takeResponse(data.response, data.type === "response.incomplete");
        return true;
      case "response.failed": {
        const error = data.response.error;
        throw streamErrorEvent(`openai: ${error?.code ?? "response_failed"}: ${error?.message ?? "response failed"}`);
      }
      case "error":
        throw streamErrorEvent(`openai: ${data.code ?? "error"}: ${data.message ?? "stream error"}`);
    }
  }

  private addItem(index: number, item: WireItem): void {
    if (this.items.size >= MAX_CONTENT_BLOCKS && !this.items.has(index)) throw tooManyBlocks("openai");
    if (item.type === "function_call") {
      const id = item.call_id ?? item.id ?? "";
      const name = item.name ?? "";
      this.items.set(index, { kind: "call", id, name, args: item.arguments ?? "", ended: false });
      this.emit({ type: "tool_use_start", id, name });
      if (item.arguments) this.emit({ type: "tool_use_args", id, delta: item.arguments });
    } else if (item.type === "message") {
      this.items.set(index, { kind: "message", text: "" });
    } else if (item.type === "reasoning") {
      this.items.set(index, { kind: "reasoning", ...(item.id ? { id: item.id } : {}), summary: "" });
    } else {
      this.items.set(index, { kind: "other" });
    }
  }

  private finishItem(index: number, item: WireItem): void {
    const current = this.items.get(index);
    if (item.type === "function_call" && current?.kind === "call") {
      if (typeof item.arguments === "string" && item.arguments !== "") {
        // What the done item adds beyond the streamed deltas counts as output too.
        this.countOutput(item.arguments.length - current.args.length);
        current.args = item.arguments;
      }
      endToolCall(current, this.emit);
    } else if (item.type === "reasoning") {
      const summary = (item.summary ?? []).map((part) => part.text ?? "").join("\n");
      this.countOutput(summary.length - (current?.kind === "reasoning" ? current.summary.length : 0) + (item.encrypted_content?.length ?? 0));
      this.items.set(index, {
        kind: "reasoning",
        ...(item.id ? { id: item.id } : {}),
        summary: summary || (current?.kind === "reasoning" ? current.summary : ""),
        ...(item.encrypted_content ? { encrypted: item.encrypted_content } : {}),
      });
    } else if (item.type === "message" && current?.kind === "message" && current.text === "") {
      current.text = (item.content ?? []).map((part) => part.text ?? "").join("");
      this.countOutput(current.text.length);
    }
  }

  private takeResponse(response: v.InferOutput<typeof ResponseSchema>, incomplete: boolean): void {
    const usage = response.usage;
    if (usage) Object.assign(this.tokens, openAiUsage(usage.input_tokens, usage.output_tokens, usage.input_tokens_details?.cached_tokens));
    const hasCalls = [...this.items.values()].some((item) => item.kind === "call");
    if (incomplete) this.stop = response.incomplete_details?.reason === "max_output_tokens" ? "length" : "end";
    else this.stop = hasCalls ? "tool_use" : "end";
  }

  closeOpen(): void {
    for (const item of this.items.values()) if (item.kind === "call") endToolCall(item, this.emit);
  }

  content(): ContentBlock[] {
    const out: ContentBlock[] = [];
    for (const [, item] of [...this.items.entries()].sort(([a], [b]) => a - b)) {
      if (item.kind === "message" && item.text !== "") out.push({ type: "text", text: item.text });
      else if (item.kind === "call") out.push({ type: "tool_call", id: item.id, name: item.name, arguments: item.args.trim() === "" ? "{}" : item.args });
      else if (item.kind === "reasoning") {
        out.push({
          type: "reasoning",
          ...(item.id ? { id: item.id } : {}),
          ...(item.summary ? { summary: item.summary } : {}),
          ...(item.encrypted ? { encrypted_content: item.encrypted } : {}),
        });
      }
    }
    return out;
  }

  stopReason(): StopReason {
    return this.stop;
  }

  usage(): Usage {
    return { ...this.tokens };
  }
}

export function createOpenAiResponsesClient(options: OpenAiClientOptions): ProviderClient {
  const base = options.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const conversation = responsesConversation();
  return {
    name: options.name ?? "openai",
    stream(request: StreamRequest, onEvent: (event: StreamEvent) => void): Promise<StreamResult> {
      return runStream({
        label: "openai",
        terminalName: "response.completed",
        url: openAiUrl(base, "responses"),
        headers,
        body: buildResponsesBody(request, conversation),
        request,
        ...streamLimits(options),
        decoder: (emit, countOutput) => new ResponsesDecoder(emit, countOutput),
        onEvent,
      });
    },
  };
}
