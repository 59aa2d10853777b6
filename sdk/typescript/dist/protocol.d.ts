/**
 * The wire shapes of the zot extension protocol (extensions.md, protocol
 * version 1) as the SDK sends and receives them. Field names are the wire's
 * (snake_case): what a handler returns is what goes on the wire, minus `type`
 * and `id`. Host frames are typed loosely where the protocol is additive:
 * unknown fields and unknown event names must be tolerated.
 */
/** The protocol version this SDK speaks (hello_ack.protocol_version). */
export declare const PROTOCOL_VERSION = 1;
/** Longest line the host accepts from an extension: 4 MiB (bytes, newline excluded). A longer one disconnects the extension. */
export declare const MAX_OUTBOUND_FRAME_BYTES: number;
/** Longest line the SDK accepts from the host: 64 MiB (the host's own largest request is 16 MiB). Longer lines are skipped and logged. */
export declare const MAX_INBOUND_FRAME_BYTES: number;
/** Deadlines the host applies to replies (ms from when it sent the request). */
export declare const HOST_DEADLINES: {
    readonly intercept: 5000;
    readonly command: 30000;
    readonly tool: 60000;
    readonly callTool: 60000;
};
export type JsonValue = null | boolean | number | string | JsonValue[] | {
    [key: string]: JsonValue;
};
export type JsonObject = {
    [key: string]: JsonValue;
};
export interface TextBlock {
    type: "text";
    text: string;
}
export interface ImageBlock {
    type: "image";
    mime_type: string;
    data: string;
}
export type ContentBlock = TextBlock | ImageBlock;
/** Reply body of a tool call (`tool_result` minus type and id). */
export interface ToolResult {
    content: ContentBlock[];
    is_error?: boolean;
    /** Names of registered deferred tools that become available after this result. */
    activate_tools?: string[];
}
/** What a call_tool request returns (the host's `tool_result` reply). */
export interface CallToolResult {
    name: string;
    content: ContentBlock[];
    is_error: boolean;
    /** true when the host shortened the result to 256 KiB. */
    truncated?: boolean;
}
/** Panel content as `open_panel` and `panel_render` carry it. */
export interface PanelContent {
    title?: string;
    lines: string[];
    footer?: string;
}
export interface PanelSpec extends PanelContent {
    id: string;
}
export type CommandAction = "prompt" | "tool_prompt" | "insert" | "display" | "open_panel" | "noop";
/** Reply body of a slash command (`command_response` minus type and id). */
export interface CommandResponse {
    action: CommandAction;
    prompt?: string;
    insert?: string;
    display?: string;
    open_panel?: PanelSpec;
    tool_name?: string;
    tool_args?: JsonObject;
    /** Shown as a red status line whatever the action. */
    error?: string;
}
export type NoteLevel = "info" | "success" | "warn" | "error";
/** Normalized key names of `panel_key`. */
export type PanelKeyName = "up" | "down" | "left" | "right" | "enter" | "esc" | "tab" | "pageup" | "pagedown" | "home" | "end" | "backspace" | "delete" | "rune";
export interface PanelKey {
    panel_id: string;
    key: PanelKeyName | (string & {});
    text?: string;
}
/** The 14 lifecycle event names of protocol version 1 (unknown names are tolerated too). */
export type LifecycleEventName = "session_start" | "session_end" | "user_prompt_submit" | "turn_start" | "turn_end" | "tool_call" | "tool_result" | "tool_confirmation_requested" | "permission_decision" | "assistant_message" | "pre_compact" | "post_compact" | "subagent_start" | "subagent_stop";
/** A lifecycle `event` frame: `event` plus its payload (session_id, cwd, sequence, and the event's own fields). */
export interface LifecycleEvent {
    type: "event";
    event: LifecycleEventName | (string & {});
    session_id?: string;
    cwd?: string;
    sequence?: number;
    [field: string]: unknown;
}
/** An `event_intercept` request. */
export interface InterceptEvent {
    type: "event_intercept";
    id: string;
    event: string;
    /** Set when the action comes from an extension's call_tool. */
    origin_extension?: string;
    [field: string]: unknown;
}
export interface BeforeAgentStartEvent extends InterceptEvent {
    event: "before_agent_start";
    system_prompt: string;
    session_id?: string;
    agent_run_id?: string;
    cwd?: string;
    provider?: string;
    model?: string;
}
export interface ToolCallInterceptEvent extends InterceptEvent {
    event: "tool_call";
    tool_id?: string;
    tool_name: string;
    tool_args: JsonObject;
}
export interface TurnStartInterceptEvent extends InterceptEvent {
    event: "turn_start";
    step: number;
}
export interface AssistantMessageInterceptEvent extends InterceptEvent {
    event: "assistant_message";
    text: string;
}
export interface ToolResultInterceptEvent extends InterceptEvent {
    event: "tool_result";
    tool_id?: string;
    tool_name: string;
    tool_args?: JsonObject;
    status?: string;
    executed?: boolean;
    result: {
        content: ContentBlock[];
        is_error?: boolean;
        truncated?: boolean;
    };
}
export interface ToolCallDecision {
    block?: boolean;
    reason?: string;
    modified_args?: JsonObject;
}
export interface TurnStartDecision {
    block?: boolean;
    reason?: string;
}
export interface AssistantMessageDecision {
    block?: boolean;
    reason?: string;
    replace_text?: string;
}
export interface ToolResultDecision {
    content?: ContentBlock[];
}
/** hello_ack as the SDK hands it to onHello handlers. */
export interface HostInfo {
    protocolVersion: number;
    zotVersion: string;
    provider: string;
    model: string;
    /** The user's project directory (the extension itself runs in its own directory). */
    cwd: string;
    extensionDir: string;
    dataDir: string;
    /** What the host supports (`call_tool`, `tool_cancel`, ...); empty for older hosts. */
    capabilities: string[];
    /** The whole hello_ack frame, unknown fields included. */
    raw: Record<string, unknown>;
}
/** Every frame the host may send, loosely typed (unknown fields allowed). */
export type HostFrame = {
    type: string;
    id?: string | number;
    [field: string]: unknown;
};
