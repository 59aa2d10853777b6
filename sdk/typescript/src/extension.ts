/**
 * `Extension`: the SDK's one object, shaped like the spec's Go SDK. Register
 * commands, tools (plain, deferred, interactive), interceptors, event
 * handlers and panels, then `run()`: it sends `hello` (advertising
 * `tool_cancel` and `call_tool`), waits for `hello_ack`, runs the onHello
 * handlers, sends the registrations, one `subscribe` and `ready`, and serves
 * frames until `shutdown` (answered with `shutdown_ack`) or EOF; then it stops
 * reading stdin, aborts every in-flight handler's signal, and resolves.
 *
 * Ordering: a panel's `panel_key` / `panel_close` frames run strictly one
 * after another in arrival order, each awaited, and lifecycle events likewise
 * (one lane for all events); tool calls, commands and interceptions run
 * concurrently, so a slow handler never holds up unrelated frames.
 * Failure: a handler that throws or rejects becomes an error tool result, a
 * command response with `error`, or an "allow" interception reply (a "block"
 * one when the extension declared `onTimeout: "deny"`), logged to stderr; the
 * extension keeps running. Replies the host no longer waits for (a cancelled
 * tool call, an interception past 5 s, a command past 30 s) are not sent.
 */
import process from "node:process";
import { ToolCalls, type CallToolOptions } from "./calls.ts";
import { BLOCKING_KINDS, interceptReply, type InterceptHandlers, type InterceptKind } from "./intercepts.ts";
import { Lanes } from "./lanes.ts";
import {
  HOST_DEADLINES, PROTOCOL_VERSION, type CallToolResult, type CommandResponse, type HostFrame, type HostInfo,
  type InterceptEvent, type JsonObject, type LifecycleEvent, type NoteLevel, type PanelContent, type PanelSpec, type ToolResult,
} from "./protocol.ts";
import { errorMessage, errorResult, normalizeResponse, normalizeToolResult, openPanel } from "./results.ts";
import { FrameEncodeError, FrameTooLargeError, Transport } from "./transport.ts";
import { anySignal, hostInfo, toolFrame, type ToolEntry } from "./wire-helpers.ts";
import type { CommandHandler, EventHandler, ExtensionOptions, PanelHandlers, ToolContext, ToolHandler } from "./handlers.ts";

interface CommandEntry { readonly description: string; readonly handler: CommandHandler }

const BASE_CAPABILITIES = ["commands", "tools", "panels", "tool_cancel", "call_tool"];
/** How long after stopping the process is given to exit by itself (see ExtensionOptions.exitAfterStop). */
const EXIT_GRACE_MS = 100;

export class Extension {
  private readonly commands = new Map<string, CommandEntry>();
  private readonly tools = new Map<string, ToolEntry>();
  private readonly events = new Map<string, EventHandler[]>();
  private readonly intercepts: InterceptHandlers = {};
  private readonly panels = new Map<string, PanelHandlers>();
  private readonly helloHandlers: ((host: HostInfo) => unknown)[] = [];
  private readonly shutdownHandlers: (() => unknown)[] = [];
  private readonly inflightTools = new Map<string, AbortController>();
  private readonly lifetime = new AbortController();
  private readonly transport: Transport;
  private readonly calls: ToolCalls;
  private readonly lanes: Lanes;
  private readonly writeLog: (line: string) => void;
  private hostInfo: HostInfo | undefined;
  private phase: "new" | "handshake" | "running" | "stopped" = "new";
  private readonly early: HostFrame[] = [];
  private finish: (() => void) | undefined;

  constructor(readonly name: string, readonly version = "0.0.0", private readonly options: ExtensionOptions = {}) {
    this.writeLog = options.log ?? ((line) => void process.stderr.write(line + "\n"));
    this.transport = new Transport(options.input ?? process.stdin, options.output ?? process.stdout, (message) => this.log(message));
    this.calls = new ToolCalls((frame) => this.transport.send(frame));
    this.lanes = new Lanes((error, what) => this.log(`${what} failed: ${errorMessage(error)}`));
  }

