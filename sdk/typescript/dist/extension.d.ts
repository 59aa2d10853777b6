import { type CallToolOptions } from "./calls.ts";
import { type InterceptHandlers } from "./intercepts.ts";
import { type CallToolResult, type CommandResponse, type HostInfo, type JsonObject, type NoteLevel, type PanelContent, type PanelSpec } from "./protocol.ts";
import type { CommandHandler, EventHandler, ExtensionOptions, PanelHandlers, ToolHandler } from "./handlers.ts";
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
    renderPanel(id: string, content: PanelContent): Promise<boolean>;
    /** Closes a panel from the extension's side and forgets its handlers. */
    closePanel(id: string): Promise<boolean>;
    notify(level: NoteLevel, message: string): Promise<boolean>;
    clearNotes(): Promise<boolean>;
    /** Submits a prompt in the interactive host (queued behind a running turn; ignored by headless modes). */
    submit(text: string): Promise<boolean>;
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
    /** A one-way frame: resolves true once written, false (logged) when it could not be; never rejects, so an unawaited call cannot crash the process. */
    private oneWay;
    private sendRegistration;
    /** Sends a reply; one over the frame limit or not serialisable is replaced by `fallback` (a small error reply) so the host still gets an answer. */
    private reply;
}
