/**
 * Interception points of the agent loop. The extension layer (and the
 * interactive confirm gate) implement these; the agent applies exactly one
 * decision per hook call: composing several listeners (first block wins,
 * argument / text rewrites chain, timeouts allow) is the implementer's job.
 *
 * Every hook is optional and the loop tests for presence before building its
 * payload, so an absent hook costs nothing. A hook may answer synchronously.
 * A hook that throws fails closed: blocking hooks block, afterToolResult
 * replaces the result with an error, systemPrompt keeps the base prompt.
 *
 * Order for one tool call (extensions.md "Ordering, delivery, and privacy"):
 * tool_call event (at turn end) → beforeToolCall (confirm gate, then guards)
 * → Tool.execute → afterToolResult → tool_result event → transcript.
 */
import type { Message } from "../providers/types.ts";
import type { ToolOutcome } from "../tools/types.ts";
import type { ToolCallRecord } from "./types.ts";

export type Awaitable<T> = T | Promise<T>;

/** Who asked for a tool call: the model, or an extension (call_tool / tool_prompt). */
export type ToolCallOrigin = { readonly kind: "model" } | { readonly kind: "extension"; readonly extension: string };

export const MODEL_ORIGIN: ToolCallOrigin = Object.freeze({ kind: "model" });

export interface TurnStartInfo {
  readonly step: number;
  readonly signal: AbortSignal;
}

export interface TurnDecision {
  /** Refuse the turn before the model is called; reason is shown to the user. */
  readonly block?: { readonly reason: string };
}

export interface AssistantMessageInfo {
  /** Text blocks joined with "\n"; the hook is only consulted when non-empty. */
  readonly text: string;
  readonly message: Message;
  readonly signal: AbortSignal;
}

export interface AssistantMessageDecision {
  /** Hide the message from the user (who is shown `reason`, and `by` when given: the extension); the transcript keeps it. */
  readonly block?: { readonly reason: string; readonly by?: string };
  /** User-visible replacement text; the transcript keeps the original. Ignored with block. */
  readonly replaceText?: string;
}

export interface ToolCallInfo {
  readonly id: string;
  readonly name: string;
  /** Parsed arguments ({} for blank argument text). */
  readonly args: Readonly<Record<string, unknown>>;
  /** The argument text exactly as proposed. */
  readonly rawArgs: string;
  readonly origin: ToolCallOrigin;
  readonly signal: AbortSignal;
}

export interface ToolCallDecision {
  /** Refuse the call; the model sees reason as the tool's error result. */
  /** `by`: the extension that refused, when one did (UI-only: the tool_result details carry it as `blocked_by`). */
  readonly block?: { readonly reason: string; readonly status?: "blocked" | "cancelled"; readonly by?: string };
  /** Replacement arguments the tool will see (must be a JSON object); the transcript keeps the original. */
  readonly args?: Readonly<Record<string, unknown>>;
  /** The extensions whose rewrites produced `args`, in order (shown to the user; named in an error result). */
  readonly rewrittenBy?: readonly string[];
}

/**
 * The call's record as it stands before this hook: `outcome` is still the
 * tool's own (or the refusal / error that settled it without running), and
 * `effectiveArgs` is what the tool saw or would have seen.
 */
export interface ToolResultInfo extends ToolCallRecord {
  readonly signal: AbortSignal;
}

export interface AgentHooks {
  /**
   * Replace the complete system prompt (before_agent_start). Consulted once
   * before the first model call and again after resetSystemPrompt() /
   * setSystemPrompt() / setModel() / clearMessages(); the result is reused for
   * every later turn. Receives the unmodified base prompt.
   */
  readonly systemPrompt?: (base: string, ctx: { readonly signal: AbortSignal }) => Awaitable<string>;
  readonly beforeTurn?: (info: TurnStartInfo) => Awaitable<TurnDecision | undefined>;
  readonly onAssistantMessage?: (info: AssistantMessageInfo) => Awaitable<AssistantMessageDecision | undefined>;
  readonly beforeToolCall?: (info: ToolCallInfo) => Awaitable<ToolCallDecision | undefined>;
  /** Return a replacement outcome (e.g. redacted content) before the model sees it. */
  readonly afterToolResult?: (info: ToolResultInfo) => Awaitable<ToolOutcome | undefined>;
}

export const NO_HOOKS: AgentHooks = Object.freeze({});

export const DEFAULT_TURN_BLOCK_REASON = "turn blocked by extension guard";
export const DEFAULT_TOOL_BLOCK_REASON = "tool call refused by extension guard";
