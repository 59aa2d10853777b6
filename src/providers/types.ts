/**
 * The provider-neutral conversation model and the streaming client contract.
 * Every area (agent, tools, session, modes, providers) speaks these types.
 * JSON field names are snake_case so messages serialise unchanged into session
 * files and --json output.
 */
import { ZotError, type ErrorContext } from "../common/errors.ts";

export interface TextBlock {
  readonly type: "text";
  readonly text: string;
}

/** Base64 image data. */
export interface ImageBlock {
  readonly type: "image";
  readonly mime_type: string;
  readonly data: string;
}

export interface ToolCallBlock {
  readonly type: "tool_call";
  readonly id: string;
  readonly name: string;
  /** The raw JSON text of the arguments as the model produced it. */
  readonly arguments: string;
  /** Set when an extension (tool_prompt) originated the call. */
  readonly origin_extension?: string;
}

export interface ToolResultBlock {
  readonly type: "tool_result";
  readonly call_id: string;
  readonly content: readonly (TextBlock | ImageBlock)[];
  readonly is_error: boolean;
}

/** Anthropic extended thinking, replayed verbatim so multi-step tool use works. */
export interface ThinkingBlock {
  readonly type: "thinking";
  readonly thinking: string;
  readonly signature?: string;
}

export interface RedactedThinkingBlock {
  readonly type: "redacted_thinking";
  readonly data: string;
}

/** OpenAI reasoning (Responses API items, chat reasoning_content). */
export interface ReasoningBlock {
  readonly type: "reasoning";
  readonly id?: string;
  readonly summary?: string;
  readonly encrypted_content?: string;
}

export type ContentBlock =
  | TextBlock
  | ImageBlock
  | ToolCallBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ReasoningBlock;

export type Role = "user" | "assistant" | "tool";

export interface Message {
  readonly role: Role;
  readonly content: readonly ContentBlock[];
  /** RFC 3339 timestamp. */
  readonly time: string;
  readonly meta?: Readonly<Record<string, string>>;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
}

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0 };
}

export function addUsage(into: Usage, add: Usage): Usage {
  into.input_tokens += add.input_tokens;
  into.output_tokens += add.output_tokens;
  into.cache_read_tokens += add.cache_read_tokens;
  into.cache_write_tokens += add.cache_write_tokens;
  into.cost_usd += add.cost_usd;
  return into;
}

export type StopReason = "end" | "length" | "tool_use" | "error" | "aborted";

export type ReasoningLevel = "low" | "medium" | "high";

export type ProviderName = "anthropic" | "openai" | "kimi" | "ollama";

/** One catalog entry. Prices are USD per million tokens. */
export interface ModelInfo {
  readonly provider: ProviderName;
  readonly id: string;
  readonly name: string;
  readonly contextWindow: number;
  readonly maxOutput: number;
  readonly reasoning: boolean;
  readonly priceInput: number;
  readonly priceOutput: number;
  readonly priceCacheRead: number;
  readonly priceCacheWrite: number;
  /** OpenAI models that are only served by the Responses API. */
  readonly api?: "chat" | "responses";
  readonly baseUrl?: string;
  /** live: the original zot's discovered model list ($ZOT_HOME/models-cache.json, providers/models-cache.ts). */
  readonly source: "catalog" | "live" | "user" | "ollama";
  /** Listed ahead of a confirmed release; shown as "speculative" by --list-models. */
  readonly speculative?: boolean;
}

/** A tool as advertised to the model. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON Schema object of the arguments. */
  readonly schema: Readonly<Record<string, unknown>>;
}

export interface StreamRequest {
  readonly model: ModelInfo;
  readonly system: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSpec[];
  readonly reasoning?: ReasoningLevel;
  readonly maxTokens?: number;
  readonly signal: AbortSignal;
  /**
   * Called once the model's response has begun (a 2xx, before its events are
   * read): from here on a failure is the stream's, not the request's (the
   * agent emits assistant_start then, as the original does).
   */
  readonly onResponseStart?: () => void;
}

/**
 * A transient failure before the stream started, about to be retried
 * (retry.ts). `message` is zot's own one-line notice (no server text):
 * "anthropic: retrying in 4 s (retry 1 of 5): 429 rate limited"; `error` is
 * the failure line as it would have ended the run (it may quote the server).
 */
export type RetryNotice = {
  readonly provider: string;
  /** 1 for the first retry. */
  readonly attempt: number;
  readonly max_retries: number;
  readonly delay_ms: number;
  /** HTTP status; absent for network failures. */
  readonly status?: number;
  readonly error: string;
  readonly message: string;
};

/** Incremental events while a response streams (`retry` only before it starts). */
export type StreamEvent =
  | { readonly type: "text_delta"; readonly delta: string }
  | { readonly type: "thinking_delta"; readonly delta: string }
  | { readonly type: "tool_use_start"; readonly id: string; readonly name: string }
  | { readonly type: "tool_use_args"; readonly id: string; readonly delta: string }
  | { readonly type: "tool_use_end"; readonly id: string }
  | { readonly type: "usage"; readonly usage: Usage }
  | ({ readonly type: "retry" } & RetryNotice);

/** The assembled outcome of one model call. */
export interface StreamResult {
  /** The assistant message (role "assistant"), possibly partial when aborted. */
  readonly message: Message;
  readonly stop: StopReason;
  readonly usage: Usage;
}

export interface ProviderClient {
  readonly name: ProviderName;
  /**
   * Streams one model response. Resolves with the assembled message; an abort
   * resolves with stop "aborted" and the partial message. Failures reject
   * with a ProviderError.
   */
  stream(request: StreamRequest, onEvent: (event: StreamEvent) => void): Promise<StreamResult>;
}

export type ProviderErrorKind =
  | "http" // non-2xx status from the provider
  | "network" // connection failed or dropped
  | "stalled" // no response, no event, or only keepalives for too long (http.ts)
  | "truncated" // stream ended without its terminal event
  | "malformed" // unparseable event
  | "too_large" // an event or the whole response over its size cap
  | "api" // provider-reported error event inside the stream
  | "config"; // missing key, unknown model, ...

export class ProviderError extends ZotError {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status?: number,
    context: ErrorContext = {},
    options?: { cause?: unknown },
  ) {
    super(`provider.${kind}`, message, { ...context, status }, options);
  }
}
