/**
 * Agent events: the observable stream of one prompt, shaped exactly like the
 * original --json schema (reference notes §5.2) so JSON mode is a plain
 * serialisation. Field names are the JSON names. The additions are optional
 * UI-only fields on `tool_result` (status, details) that toJsonEventLine
 * never writes, and the `retry` event (a provider failure before the stream
 * started, retried after `delay_ms`; docs/json.md), between `turn_start`
 * and `assistant_start`; and the UI-only events `thinking_delta` (the model's
 * thinking / reasoning text as it streams), `tool_guard` (a call's guards
 * are being consulted / answered), `tool_start` (a call's tool begins to
 * execute) and `assistant_hidden`, for the terminal UI: JSON and
 * RPC output never write a UI-only event (isUiOnlyEvent), and
 * toJsonEventLine returns "" for one.
 *
 * The subagent_* events (src/agents) report the children of the `agent`
 * tool, each tagged with its agent_id (docs/json.md).
 *
 * toJsonEventLine(event) returns one JSON line (with its trailing "\n"):
 * `type` first, content blocks in their wire shapes (image data replaced by a
 * byte count, tool-call args parsed (raw text when malformed or too deep), thinking/reasoning omitted) and `<`, `>`,
 * `&`, U+2028, U+2029 escaped like Go's encoding/json.
 */
import { MAX_VALUE_DEPTH, parseJson } from "../common/json.ts";
import type { ContentBlock, RetryNotice, StopReason, Usage } from "../providers/types.ts";
import type { ToolResultContent, ToolStatus } from "../tools/types.ts";

export interface UsageFields {
  readonly input: number;
  readonly output: number;
  readonly cache_read: number;
  readonly cache_write: number;
  readonly cost_usd: number;
}

export type AgentEvent =
  | { readonly type: "turn_start"; readonly step: number }
  | { readonly type: "user_message"; readonly content: readonly ContentBlock[]; readonly time: string }
  | { readonly type: "assistant_start" }
  | { readonly type: "text_delta"; readonly delta: string }
  /** UI-only: never written by --json or RPC (isUiOnlyEvent). */
  | { readonly type: "thinking_delta"; readonly delta: string }
  | { readonly type: "tool_use_start"; readonly id: string; readonly name: string }
  | { readonly type: "tool_use_args"; readonly id: string; readonly delta: string }
  | { readonly type: "tool_use_end"; readonly id: string }
  /** `args` is the model's original call: parsed JSON, {} when empty, the raw text when malformed. */
  | { readonly type: "tool_call"; readonly id: string; readonly name: string; readonly args: unknown }
  | { readonly type: "tool_progress"; readonly id: string; readonly text: string }
  /** UI-only: the call's guards (extension tool_call interceptors, confirmation) are being consulted (waiting) or answered. */
  | { readonly type: "tool_guard"; readonly id: string; readonly waiting: boolean }
  /**
   * UI-only: the call's tool begins to execute (its guards let it run). Calls of a step are all
   * announced by `tool_call` first and may wait (behind other calls, for guards) before this;
   * a call settled without running (bad arguments, unknown tool, blocked, aborted) has none.
   */
  | {
      readonly type: "tool_start";
      readonly id: string;
      /** An extension's guard rewrote the arguments: what the tool runs with, and who (shown to the user). */
      readonly rewritten?: { readonly args: Readonly<Record<string, unknown>>; readonly by: readonly string[] };
    }
  | {
      readonly type: "tool_result";
      readonly id: string;
      readonly is_error: boolean;
      readonly content: readonly ToolResultContent[];
      /** UI-only, not serialised. */
      readonly status?: ToolStatus;
      /** UI-only, not serialised. */
      readonly details?: Readonly<Record<string, unknown>>;
    }
  | { readonly type: "assistant_message"; readonly content: readonly ContentBlock[]; readonly time: string }
  /** UI-only: an extension hid the assistant's message (no assistant_message follows); the user is shown why. */
  | { readonly type: "assistant_hidden"; readonly reason: string; readonly by?: string }
  | ({ readonly type: "usage"; readonly cumulative: UsageFields } & UsageFields)
  | { readonly type: "turn_end"; readonly stop: StopReason; readonly error?: string }
  | { readonly type: "done" }
  | { readonly type: "error"; readonly message: string }
  /** Fields in JSON order: provider, attempt, max_retries, delay_ms, status?, error, message. */
  | ({ readonly type: "retry" } & RetryNotice)
  /** A subagent (`agent` tool call `tool_id`) started; src/agents, docs/agents.md. */
  | {
      readonly type: "subagent_start";
      readonly agent_id: string;
      readonly agent_run_id: string;
      readonly name: string;
      readonly tool_id: string;
      readonly description: string;
      readonly agent?: string;
    }
  /** One event of a running subagent, in its --json form. */
  | { readonly type: "subagent_event"; readonly agent_id: string; readonly agent_run_id: string; readonly event: Readonly<Record<string, unknown>> }
  /** The subagent returned (paired with its start by agent_run_id). */
  | {
      readonly type: "subagent_stop";
      readonly agent_id: string;
      readonly agent_run_id: string;
      readonly name: string;
      readonly tool_id: string;
      readonly status: "completed" | "failed" | "cancelled" | "timed_out";
      readonly error?: string;
      readonly usage: UsageFields;
    };