  /** hello_ack's host info; throws before the handshake. */
  get host(): HostInfo {
    if (!this.hostInfo) throw new Error(`extension ${this.name}: host info is available after hello_ack (in onHello or a handler)`);
    return this.hostInfo;
  }

  log(message: string): void {
    this.writeLog(`[${this.name}] ${message}`);
  }

  // ---- registration -------------------------------------------------------

  command(name: string, description: string, handler: CommandHandler): this {
    const known = this.commands.has(name);
    this.commands.set(name, { description, handler });
    if (!known && this.phase === "running") this.sendRegistration({ type: "register_command", name, description });
    return this;
  }

  tool(name: string, description: string, schema: JsonObject, handler: ToolHandler): this {
    return this.addTool(name, { description, schema, handler, deferred: false, interactive: false });
  }

  /** Registered but not advertised until a tool result names it in `activate_tools`. */
  deferredTool(name: string, description: string, schema: JsonObject, handler: ToolHandler): this {
    return this.addTool(name, { description, schema, handler, deferred: true, interactive: false });
  }

  /** No host reply deadline: waits for the user (open a panel with `renderPanel`); `ctx.signal` ends it. */
  interactiveTool(name: string, description: string, schema: JsonObject, handler: ToolHandler): this {
    return this.addTool(name, { description, schema, handler, deferred: false, interactive: true });
  }

  onHello(handler: (host: HostInfo) => unknown): this {
    this.helloHandlers.push(handler);
    return this;
  }

  onShutdown(handler: () => unknown): this {
    this.shutdownHandlers.push(handler);
    return this;
  }

  /** Subscribes to a lifecycle event; handlers run one event at a time, in order. */
  on(event: string, handler: EventHandler): this {
    this.beforeReady(`on("${event}")`);
    const list = this.events.get(event) ?? [];
    list.push(handler);
    this.events.set(event, list);
    return this;
  }

  interceptBeforeAgentStart(handler: NonNullable<InterceptHandlers["before_agent_start"]>): this { return this.intercept("before_agent_start", handler); }
  interceptToolCall(handler: NonNullable<InterceptHandlers["tool_call"]>): this { return this.intercept("tool_call", handler); }
  interceptTurnStart(handler: NonNullable<InterceptHandlers["turn_start"]>): this { return this.intercept("turn_start", handler); }
  interceptAssistantMessage(handler: NonNullable<InterceptHandlers["assistant_message"]>): this { return this.intercept("assistant_message", handler); }
  /** zot addition: see each tool result before the model and optionally replace its content. */
  interceptToolResult(handler: NonNullable<InterceptHandlers["tool_result"]>): this { return this.intercept("tool_result", handler); }

  // ---- panels -------------------------------------------------------------

  /** Sets the key / close handlers of panel `id` (replacing earlier ones). */
  panel(id: string, handlers: PanelHandlers): this {
    this.panels.set(id, handlers);
    return this;
  }

  /** A command response that opens panel `spec.id`, with its handlers registered. */
  openPanel(spec: PanelSpec, handlers: PanelHandlers = {}): CommandResponse {
    this.panel(spec.id, handlers);
    return openPanel(spec);
  }

  /** Redraws an open panel (or, from an interactive tool's handler, opens the call's panel). */
  renderPanel(id: string, content: PanelContent): Promise<boolean> {
    return this.oneWay({ type: "panel_render", panel_id: id, ...content });
  }

  /** Closes a panel from the extension's side and forgets its handlers. */
  closePanel(id: string): Promise<boolean> {
    this.panels.delete(id);
    return this.oneWay({ type: "panel_close", panel_id: id });
  }

  // ---- one-way frames and call_tool --------------------------------------

  notify(level: NoteLevel, message: string): Promise<boolean> {
    return this.oneWay({ type: "notify", level, message });
  }

  clearNotes(): Promise<boolean> {
    return this.oneWay({ type: "clear_notes" });
  }

  /** Submits a prompt in the interactive host (queued behind a running turn; ignored by headless modes). */
  submit(text: string): Promise<boolean> {
    return this.oneWay({ type: "submit", text });
  }

