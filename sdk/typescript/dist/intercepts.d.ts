/**
 * Interceptors: one handler per interceptable event (the spec's four plus
 * zot's `tool_result`), and the translation of what a handler returned into
 * the body of an `event_intercept_response`. Returning nothing means "allow,
 * unchanged". Values that would make the host drop the reply are dropped here
 * with a note (a non-object `modified_args`, a non-array `content`).
 */
import type { AssistantMessageDecision, AssistantMessageInterceptEvent, BeforeAgentStartEvent, InterceptEvent, ToolCallDecision, ToolCallInterceptEvent, ToolResultDecision, ToolResultInterceptEvent, TurnStartDecision, TurnStartInterceptEvent } from "./protocol.ts";
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
export declare const BLOCKING_KINDS: ReadonlySet<string>;
export type ResponseBody = Record<string, unknown>;
/** Runs the handler for `event` (none registered: allow) and returns the reply body. */
export declare function interceptReply(handlers: InterceptHandlers, event: InterceptEvent, note: (message: string) => void): Promise<ResponseBody>;
export {};
