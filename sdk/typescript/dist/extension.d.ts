import { type CallToolOptions } from "./calls.ts";
import { type InterceptHandlers } from "./intercepts.ts";
import { type CallToolResult, type CommandResponse, type HostInfo, type JsonObject, type LifecycleEvent, type NoteLevel, type PanelContent, type PanelKey, type PanelSpec, type ToolResult } from "./protocol.ts";
import { type ReadableLike, type WritableLike } from "./transport.ts";
type Awaitable<T> = T | Promise<T>;
export interface ExtensionOptions {
    /** Extra `hello` capabilities (the SDK always sends commands, tools, panels, tool_cancel, call_tool). */
    capabilities?: string[];
    /** zot addition: "deny" makes zot block an action when this extension's interceptor misses its deadline. */
    onTimeout?: "allow" | "deny";
    /** Streams to use instead of process.stdin / process.stdout (tests). */
    input?: ReadableLike;
    output?: WritableLike;
    /** Where log lines go (default: stderr, which zot writes to the extension's log). */
    log?: (line: string) => void;
}
export interface CommandContext {
    readonly id: string;
    readonly name: string;
    readonly host: HostInfo;
    /** Aborted on shutdown and EOF. */
    readonly signal: AbortSignal;
}
export interface ToolContext {
    /** The `tool_call` correlation id (unique per call: a good panel id suffix). */
    readonly id: string;
    readonly name: string;
    readonly host: HostInfo;
    /** Aborted on `tool_cancel`, shutdown and EOF. */
    readonly signal: AbortSignal;
    /** call_tool nested in this call: `parent_id` and this call's signal are filled in. */
    callTool(name: string, args?: JsonObject, options?: CallToolOptions): Promise<CallToolResult>;
}
export type CommandHandler = (args: string, ctx: CommandContext) => Awaitable<CommandResponse | string | void>;
export type ToolHandler = (args: JsonObject, ctx: ToolContext) => Awaitable<ToolResult | string>;
export type EventHandler = (event: LifecycleEvent) => unknown;
export interface PanelHandlers {
    /** Called for each key, strictly in order; the next key waits until this one's promise settles. */
    onKey?(key: PanelKey): unknown;
    /** The user (or zot) closed the panel. */
    onClose?(): unknown;
}
export declare class Extension {
    readonly name: string;
    readonly version: string;
    private readonly options;
    private readonly commands;
    private readonly tools;
    private readonly events;
    private readonly intercepts;
    private readonly panels;
    private readonly helloHandlers;
    private readonly shutdownHandlers;
    private readonly inflightTools;
    private readonly lifetime;
    private readonly transport;
    private readonly calls;
    private readonly lanes;
    private readonly writeLog;
    private hostInfo;
    private phase;
    private readonly early;
    private finish;
    constructor(name: string, version?: string, options?: ExtensionOptions);
    /** hello_ack's host info; throws before the handshake. */
    get host(): HostInfo;
    log(message: string): void;
    command(name: string, description: string, handler: CommandHandler): this;
    tool(name: string, description: string, schema: JsonObject, handler: ToolHandler): this;
    /** Registered but not advertised until a tool result names it in `activate_tools`. */
    deferredTool(name: string, description: string, schema: JsonObject, handler: ToolHandler): this;
    /** No host reply deadline: waits for the user (open a panel with `renderPanel`); `ctx.signal` ends it. */
    interactiveTool(name: string, description: string, schema: JsonObject, handler: ToolHandler): this;
    onHello(handler: (host: HostInfo) => unknown): this;
    onShutdown(handler: () => unknown): this;
    /** Subscribes to a lifecycle event; handlers run one event at a time, in order. */
    on(event: string, handler: EventHandler): this;
    interceptBeforeAgentStart(handler: NonNullable<InterceptHandlers["before_agent_start"]>): this;
    interceptToolCall(handler: NonNullable<InterceptHandlers["tool_call"]>): this;
    interceptTurnStart(handler: NonNullable<InterceptHandlers["turn_start"]>): this;
    interceptAssistantMessage(handler: NonNullable<InterceptHandlers["assistant_message"]>): this;
    /** zot addition: see each tool result before the model and optionally replace its content. */
    interceptToolResult(handler: NonNullable<InterceptHandlers["tool_result"]>): this;
    /** Sets the key / close handlers of panel `id` (replacing earlier ones). */
    panel(id: string, handlers: PanelHandlers): this;
    /** A command response that opens panel `spec.id`, with its handlers registered. */
    openPanel(spec: PanelSpec, handlers?: PanelHandlers): CommandResponse;
    /** Redraws an open panel (or, from an interactive tool's handler, opens the call's panel). */
    renderPanel(id: string, content: PanelContent): Promise<void>;
    /** Closes a panel from the extension's side and forgets its handlers. */
    closePanel(id: string): Promise<void>;
    notify(level: NoteLevel, message: string): Promise<void>;
    clearNotes(): Promise<void>;
    /** Submits a prompt in the interactive host (queued behind a running turn; ignored by headless modes). */
    submit(text: string): Promise<void>;
    /** Runs a tool through the host (its guards and confirmation policy). Rejects at once when the host does not advertise call_tool. */
    callTool(name: string, args?: JsonObject, options?: CallToolOptions): Promise<CallToolResult>;
    /** Speaks the protocol until shutdown or EOF. */
    run(): Promise<void>;
    private onFrame;
    private handshake;
    private dispatch;
    private runCommand;
    private startTool;
    private runTool;
    private runIntercept;
    private runPanel;
    private stop;
    private addTool;
    private intercept;
    private beforeReady;
    private sendRegistration;
    /** Sends a reply; one over the frame limit is replaced by `fallback` (a small error reply) so the host still gets an answer. */
    private reply;
}
export {};
