/**
 * Pieces every streaming client shares: the connection options every client
 * takes (`ClientOptions`), the request → SSE → decoder loop with its abort /
 * truncation rules (`runStream`; it reports every event and every piece of
 * model output to http.ts's stall deadlines, and retries as `retry` stream
 * events; it stops reading while zot's stdout is behind, common/stdout.ts), cost from catalog prices, event JSON parsing (nesting bounded by
 * MAX_JSON_DEPTH) that fails as ProviderError "malformed" (`taggedEventDecoder` for dialects
 * whose events carry a `type` tag), the decoder rules the dialects
 * need (tool_use_end emitted once per call, OpenAI cached-token accounting).
 * The transcript clean-up before a request (orphan tool results dropped) is
 * wire-conversation.ts.
 */
import * as v from "valibot";
import { settledOrAborted } from "../common/abortable-wait.ts";
import { MAX_JSON_DEPTH, MAX_VALUE_DEPTH, describeJsonProblem, parseJson } from "../common/json.ts";
import { stdoutRoom } from "../common/stdout.ts";
import type { ErrorContext } from "../common/errors.ts";
import { oneLine, withoutSecrets } from "./http-errors.ts";
import { quickAccept } from "./quick-accept.ts";
import { postStream, resolveMaxOutputChars, type PostStreamOptions, type StreamingResponse } from "./http.ts";
import type { RetryPolicy } from "./retry.ts";
import { charsText, SseParser, type SseEvent } from "./sse.ts";
import {
  ProviderError,
  emptyUsage,
  type ContentBlock,
  type Message,
  type ModelInfo,
  type StopReason,
  type StreamEvent,
  type StreamRequest,
  type StreamResult,
  type Usage,
} from "./types.ts";

/** What every concrete client is built from (CreateClientOptions adds the provider). */
export interface ClientOptions {
  /** Empty for servers that need no key (Ollama). */
  readonly apiKey: string;
  readonly baseUrl?: string;
  /** Longest wait for the response, or between two SSE events, before a stream counts as stalled (default: env or 120 s). */
  readonly stallTimeoutMs?: number;
  /** Longest time a stream may carry only keepalives, no model output (default: env or 600 s). */
  readonly keepaliveTimeoutMs?: number;
  /** Largest response in bytes (default: env or 256 MiB). */
  readonly maxResponseBytes?: number;
  /** Overrides of the retry policy before a stream starts (retry.ts; default 5 retries, 60 s of waiting). */
  readonly retry?: Partial<RetryPolicy>;
}

/** The ClientOptions fields every dialect hands on to runStream unchanged. */
export function streamLimits(options: ClientOptions): Pick<ClientOptions, "stallTimeoutMs" | "keepaliveTimeoutMs" | "maxResponseBytes" | "retry"> {
  return {
    stallTimeoutMs: options.stallTimeoutMs,
    keepaliveTimeoutMs: options.keepaliveTimeoutMs,
    maxResponseBytes: options.maxResponseBytes,
    retry: options.retry,
  };
}

/** USD cost of one call: Σ tokens × price per million. */
export function computeCost(usage: Usage, model: ModelInfo): number {
  return (
    (usage.input_tokens * model.priceInput +
      usage.output_tokens * model.priceOutput +
      usage.cache_read_tokens * model.priceCacheRead +
      usage.cache_write_tokens * model.priceCacheWrite) /
    1_000_000
  );
}

/** Parses one event's JSON payload; unparseable or too deeply nested text is ProviderError "malformed" (one line, at most 500 characters). */
export function parseEventJson(label: string, event: SseEvent): unknown {
  const parsed = parseJson(event.data, MAX_JSON_DEPTH);
  if (parsed.ok) return parsed.value;
  const detail = parsed.problem.kind === "too_deep" ? `${describeJsonProblem(parsed.problem)}: ` : "";
  throw new ProviderError("malformed", oneLine(`${label}: unparseable ${oneLine(event.event, 100)} event: ${detail}${event.data.slice(0, 120)}`));
}