export type AgentEventType = AgentEvent["type"];

const UI_ONLY_EVENT_TYPES: ReadonlySet<AgentEventType> = new Set<AgentEventType>(["thinking_delta", "tool_guard", "tool_start", "assistant_hidden"]);

/** Events only the terminal UI sees: --json and RPC never write them. */
export function isUiOnlyEvent(event: AgentEvent): boolean {
  return UI_ONLY_EVENT_TYPES.has(event.type);
}

/** What the user is told when an extension rewrote a call's arguments (TUI note; stderr in print and JSON modes). */
export function argumentsRewrittenText(name: string, rewritten: { readonly args: unknown; readonly by: readonly string[] }): string {
  const who = rewritten.by.map((extension) => `[${extension}]`).join(" then ");
  let args = JSON.stringify(rewritten.args);
  if (args.length > 2_000) args = `${args.slice(0, 2_000)}… (${args.length} characters)`;
  return `${who} rewrote the arguments of ${name}; it runs with ${args}`;
}

/** What the user is told when an extension hid the assistant's message (TUI note; stderr in print and JSON modes). */
export function assistantHiddenText(event: { readonly reason: string; readonly by?: string }): string {
  return `${event.by === undefined ? "an extension" : `[${event.by}]`} hid the assistant's message: ${event.reason}`;
}

export function usageFields(usage: Usage): UsageFields {
  return {
    input: usage.input_tokens,
    output: usage.output_tokens,
    cache_read: usage.cache_read_tokens,
    cache_write: usage.cache_write_tokens,
    cost_usd: usage.cost_usd,
  };
}

export function usageEvent(turn: Usage, cumulative: Usage): AgentEvent {
  return { type: "usage", ...usageFields(turn), cumulative: usageFields(cumulative) };
}

/**
 * Tool-call argument text as a JSON value: {} when blank, the raw text when
 * malformed or nested deeper than MAX_VALUE_DEPTH (a string always serialises).
 */
export function parseArgsForDisplay(raw: string): unknown {
  if (raw.trim() === "") return {};
  const parsed = parseJson(raw, MAX_VALUE_DEPTH);
  return parsed.ok ? parsed.value : raw;
}

/** Decoded size of base64 data without decoding it. */
export function base64ByteLength(data: string): number {
  const clean = data.replace(/[\s=]/g, "");
  return Math.floor((clean.length * 3) / 4);
}

type JsonBlock = Readonly<Record<string, unknown>>;

function resultContentJson(content: readonly ToolResultContent[]): JsonBlock[] {
  const out: JsonBlock[] = [];
  for (const block of content) {
    const json = blockJson(block);
    if (json !== undefined) out.push(json);
  }
  return out;
}

function blockJson(block: ContentBlock): JsonBlock | undefined {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return { type: "image", mime_type: block.mime_type, bytes: base64ByteLength(block.data) };
    case "tool_call":
      return { type: "tool_call", id: block.id, name: block.name, args: parseArgsForDisplay(block.arguments) };
    case "tool_result":
      return {
        type: "tool_result",
        call_id: block.call_id,
        is_error: block.is_error,
        content: resultContentJson(block.content),
      };
    case "thinking":
    case "redacted_thinking":
    case "reasoning":
      return undefined;
  }
}

export function contentJson(content: readonly ContentBlock[]): JsonBlock[] {
  const out: JsonBlock[] = [];
  for (const block of content) {
    const json = blockJson(block);
    if (json !== undefined) out.push(json);
  }
  return out;
}

/** The event as the JSON object the original wrote (field order included). */
export function eventJson(event: AgentEvent): JsonBlock {
  switch (event.type) {
    case "user_message":
    case "assistant_message":
      return { type: event.type, content: contentJson(event.content), time: event.time };
    case "tool_result":
      return { type: event.type, id: event.id, is_error: event.is_error, content: resultContentJson(event.content) };
    case "turn_end":
      return event.error === undefined
        ? { type: event.type, stop: event.stop }
        : { type: event.type, stop: event.stop, error: event.error };
    case "usage": {
      const { cumulative } = event;
      return {
        type: event.type,
        input: event.input,
        output: event.output,
        cache_read: event.cache_read,
        cache_write: event.cache_write,
        cost_usd: event.cost_usd,
        cumulative: {
          input: cumulative.input,
          output: cumulative.output,
          cache_read: cumulative.cache_read,
          cache_write: cumulative.cache_write,
          cost_usd: cumulative.cost_usd,
        },
      };
    }
    default:
      return event;
  }
}

const GO_ESCAPES: Readonly<Record<string, string>> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/** JSON.stringify with Go encoding/json's HTML-safe escaping. */
export function goJsonStringify(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (ch) => GO_ESCAPES[ch] ?? ch);
}

/** One --json output line for the event, including the trailing newline; "" for a UI-only event. */
export function toJsonEventLine(event: AgentEvent): string {
  if (isUiOnlyEvent(event)) return "";
  return `${goJsonStringify(eventJson(event))}\n`;
}
