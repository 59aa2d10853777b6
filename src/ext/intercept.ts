/**
 * Interception chains (extensions.md `event_intercept`). Interceptors of an
 * event are consulted serially in load order; each gets 5 s to answer.
 * Blocking events: the first `block` wins. Rewrites chain: each interceptor
 * sees the previous one's result (tool args, assistant text, tool-result
 * content, system prompt). A missed deadline, a crash or a malformed answer
 * means "allow, unchanged" — unless the extension declared
 * `on_timeout: "deny"` (zot addition), in which case a blocking event fails
 * closed. Every deviation is written to that extension's log. A block
 * reason is cut at MAX_BLOCK_REASON_CHARS (16 Ki characters).
 */
import { MAX_VALUE_DEPTH, valueTooDeep, isPlainObject } from "../common/json.ts";
import type { ExtensionConnection } from "./connection.ts";
import { ExtensionRequestError } from "./errors.ts";
import type { InterceptResponseFrame, InterceptableEvent, WireContentBlock } from "./frames.ts";
import { nextRequestId } from "./ids.ts";
import type { ExtensionManager } from "./manager.ts";

export const INTERCEPT_TIMEOUT_MS = 5_000;
export const SYSTEM_PROMPT_MAX_BYTES = 1024 * 1024;

export type InterceptAnswer =
  | { readonly kind: "reply"; readonly frame: InterceptResponseFrame }
  | { readonly kind: "no_answer"; readonly detail: string };

export interface Interceptor {
  readonly connection: ExtensionConnection;
  readonly failClosed: boolean;
}

/** Connections intercepting `event`, in load order. Empty array when none (cheap). */
export function interceptorsOf(manager: ExtensionManager, event: InterceptableEvent): Interceptor[] {
  const result: Interceptor[] = [];
  for (const connection of manager.connections()) {
    const subscription = manager.subscriptions.get(connection.name);
    if (subscription?.intercept.has(event) && !connection.closed) {
      result.push({ connection, failClosed: subscription.onTimeout === "deny" });
    }
  }
  return result;
}

export async function askInterceptor(
  connection: ExtensionConnection,
  event: InterceptableEvent,
  payload: Readonly<Record<string, unknown>>,
  signal: AbortSignal | undefined,
  timeoutMs: number = INTERCEPT_TIMEOUT_MS,
): Promise<InterceptAnswer> {
  const id = nextRequestId("int");
  try {
    const frame = (await connection.request({ type: "event_intercept", id, event, ...payload }, "event_intercept_response", {
      timeoutMs,
      // before_agent_start counts the request write in its deadline; the others start after it.
      timeoutStartsAfterWrite: event !== "before_agent_start",
      signal,
    })) as InterceptResponseFrame;
    return { kind: "reply", frame };
  } catch (err) {
    const detail = err instanceof ExtensionRequestError ? err.message : String(err);
    connection.log.note(`intercept ${event} got no answer (${detail})`);
    return { kind: "no_answer", detail };
  }
}

/** Characters of a block reason passed on (to the model as the tool error, to the user): a reason is a sentence, not a document. */
export const MAX_BLOCK_REASON_CHARS = 16 * 1024;

function boundedReason(reason: string): string {
  if (reason.length <= MAX_BLOCK_REASON_CHARS) return reason;
  const code = reason.charCodeAt(MAX_BLOCK_REASON_CHARS - 1);
  const cut = code >= 0xd800 && code <= 0xdbff ? MAX_BLOCK_REASON_CHARS - 1 : MAX_BLOCK_REASON_CHARS;
  return `${reason.slice(0, cut)}… [${(reason.length - cut).toLocaleString("en-US")} more characters of the reason not shown]`;
}

export type BlockDecision = { readonly blocked: true; readonly reason: string; readonly by: string; readonly failedClosed: boolean } | { readonly blocked: false };

function blockFrom(interceptor: Interceptor, answer: InterceptAnswer, defaultReason: string): BlockDecision {
  if (answer.kind === "no_answer") {
    if (!interceptor.failClosed) return { blocked: false };
    return {
      blocked: true,
      reason: `${defaultReason}: extension ${interceptor.connection.name} did not answer (${answer.detail}) and fails closed`,
      by: interceptor.connection.name,
      failedClosed: true,
    };
  }
  if (answer.frame.block === true) {
    return { blocked: true, reason: boundedReason(answer.frame.reason?.trim() || defaultReason), by: interceptor.connection.name, failedClosed: false };
  }
  return { blocked: false };
}

/** turn_start: first block wins. */
export async function interceptTurnStart(interceptors: readonly Interceptor[], step: number, signal: AbortSignal, defaultReason: string): Promise<BlockDecision> {
  for (const interceptor of interceptors) {
    const decision = blockFrom(interceptor, await askInterceptor(interceptor.connection, "turn_start", { step }, signal), defaultReason);
    if (decision.blocked) return decision;
  }
  return { blocked: false };
}

export interface ToolCallChainResult {
  readonly decision: BlockDecision;
  /** The chained arguments (the input when nobody rewrote them). */
  readonly args: Readonly<Record<string, unknown>>;
  readonly rewritten: boolean;
  /** The extensions whose modified_args changed the arguments, in load order. */
  readonly rewrittenBy: readonly string[];
}