/** The string `type` field of an event payload, if any (to skip unknown event kinds). */
export function eventType(json: unknown): string | undefined {
  if (json === null || typeof json !== "object") return undefined;
  const type = (json as { type?: unknown }).type;
  return typeof type === "string" ? type : undefined;
}

/**
 * Validates a parsed payload against its schema; a mismatch is ProviderError
 * "malformed" (one line, at most 500 characters). A payload the schema's quick predicate accepts (quick-accept.ts:
 * only values valibot accepts unchanged) is returned as it is, without
 * valibot's copy; anything else is valibot's to decide and word.
 */
export function validateEvent<TSchema extends v.GenericSchema>(
  label: string,
  event: SseEvent,
  schema: TSchema,
  json: unknown,
): v.InferOutput<TSchema> {
  if (quickAccept(schema)(json)) return json as v.InferOutput<TSchema>;
  const result = v.safeParse(schema, json);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = issue ? (v.getDotPath(issue) ?? "") : "";
  // The server's text (event name, field names, the value received) may hold newlines or megabytes: one line, bounded.
  throw new ProviderError(
    "malformed",
    oneLine(`${label}: unexpected ${oneLine(event.event, 100)} event${path ? ` (field "${oneLine(path, 100)}")` : ""}: ${issue?.message ?? "invalid"}`),
  );
}

/** A v.variant("type", …) event schema whose options all tag `type` with a literal. */
type TaggedEventSchema = v.GenericSchema & {
  readonly options: readonly (v.GenericSchema & { readonly entries: { readonly type: { readonly literal: string } } })[];
};

/**
 * Decoder for a dialect whose event payloads carry a `type` tag: parses the
 * JSON, returns undefined for kinds the schema does not list (pings, future
 * events), and validates the listed ones (a mismatch is "malformed"). Each
 * event is checked against its own option, picked by its tag: what the
 * variant would pick, without building a rejection issue (message string
 * included) for every option listed before it.
 */
export function taggedEventDecoder<TSchema extends TaggedEventSchema>(
  label: string,
  schema: TSchema,
): (event: SseEvent) => v.InferOutput<TSchema> | undefined {
  const byType = new Map<string, v.GenericSchema>();
  // The variant tries its options in order: the first one with the tag wins.
  for (const option of schema.options) if (!byType.has(option.entries.type.literal)) byType.set(option.entries.type.literal, option);
  return (event) => {
    const json = parseEventJson(label, event);
    const type = eventType(json);
    const option = type === undefined ? undefined : byType.get(type);
    if (option === undefined) return undefined;
    return validateEvent(label, event, option, json) as v.InferOutput<TSchema>;
  };
}

/**
 * Tool-call arguments as a JSON object; empty, invalid or too deeply nested
 * (over MAX_VALUE_DEPTH, e.g. from a session written before the bound) text
 * becomes {}, so the request body always serialises.
 */
