/**
 * The handler and option types of `Extension` (extension.ts): what command,
 * tool, event and panel handlers receive and may return.
 */
import type { CallToolOptions } from "./calls.ts";
import type { CallToolResult, CommandResponse, HostInfo, JsonObject, LifecycleEvent, PanelKey, ToolResult } from "./protocol.ts";
import type { ReadableLike, WritableLike } from "./transport.ts";

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
  /**
   * After `shutdown` (or EOF) and the onShutdown handlers, the process exits within 100 ms even when a timer or socket
   * is still open (zot SIGTERMs an extension still running 2 s after shutdown). `false` leaves the exit to you.
   * Not with `input` given (a test harness).
   */
  exitAfterStop?: boolean;
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

/** A string is shorthand for display(text); nothing for noop(). */
export type CommandResponseLike = CommandResponse | string | void;
export type CommandHandler = (args: string, ctx: CommandContext) => Awaitable<CommandResponseLike>;
export type ToolHandler = (args: JsonObject, ctx: ToolContext) => Awaitable<ToolResult | string>;
export type EventHandler = (event: LifecycleEvent) => unknown;
export interface PanelHandlers {
  /** Called for each key, strictly in order; the next key waits until this one's promise settles. */
  onKey?(key: PanelKey): unknown;
  /** The user (or zot) closed the panel. */
  onClose?(): unknown;
}