  /** Runs a tool through the host (its guards and confirmation policy). Rejects at once when the host does not advertise call_tool. */
  callTool(name: string, args: JsonObject = {}, options: CallToolOptions = {}): Promise<CallToolResult> {
    if (!this.hostInfo) return Promise.reject(new Error("call_tool before hello_ack"));
    if (!this.hostInfo.capabilities.includes("call_tool")) return Promise.reject(new Error("this host does not support call_tool (not in hello_ack.capabilities)"));
    if (this.phase === "stopped") return Promise.reject(new Error("the extension has stopped"));
    return this.calls.call(name, args, options);
  }

  // ---- running ------------------------------------------------------------

  /** Speaks the protocol until shutdown or EOF. */
  run(): Promise<void> {
    if (this.phase !== "new") return Promise.reject(new Error(`extension ${this.name}: run() called twice`));
    this.phase = "handshake";
    const done = new Promise<void>((resolve) => (this.finish = resolve));
    this.transport.start((frame) => this.onFrame(frame), () => void this.stop("eof"));
    const capabilities = [...new Set([...BASE_CAPABILITIES, ...(this.options.capabilities ?? [])])];
    this.sendRegistration({ type: "hello", name: this.name, version: this.version, capabilities });
    return done;
  }

  private onFrame(frame: HostFrame): void {
    if (this.phase === "stopped") return;
    if (frame.type === "hello_ack" && this.phase === "handshake" && !this.hostInfo) return void this.handshake(frame);
    // Before hello_ack, shutdown is handled at once; during the handshake it waits its turn behind earlier frames.
    if (frame.type === "shutdown" && !this.hostInfo) return void this.stop("shutdown");
    if (this.phase !== "running") {
      this.early.push(frame);
      return;
    }
    this.dispatch(frame);
  }

  private async handshake(frame: HostFrame): Promise<void> {
    const host = hostInfo(frame);
    this.hostInfo = host;
    if (host.protocolVersion !== PROTOCOL_VERSION) this.log(`host speaks protocol version ${host.protocolVersion}; this SDK speaks ${PROTOCOL_VERSION}`);
    for (const handler of this.helloHandlers) {
      try {
        await handler(host);
      } catch (error) {
        this.log(`onHello handler failed: ${errorMessage(error)}`);
      }
    }
    if ((this.phase as string) === "stopped") return;
    for (const [name, { description }] of this.commands) this.sendRegistration({ type: "register_command", name, description });
    for (const [name, tool] of this.tools) this.sendRegistration(toolFrame(name, tool));
    const events = [...this.events.keys()];
    const intercept = Object.keys(this.intercepts);
    if (events.length > 0 || intercept.length > 0 || this.options.onTimeout) {
      const subscribe: Record<string, unknown> = { type: "subscribe", events, intercept };
      if (this.options.onTimeout) subscribe.on_timeout = this.options.onTimeout;
      this.sendRegistration(subscribe as { type: string });
    }
    this.sendRegistration({ type: "ready" });
    this.phase = "running";
    for (const early of this.early.splice(0)) this.dispatch(early);
  }

  private dispatch(frame: HostFrame): void {
    switch (frame.type) {
      case "command_invoked":
        return this.lanes.concurrent(`command /${String(frame.name)}`, () => this.runCommand(frame));
      case "tool_call":
        return this.startTool(frame);
      case "tool_cancel":
        return void this.inflightTools.get(String(frame.id))?.abort(new DOMException("tool call cancelled by the host", "AbortError"));
      case "tool_result":
        if (!this.calls.reply(frame)) this.log(`tool_result for unknown call_tool id ${JSON.stringify(frame.id)} ignored`);
        return;
      case "event": {
        const handlers = this.events.get(String(frame.event)) ?? [];
        for (const handler of handlers) this.lanes.serial("events", `${String(frame.event)} event handler`, () => handler(frame as LifecycleEvent));
        return;
      }
      case "event_intercept":
        return this.lanes.concurrent(`${String(frame.event)} interceptor`, () => this.runIntercept(frame as InterceptEvent));
      case "shutdown":
        return void this.stop("shutdown");
      case "panel_key":
      case "panel_close":
        return this.lanes.serial(`panel:${String(frame.panel_id)}`, `panel ${String(frame.panel_id)} ${frame.type}`, () => this.runPanel(frame));
      default:
        this.log(`host frame of unknown type "${frame.type}" ignored`);
    }
  }