export function argumentsObject(raw: string): Record<string, unknown> {
  if (raw.trim() === "") return {};
  const parsed = parseJson(raw, MAX_VALUE_DEPTH);
  if (!parsed.ok) return {};
  const value = parsed.value;
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function dataUrl(mimeType: string, data: string): string {
  return `data:${mimeType};base64,${data}`;
}

/** Joins a URL base and a path without doubling or losing slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

/** OpenAI-style endpoints: `{base}/v1/<path>`, or `{base}/<path>` when base already ends in /v1. */
export function openAiUrl(base: string, path: string): string {
  const trimmed = base.replace(/\/+$/, "");
  return trimmed.endsWith("/v1") ? joinUrl(trimmed, path) : joinUrl(trimmed, `v1/${path}`);
}

/** A tool call being streamed; `ended` once its tool_use_end went out. */
export interface StreamingToolCall {
  readonly id: string;
  ended: boolean;
}

/** Ends a streamed tool call: emits tool_use_end the first time only. */
export function endToolCall(call: StreamingToolCall, emit: (event: StreamEvent) => void): void {
  if (call.ended) return;
  call.ended = true;
  emit({ type: "tool_use_end", id: call.id });
}

/**
 * Token counts as both OpenAI dialects report them: the prompt total includes
 * the cached tokens, so input is the uncached rest and cached tokens are cache
 * reads (never negative; absent or invalid counts are 0, see tokenCount).
 */
export function openAiUsage(
  promptTokens: unknown,
  outputTokens: unknown,
  cachedTokens: unknown,
): Pick<Usage, "input_tokens" | "output_tokens" | "cache_read_tokens"> {
  const cached = tokenCount(cachedTokens) ?? 0;
  return { input_tokens: Math.max(0, (tokenCount(promptTokens) ?? 0) - cached), output_tokens: tokenCount(outputTokens) ?? 0, cache_read_tokens: cached };
}

/**
 * A token count reported by a server, or undefined when it is not one: a
 * number that is not negative, not NaN or infinite and at most 2^53 − 1
 * (rounded to an integer). Anything else (a string, null, -5, 1e308) is
 * treated as absent, so it never reaches the totals and the cost.
 * The schemas take these fields as `v.optional(v.unknown())`: a bad count
 * does not fail the event that carries it.
 */
export function tokenCount(value: unknown): number | undefined {
  if (typeof value !== "number" || !(value >= 0)) return undefined;
  const rounded = Math.round(value);
  return Number.isSafeInteger(rounded) ? rounded : undefined;
}

/** Assembles one response from the SSE events of one provider dialect. */
export interface StreamDecoder {
  /** Consumes one event; true when it was the provider's terminal event. Throws ProviderError. */
  handle(event: SseEvent): boolean;
  /** Content assembled so far (complete after the terminal event, partial otherwise). */
  content(): ContentBlock[];
  stopReason(): StopReason;
  /** Token counts (cost is filled in by runStream). */
  usage(): Usage;
  /** Closes open tool calls (emits tool_use_end) when a stream is cut short. */
  closeOpen?(): void;
}

/** The POST itself (its signal is the request's; retries are reported as `retry` events), plus what the decoding loop needs. */
export interface RunStreamOptions extends Omit<PostStreamOptions, "signal" | "onRetry"> {
  /** Name of the terminal event, for the truncation message. */
  readonly terminalName: string;
  readonly request: StreamRequest;
  /**
   * Builds the dialect's decoder around `emit`; what it emits counts as model output (keepalive timeout, output cap).
   * `countOutput` counts content the decoder keeps without emitting it (redacted thinking, signatures, a
   * done item's full text) against the same cap.
   */
  readonly decoder: (emit: (event: StreamEvent) => void, countOutput: (chars: number) => void) => StreamDecoder;
  readonly onEvent: (event: StreamEvent) => void;
}

/** Tool calls one response may make (docs/providers.md "Stream limits"). */
export const MAX_TOOL_CALLS = 1024;

/** A provider's in-stream error event as one line of at most 500 characters (the server's text may hold newlines, or megabytes). */
export function streamErrorEvent(text: string, context: ErrorContext = {}): ProviderError {
  return new ProviderError("api", oneLine(text, 500), undefined, context);
}

/** Content blocks (text, thinking, tool calls, output items) one response may hold (docs/providers.md "Stream limits"). */
export const MAX_CONTENT_BLOCKS = 4096;

export function tooManyBlocks(label: string): ProviderError {
  return new ProviderError("too_large", `${label}: more than ${MAX_CONTENT_BLOCKS} content blocks in one response (the per-response limit)`);
}

export function tooManyToolCalls(label: string): ProviderError {
  return new ProviderError("too_large", `${label}: more than ${MAX_TOOL_CALLS} tool calls in one response (the per-response limit)`);
}

export function outputTooLong(label: string, maxOutputChars: number): ProviderError {
  return new ProviderError("too_large", `${label}: model output longer than ${charsText(maxOutputChars)} in one response (the per-response limit)`);
}

/**
 * POST, then SSE events into the decoder until its terminal event. Every
 * event restarts the idle timeout, every decoder emission the keepalive
 * timeout (http.ts); model output past ZOT_STREAM_MAX_OUTPUT_CHARS (16 Mi
 * characters of text, thinking, tool-call arguments, names and ids
 * together), or more than MAX_TOOL_CALLS (1024) tool calls, is
 * "too_large"; an abort resolves with stop "aborted" and the partial
 * message; a stream that ends before its terminal event is "truncated".
 * While common/stdout.ts has no room, the next event is not read (neither
 * timeout runs meanwhile).
 */
export async function runStream(options: RunStreamOptions): Promise<StreamResult> {
  const { request, label } = options;
  let response: StreamingResponse | undefined;
  // What the model produced is held in memory and persisted: bound it (the wire bound alone lets ~2× that into memory).
  const maxOutputChars = resolveMaxOutputChars();
  let outputChars = 0;
  let toolCalls = 0;
  const countOutput = (chars: number): void => {
    if (chars <= 0) return;
    outputChars += chars;
    if (outputChars > maxOutputChars) throw outputTooLong(label, maxOutputChars);
  };
  const decoder = options.decoder((event) => {
    response?.sawOutput();
    let chars = 0;
    if (event.type === "text_delta" || event.type === "thinking_delta" || event.type === "tool_use_args") chars = event.delta.length;
    else if (event.type === "tool_use_start") {
      // Each call is run, stored and sent back: their number is bounded, and their names and ids count as output.
      if (++toolCalls > MAX_TOOL_CALLS) throw tooManyToolCalls(label);
      chars = event.id.length + event.name.length;
    }
    countOutput(chars);
    options.onEvent(event);
  }, countOutput);
  let terminal = false;
  const finish = (stop: StopReason): StreamResult => {
    const usage = { ...emptyUsage(), ...decoder.usage() };
    usage.cost_usd = computeCost(usage, request.model);
    options.onEvent({ type: "usage", usage: { ...usage } });
    const message: Message = { role: "assistant", content: decoder.content(), time: new Date().toISOString() };
    return { message, stop, usage };
  };
  try {
    response = await postStream({
      label,
      url: options.url,
      headers: options.headers,
      body: options.body,
      signal: request.signal,
      stallTimeoutMs: options.stallTimeoutMs,
      keepaliveTimeoutMs: options.keepaliveTimeoutMs,
      maxResponseBytes: options.maxResponseBytes,
      retry: options.retry,
      connectHint: options.connectHint,
      onRetry: (notice) => options.onEvent({ type: "retry", ...notice }),
    });
    request.onResponseStart?.();
    // The events of each chunk are handled in one go (SseParser: no asynchronous step per event, as parseSse has).
    const parser = new SseParser({ label });
    response.setMidEventProbe(() => parser.midEvent());
    const reader = response.body.getReader();
    try {
      reading: for (;;) {
        const { done, value } = await reader.read();
        for (const event of parser.feed(done ? undefined : value)) {
          response.sawEvent();
          if (request.signal.aborted) break reading;
          if (decoder.handle(event)) {
            terminal = true;
            break reading;
          }
          // Backpressure: while stdout is behind, the response is not read (the server's TCP window fills).
          const room = stdoutRoom();
          if (room !== undefined) await response.paused(settledOrAborted(room, request.signal));
        }
        if (parser.failure !== undefined) throw parser.failure;
        if (done) break;
      }
    } finally {
      // Closes the connection when zot stops early; harmless after the end.
      await reader.cancel().catch(() => undefined);
    }
  } catch (err) {
    if (request.signal.aborted && !(err instanceof ProviderError && err.kind === "api")) {
      decoder.closeOpen?.();
      return finish("aborted");
    }
    // An error event or a quoted event may echo the API key: blanked, as in HTTP error lines.
    if (err instanceof ProviderError) err.message = withoutSecrets(err.message, options.headers);
    throw err;
  }
  if (!terminal) {
    if (request.signal.aborted) {
      decoder.closeOpen?.();
      return finish("aborted");
    }
    throw new ProviderError("truncated", `${label}: stream ended before ${options.terminalName} (response incomplete)`);
  }
  return finish(decoder.stopReason());
}
