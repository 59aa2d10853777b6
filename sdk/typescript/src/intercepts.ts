/**
 * Interceptors: one handler per interceptable event (the spec's four plus
 * zot's `tool_result`), and the translation of what a handler returned into
 * the body of an `event_intercept_response`. Returning nothing means "allow,
 * unchanged". Values that would make the host drop the reply are dropped here
 * with a note (a non-object `modified_args`, a non-array `content`).
 */
import type {
  AssistantMessageDecision, AssistantMessageInterceptEvent, BeforeAgentStartEvent, InterceptEvent, ToolCallDecision,
  ToolCallInterceptEvent, ToolResultDecision, ToolResultInterceptEvent, TurnStartDecision, TurnStartInterceptEvent,
} from "./protocol.ts";

type Maybe<T> = T | undefined | void;
type Handler<E, D> = (event: E) => Maybe<D> | Promise<Maybe<D>>;

export interface InterceptHandlers {
  before_agent_start?: Handler<BeforeAgentStartEvent, string>;
  tool_call?: Handler<ToolCallInterceptEvent, ToolCallDecision>;
  turn_start?: Handler<TurnStartInterceptEvent, TurnStartDecision>;
  assistant_message?: Handler<AssistantMessageInterceptEvent, AssistantMessageDecision>;
  tool_result?: Handler<ToolResultInterceptEvent, ToolResultDecision>;
}
export type InterceptKind = keyof InterceptHandlers;

/** Events where a `block` reply refuses the action (and where `on_timeout: "deny"` applies). */
export const BLOCKING_KINDS: ReadonlySet<string> = new Set(["tool_call", "turn_start", "assistant_message"]);

export type ResponseBody = Record<string, unknown>;

/** Runs the handler for `event` (none registered: allow) and returns the reply body. */
export async function interceptReply(handlers: InterceptHandlers, event: InterceptEvent, note: (message: string) => void): Promise<ResponseBody> {
  switch (event.event) {
    case "before_agent_start": {
      const replacement = await handlers.before_agent_start?.(event as BeforeAgentStartEvent);
      if (replacement === undefined || replacement === null) return {};
      if (typeof replacement !== "string") {
        note("before_agent_start interceptor returned a non-string; prompt kept");
        return {};
      }
      return { system_prompt: replacement };
    }
    case "tool_call": {
      const decision = await handlers.tool_call?.(event as ToolCallInterceptEvent);
      if (!decision) return {};
      const body: ResponseBody = pick(decision, ["block", "reason"]);
      if (decision.modified_args !== undefined) {
        const args = decision.modified_args as unknown;
        if (typeof args === "object" && args !== null && !Array.isArray(args)) body.modified_args = args;
        else note("tool_call interceptor's modified_args is not a JSON object; ignored");
      }
      return body;
    }
    case "turn_start": {
      const decision = await handlers.turn_start?.(event as TurnStartInterceptEvent);
      return decision ? pick(decision, ["block", "reason"]) : {};
    }
    case "assistant_message": {
      const decision = await handlers.assistant_message?.(event as AssistantMessageInterceptEvent);
      return decision ? pick(decision, ["block", "reason", "replace_text"]) : {};
    }
    case "tool_result": {
      const decision = await handlers.tool_result?.(event as ToolResultInterceptEvent);
      if (!decision || decision.content === undefined) return {};
      if (!Array.isArray(decision.content)) {
        note("tool_result interceptor's content is not an array; result kept");
        return {};
      }
      return { content: decision.content };
    }
    default:
      return {};
  }
}

function pick<T extends object>(from: T, keys: readonly (keyof T & string)[]): ResponseBody {
  const body: ResponseBody = {};
  for (const key of keys) if (from[key] !== undefined) body[key] = from[key];
  return body;
}