  private async runCommand(frame: HostFrame): Promise<void> {
    const id = frame.id as string;
    const name = String(frame.name);
    const received = Date.now();
    const entry = this.commands.get(name) ?? [...this.commands].find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
    let body: CommandResponse;
    if (!entry) body = { action: "noop", error: `${this.name}: no command /${name}` };
    else {
      try {
        const returned = await entry.handler(typeof frame.args === "string" ? frame.args : "", { id, name, host: this.host, signal: this.lifetime.signal });
        const normal = normalizeResponse(returned);
        body = normal.ok ? normal.value : { action: "noop", error: `/${name}: handler ${normal.problem}` };
        if (!normal.ok) this.log(`command /${name}: handler ${normal.problem}`);
      } catch (error) {
        this.log(`command /${name} failed: ${errorMessage(error)}`);
        body = { action: "noop", error: `/${name} failed: ${errorMessage(error)}` };
      }
    }
    if (this.phase === "stopped") return;
    if (Date.now() - received > HOST_DEADLINES.command) return this.log(`command /${name} answered after the host's ${HOST_DEADLINES.command} ms deadline; reply not sent`);
    await this.reply({ type: "command_response", id, ...body }, (problem) => ({ type: "command_response", id, action: "noop", error: `/${name}: response not sent: ${problem}` }));
  }

  private startTool(frame: HostFrame): void {
    const id = frame.id as string;
    const key = String(id);
    const name = String(frame.name);
    // Registered before the handler starts, so a tool_cancel that arrives first still finds it.
    const controller = new AbortController();
    this.inflightTools.set(key, controller);
    this.lanes.concurrent(`tool ${name}`, async () => {
      let result: ToolResult;
      try {
        result = await this.runTool(id, name, frame.args, controller.signal);
      } finally {
        this.inflightTools.delete(key);
      }
      if (controller.signal.aborted || this.phase === "stopped") return this.log(`tool ${name} (${id}) was cancelled; its result is not sent`);
      await this.reply({ type: "tool_result", id, ...result }, (problem) => ({ type: "tool_result", id, ...errorResult(`tool ${name}: result not sent: ${problem}`) }));
    });
  }

  private async runTool(id: string, name: string, rawArgs: unknown, signal: AbortSignal): Promise<ToolResult> {
    const tool = this.tools.get(name);
    if (!tool) return errorResult(`${this.name}: no tool ${name}`);
    const args = typeof rawArgs === "object" && rawArgs !== null && !Array.isArray(rawArgs) ? (rawArgs as JsonObject) : {};
    const ctx: ToolContext = {
      id, name, host: this.host, signal,
      callTool: (tool, toolArgs = {}, options = {}) => this.callTool(tool, toolArgs, { parentId: id, signal: options.signal ? anySignal(signal, options.signal) : signal }),
    };
    try {
      const normal = normalizeToolResult(await tool.handler(args, ctx));
      if (normal.ok) return normal.value;
      this.log(`tool ${name}: handler ${normal.problem}`);
      return errorResult(`tool ${name}: handler ${normal.problem}`);
    } catch (error) {
      this.log(`tool ${name} failed: ${errorMessage(error)}`);
      return errorResult(`tool ${name} failed: ${errorMessage(error)}`);
    }
  }

  private async runIntercept(event: InterceptEvent): Promise<void> {
    const received = Date.now();
    let body: Record<string, unknown>;
    try {
      body = await interceptReply(this.intercepts, event, (message) => this.log(message));
    } catch (error) {
      const denies = this.options.onTimeout === "deny" && BLOCKING_KINDS.has(event.event);
      this.log(`${event.event} interceptor failed: ${errorMessage(error)}; replying ${denies ? "block (onTimeout deny)" : "allow"}`);
      body = denies ? { block: true, reason: `${this.name}: interceptor failed: ${errorMessage(error)}` } : {};
    }
    if (this.phase === "stopped") return;
    if (Date.now() - received > HOST_DEADLINES.intercept) return this.log(`${event.event} interceptor answered after the host's ${HOST_DEADLINES.intercept} ms deadline; reply not sent`);
    await this.reply({ type: "event_intercept_response", id: event.id, ...body }, () => ({ type: "event_intercept_response", id: event.id }));
  }