/**
 * tool_call: first block wins; modified_args (JSON objects nested at most
 * MAX_VALUE_DEPTH levels) chain. An interceptor counts as a rewriter only
 * when its modified_args differ from what it was shown (an echo is not a rewrite).
 */
export async function interceptToolCall(
  interceptors: readonly Interceptor[],
  payload: { readonly tool_id: string; readonly tool_name: string; readonly origin_extension?: string },
  args: Readonly<Record<string, unknown>>,
  signal: AbortSignal,
  defaultReason: string,
): Promise<ToolCallChainResult> {
  let current = args;
  const rewrittenBy: string[] = [];
  for (const interceptor of interceptors) {
    const answer = await askInterceptor(interceptor.connection, "tool_call", { ...payload, tool_args: current }, signal);
    const decision = blockFrom(interceptor, answer, defaultReason);
    if (decision.blocked) return { decision, args: current, rewritten: rewrittenBy.length > 0, rewrittenBy };
    if (answer.kind === "reply" && answer.frame.modified_args !== undefined && answer.frame.modified_args !== null) {
      if (!isPlainObject(answer.frame.modified_args)) {
        interceptor.connection.log.note("modified_args ignored: it must be a JSON object");
      } else if (valueTooDeep(answer.frame.modified_args, MAX_VALUE_DEPTH)) {
        interceptor.connection.log.note(`modified_args ignored: nested deeper than ${MAX_VALUE_DEPTH} levels`);
      } else if (!Bun.deepEquals(answer.frame.modified_args, current, true)) {
        current = answer.frame.modified_args;
        rewrittenBy.push(interceptor.connection.name);
      }
    }
  }
  return { decision: { blocked: false }, args: current, rewritten: rewrittenBy.length > 0, rewrittenBy };
}

export interface AssistantChainResult {
  readonly decision: BlockDecision;
  readonly text: string;
  readonly replaced: boolean;
}

/** assistant_message: first block wins; non-empty replace_text chains. */
export async function interceptAssistantMessage(interceptors: readonly Interceptor[], text: string, signal: AbortSignal, defaultReason: string): Promise<AssistantChainResult> {
  let current = text;
  let replaced = false;
  for (const interceptor of interceptors) {
    const answer = await askInterceptor(interceptor.connection, "assistant_message", { text: current }, signal);
    const decision = blockFrom(interceptor, answer, defaultReason);
    if (decision.blocked) return { decision, text: current, replaced };
    if (answer.kind === "reply" && answer.frame.replace_text) {
      current = answer.frame.replace_text;
      replaced = true;
    }
  }
  return { decision: { blocked: false }, text: current, replaced };
}

/** tool_result (zot addition): a reply's `content` replaces the result content, chained. */
export async function interceptToolResult(
  interceptors: readonly Interceptor[],
  payload: Readonly<Record<string, unknown>>,
  content: readonly WireContentBlock[],
  signal: AbortSignal,
): Promise<{ readonly content: readonly WireContentBlock[]; readonly replacedBy: string[] }> {
  let current = content;
  const replacedBy: string[] = [];
  for (const interceptor of interceptors) {
    const answer = await askInterceptor(interceptor.connection, "tool_result", { ...payload, result: { ...(payload.result as object), content: current } }, signal);
    if (answer.kind === "reply" && answer.frame.content !== undefined) {
      current = answer.frame.content;
      replacedBy.push(interceptor.connection.name);
    }
  }
  return { content: current, replacedBy };
}

export interface SystemPromptWarning {
  readonly extension: string;
  readonly message: string;
}

/**
 * before_agent_start: each interceptor may return an exact replacement
 * (`""` removes the prompt, omission keeps it). Invalid values, oversize
 * values, crashes and timeouts keep the current prompt and produce a warning.
 */
export async function interceptSystemPrompt(
  interceptors: readonly Interceptor[],
  base: string,
  payload: Readonly<Record<string, unknown>>,
  signal: AbortSignal,
  warn: (warning: SystemPromptWarning) => void,
): Promise<string> {
  let current = base;
  for (const interceptor of interceptors) {
    if (signal.aborted) return base;
    const name = interceptor.connection.name;
    const answer = await askInterceptor(interceptor.connection, "before_agent_start", { ...payload, system_prompt: current }, signal);
    if (answer.kind === "no_answer") {
      warn({ extension: name, message: `before_agent_start: no answer (${answer.detail}); system prompt kept` });
      continue;
    }
    const value = answer.frame.system_prompt;
    if (value === undefined) continue;
    if (typeof value !== "string") {
      interceptor.connection.log.note("before_agent_start: system_prompt must be a string; ignored");
      warn({ extension: name, message: "before_agent_start: system_prompt is not a string; system prompt kept" });
      continue;
    }
    if (Buffer.byteLength(JSON.stringify(value), "utf8") > SYSTEM_PROMPT_MAX_BYTES) {
      interceptor.connection.log.note("before_agent_start: system_prompt exceeds 1 MiB; ignored");
      warn({ extension: name, message: "before_agent_start: system_prompt exceeds 1 MiB; system prompt kept" });
      continue;
    }
    current = value;
  }
  return current;
}
