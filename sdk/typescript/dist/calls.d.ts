/**
 * The extension side of `call_tool`: each request gets a fresh id
 * (`call-<n>`), waits for the host's correlated `tool_result`, and can be
 * cancelled with an AbortSignal (sends `call_tool_cancel`, rejects with the
 * signal's reason). A request whose reply never comes rejects after the
 * host's 60 s deadline plus 5 s of slack, or at once when the host goes away
 * (`failAll`). Tool failures are results (`is_error: true`); transport,
 * cancellation and refusal-before-sending are rejections.
 */
import { type CallToolResult, type HostFrame, type JsonObject } from "./protocol.ts";
export interface CallToolOptions {
    /** Aborting it sends `call_tool_cancel` and rejects the call. */
    signal?: AbortSignal;
    /** The `tool_call` id this call is nested in (set for you by a tool handler's `ctx.callTool`). */
    parentId?: string;
}
export declare class ToolCalls {
    private readonly send;
    private next;
    private readonly pending;
    constructor(send: (frame: {
        type: string;
        [field: string]: unknown;
    }) => Promise<void>);
    call(name: string, args: JsonObject, options: CallToolOptions): Promise<CallToolResult>;
    /** Handles a host `tool_result`; false when no call waits for its id. */
    reply(frame: HostFrame): boolean;
    failAll(reason: string): void;
    private settle;
}
