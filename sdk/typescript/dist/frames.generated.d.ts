export type ProtocolVersion = 1;
/** extension.json: how zot finds and launches an extension. */
export interface ExtensionManifest {
    name: string;
    version?: string;
    exec?: string;
    args?: string[];
    language?: string;
    description?: string;
    skills?: string[];
    agents?: string[];
    enabled?: boolean;
    on_timeout?: "allow" | "deny";
}
/** First frame an extension sends: its name (must match extension.json) and capabilities. */
export interface HelloFrame {
    type: "hello";
    name: string;
    version?: string;
    capabilities?: string[];
}
/** Registers a slash command (names matched case-insensitively). */
export interface RegisterCommandFrame {
    type: "register_command";
    name: string;
    description?: string;
}
/** Registers a tool the model can call; schema is a JSON Schema object of type object. */
export interface RegisterToolFrame {
    type: "register_tool";
    name: string;
    description?: string;
    schema?: unknown;
    deferred?: boolean;
    interactive?: boolean;
}
/** All initial registrations are flushed. */
export interface ReadyFrame {
    type: "ready";
}
/** Lifecycle events to observe and to intercept; send once after hello, before ready. */
export interface SubscribeFrame {
    type: "subscribe";
    events?: string[];
    intercept?: string[];
    on_timeout?: "allow" | "deny";
}
/** Reply to event_intercept (within 5 s): block, rewrite args/text or replace the system prompt. */
export interface EventInterceptResponseFrame {
    type: "event_intercept_response";
    id: string | number;
    block?: boolean;
    reason?: string;
    modified_args?: unknown;
    replace_text?: string;
    system_prompt?: unknown;
    content?: {
        type: string;
        text?: string;
        mime_type?: string;
        data?: string;
    }[];
}
/** Reply to a host tool_call. */
export interface ToolResultFrame {
    type: "tool_result";
    id: string | number;
    content?: {
        type: string;
        text?: string;
        mime_type?: string;
        data?: string;
    }[];
    is_error?: boolean;
    activate_tools?: string[];
}
/** Reply to command_invoked; action is one of prompt, tool_prompt, insert, display, open_panel, noop. */
export interface CommandResponseFrame {
    type: "command_response";
    id: string | number;
    action?: string;
    prompt?: string;
    insert?: string;
    display?: string;
    open_panel?: {
        id: string;
        title?: string;
        lines?: string[];
        footer?: string;
    };
    error?: string;
    tool_name?: string;
    tool_args?: unknown;
}
/** Asks the host to run an active tool (only when hello_ack advertises call_tool). */
export interface CallToolFrame {
    type: "call_tool";
    id: string | number;
    name: string;
    args?: unknown;
    parent_id?: string | number;
}
/** Cancels an outstanding call_tool with the same id. */
export interface CallToolCancelFrame {
    type: "call_tool_cancel";
    id: string | number;
}
/** Submits text as a user prompt (interactive host only). */
export interface SubmitFrame {
    type: "submit";
    text?: string;
}
/** A one-shot note: level info, success, warn or error. */
export interface NotifyFrame {
    type: "notify";
    level?: string;
    message?: string;
}
/** Removes every note this extension pushed. */
export interface ClearNotesFrame {
    type: "clear_notes";
}
/** Pushes a fresh frame for an open panel. */
export interface PanelRenderFrame {
    type: "panel_render";
    panel_id: string;
    title?: string;
    lines?: string[];
    footer?: string;
}
/** Closes a panel this extension opened. */
export interface PanelCloseFrame {
    type: "panel_close";
    panel_id: string;
}
/** Reply to shutdown; exit promptly after it. */
export interface ShutdownAckFrame {
    type: "shutdown_ack";
}
/** Reply to hello: protocol version, host info, the extension's own directory, host capabilities. */
export interface HostHelloAckFrame {
    type: "hello_ack";
    protocol_version: 1;
    zot_version: string;
    provider: string;
    model: string;
    cwd: string;
    extension_dir: string;
    data_dir: string;
    capabilities: string[];
}
/** The user ran a registered command; reply with command_response. */
export interface HostCommandInvokedFrame {
    type: "command_invoked";
    id: string;
    name: string;
    args?: string;
}
/** The model (or call_tool) invoked a registered tool; reply with tool_result. */
export interface HostToolCallFrame {
    type: "tool_call";
    id: string;
    name: string;
    args: unknown;
}
/** A delivered tool_call was abandoned (only to extensions advertising tool_cancel). */
export interface HostToolCancelFrame {
    type: "tool_cancel";
    id: string;
}
/** Lifecycle notification for a subscribed event; fields beyond these depend on the event. */
export interface HostEventFrame {
    type: "event";
    event: string;
    session_id?: string;
    cwd?: string;
    sequence?: number;
    [field: string]: unknown;
}
/** Asks an intercepting extension to decide on an event; reply with event_intercept_response. */
export interface HostEventInterceptFrame {
    type: "event_intercept";
    id: string;
    event: string;
    session_id?: string;
    cwd?: string;
    sequence?: number;
    [field: string]: unknown;
}
/** Reply to the extension's call_tool (content bounded to 256 KiB). */
export interface HostToolResultFrame {
    type: "tool_result";
    id: string;
    name: string;
    content: Array<{
        type: "text";
        text: string;
    } | {
        type: "image";
        mime_type: string;
        data: string;
    }>;
    is_error: boolean;
    truncated?: boolean;
}
/** A key for a focused extension panel; key "rune" carries the character in text. */
export interface HostPanelKeyFrame {
    type: "panel_key";
    panel_id: string;
    key: string;
    text?: string;
}
/** The user closed the extension's panel. */
export interface HostPanelCloseFrame {
    type: "panel_close";
    panel_id: string;
}
/** zot is exiting: reply with shutdown_ack and exit (2 s grace). */
export interface HostShutdownFrame {
    type: "shutdown";
}
export type ExtensionToHostFrame = HelloFrame | RegisterCommandFrame | RegisterToolFrame | ReadyFrame | SubscribeFrame | EventInterceptResponseFrame | ToolResultFrame | CommandResponseFrame | CallToolFrame | CallToolCancelFrame | SubmitFrame | NotifyFrame | ClearNotesFrame | PanelRenderFrame | PanelCloseFrame | ShutdownAckFrame;
export type HostToExtensionFrame = HostHelloAckFrame | HostCommandInvokedFrame | HostToolCallFrame | HostToolCancelFrame | HostEventFrame | HostEventInterceptFrame | HostToolResultFrame | HostPanelKeyFrame | HostPanelCloseFrame | HostShutdownFrame;