  private async runPanel(frame: HostFrame): Promise<void> {
    const id = String(frame.panel_id);
    const handlers = this.panels.get(id);
    if (frame.type === "panel_close") {
      this.panels.delete(id);
      await handlers?.onClose?.();
      return;
    }
    if (!handlers?.onKey) return this.log(`panel_key for panel ${id}, which has no key handler, ignored`);
    await handlers.onKey({ panel_id: id, key: String(frame.key), ...(typeof frame.text === "string" ? { text: frame.text } : {}) });
  }

  private async stop(reason: "shutdown" | "eof"): Promise<void> {
    if (this.phase === "stopped") return;
    this.phase = "stopped";
    const why = reason === "shutdown" ? "the host shut the extension down" : "the host closed stdin";
    for (const controller of this.inflightTools.values()) controller.abort(new DOMException(why, "AbortError"));
    this.lifetime.abort(new DOMException(why, "AbortError"));
    this.calls.failAll(`call_tool abandoned: ${why}`);
    for (const handler of this.shutdownHandlers) {
      try {
        await handler();
      } catch (error) {
        this.log(`onShutdown handler failed: ${errorMessage(error)}`);
      }
    }
    if (reason === "shutdown") await this.transport.send({ type: "shutdown_ack" }).catch(() => {});
    await this.transport.flush();
    this.transport.stopReading();
    this.finish?.();
    // The host gives an extension 2 s to exit after shutdown, then SIGTERMs it: a timer or socket the author left open
    // must not keep the process alive. An unref'd timer: a process with nothing left exits before it fires.
    // Only on the process's own stdin (streams given in the options are a test harness, which must not be exited).
    if (this.options.exitAfterStop !== false && this.options.input === undefined) setTimeout(() => process.exit(0), EXIT_GRACE_MS).unref();
  }

  // ---- helpers ------------------------------------------------------------

  private addTool(name: string, entry: ToolEntry): this {
    const known = this.tools.has(name);
    this.tools.set(name, entry);
    if (!known && this.phase === "running") this.sendRegistration(toolFrame(name, entry));
    return this;
  }

  private intercept<K extends InterceptKind>(kind: K, handler: NonNullable<InterceptHandlers[K]>): this {
    this.beforeReady(`intercept ${kind}`);
    this.intercepts[kind] = handler;
    return this;
  }

  private beforeReady(what: string): void {
    if (this.phase === "running" || this.phase === "stopped") this.log(`${what} registered after ready: the host is not told (subscribe is sent once, before ready)`);
  }

  /** A one-way frame: resolves true once written, false (logged) when it could not be; never rejects, so an unawaited call cannot crash the process. */
  private oneWay(frame: { type: string; [field: string]: unknown }): Promise<boolean> {
    return this.transport.send(frame).then(
      () => true,
      (error: unknown) => {
        this.log(`${frame.type} not sent: ${errorMessage(error)}`);
        return false;
      },
    );
  }

  private sendRegistration(frame: { type: string; [field: string]: unknown }): void {
    this.transport.send(frame).catch((error: Error) => this.log(`${frame.type} not sent: ${error.message}`));
  }

  /** Sends a reply; one over the frame limit or not serialisable is replaced by `fallback` (a small error reply) so the host still gets an answer. */
  private async reply(frame: { type: string; [field: string]: unknown }, fallback: (problem: string) => { type: string; [field: string]: unknown }): Promise<void> {
    try {
      await this.transport.send(frame);
    } catch (error) {
      if (!(error instanceof FrameTooLargeError || error instanceof FrameEncodeError)) return this.log(`${frame.type} not sent: ${errorMessage(error)}`);
      this.log(error.message);
      await this.transport.send(fallback(error.message)).catch((again: Error) => this.log(`${frame.type} not sent: ${again.message}`));
    }
  }
}
