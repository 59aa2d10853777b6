/**
 * Host-mediated tool calls requested by extensions (`call_tool`). Only
 * extensions that advertised the `call_tool` capability may use it; args must
 * be a JSON object nested at most MAX_VALUE_DEPTH (128) levels. A call
 * runs through the agent's normal tool choke point (guard interception,
 * confirmation policy, events tagged with origin_extension) but adds no
 * transcript message. Replies are correlated `tool_result` frames bounded to
 * 256 KiB (`truncated: true` when shortened). Calls end on `call_tool_cancel`,
 * after 60 s, when the extension disconnects, or when a parent call is
 * cancelled. parent_id rules: the parent must be a live host tool_call sent
 * to this extension; a chain holds at most four calls including the original
 * and never repeats a tool name; without parent_id a request is refused while
 * that extension has a host-invoked tool running. At most 16 requests of
 * one extension run at once and 10,000 wait (call-tool-slots.ts); nested
 * requests (parent_id) never wait.
 */
import type { ToolCallRecord, ToolCallRequest } from "../agent/types.ts";
import type { ToolCallOrigin } from "../agent/hooks.ts";
import { MAX_VALUE_DEPTH, valueTooDeep } from "../common/json.ts";
import type { ExtensionConnection } from "./connection.ts";
import type { InboundFrame, InboundOf } from "./frames.ts";
import { parentChain } from "./host-calls.ts";
import type { ExtensionManager } from "./manager.ts";
import { CallToolSlots } from "./call-tool-slots.ts";
import { boundContent } from "./observation.ts";

export const CALL_TOOL_TIMEOUT_MS = 60_000;
export const MAX_CHAIN_LENGTH = 4;

export type RunTool = (call: ToolCallRequest, options: { origin: ToolCallOrigin; signal: AbortSignal }) => Promise<ToolCallRecord>;

interface RunningCall {
  readonly controller: AbortController;
}

export class CallToolService {
  /** Running calls by "<extension>\u0000<request id>" (waiting for a slot included, so call_tool_cancel reaches them). */
  private readonly running = new Map<string, RunningCall>();
  private readonly slots = new CallToolSlots();

  constructor(
    private readonly manager: ExtensionManager,
    private readonly runTool: RunTool,
    private readonly onCallStart?: (info: { toolId: string; toolName: string; args: Readonly<Record<string, unknown>>; extension: string }) => void,
  ) {}

  /** Installs this service as the manager's call_tool handler. */
  attach(): () => void {
    this.manager.callToolHandler = (connection, frame) => this.handle(connection, frame);
    const onClose = (extension: string): void => this.cancelAll(extension);
    this.manager.closeListeners.add(onClose);
    return () => {
      if (this.manager.callToolHandler) this.manager.callToolHandler = undefined;
      this.manager.closeListeners.delete(onClose);
    };
  }

  handle(connection: ExtensionConnection, frame: InboundFrame): void {
    if (frame.type === "call_tool_cancel") {
      this.running.get(key(connection.name, frame.id))?.controller.abort();
      return;
    }
    if (frame.type === "call_tool") void this.run(connection, frame);
  }

  private refuse(connection: ExtensionConnection, frame: InboundOf<"call_tool">, message: string): void {
    connection.log.limited("refused call_tool requests").note(`call_tool ${frame.name} refused: ${message}`);
    connection.send({ type: "tool_result", id: frame.id, name: frame.name, is_error: true, content: [{ type: "text", text: message }] });
  }

  private async run(connection: ExtensionConnection, frame: InboundOf<"call_tool">): Promise<void> {
    const extension = connection.name;
    if (!connection.capabilities.has("call_tool")) {
      return this.refuse(connection, frame, 'call_tool needs the "call_tool" capability in hello');
    }
    const args = frame.args ?? {};
    if (typeof args !== "object" || args === null || Array.isArray(args)) return this.refuse(connection, frame, "call_tool args must be a JSON object");
    if (valueTooDeep(args, MAX_VALUE_DEPTH)) return this.refuse(connection, frame, `call_tool args nested deeper than ${MAX_VALUE_DEPTH} levels`);
    const runningKey = key(extension, frame.id);
    if (this.running.has(runningKey)) return this.refuse(connection, frame, `call_tool id "${frame.id}" is already in use`);

    let chainAbove: readonly string[] = [];
    const signals: AbortSignal[] = [];
    if (frame.parent_id !== undefined) {
      const parent = this.manager.hostCalls.get(frame.parent_id);
      if (!parent || parent.extension !== extension) return this.refuse(connection, frame, `unknown or expired parent_id "${frame.parent_id}"`);
      if (parent.chain.includes(frame.name)) return this.refuse(connection, frame, `tool "${frame.name}" is already in this call chain (${parent.chain.join(" → ")})`);
      if (parent.chain.length + 1 > MAX_CHAIN_LENGTH) return this.refuse(connection, frame, `call chain limit reached (at most ${MAX_CHAIN_LENGTH} tool calls including the original)`);
      chainAbove = parent.chain;
      if (parent.signal) signals.push(parent.signal);
    } else if (this.manager.hostCalls.activeFor(extension)) {
      return this.refuse(connection, frame, "call_tool without parent_id is refused while a host-invoked tool of this extension is running; pass the tool_call id as parent_id");
    }

    const controller = new AbortController();
    this.running.set(runningKey, { controller });
    signals.push(controller.signal, AbortSignal.timeout(CALL_TOOL_TIMEOUT_MS));
    const signal = AbortSignal.any(signals);
    const toolId = `ext-${extension}-${frame.id}`;
    // Nested calls never wait: the running call above may be waiting for them.
    const grant = frame.parent_id === undefined ? await this.slots.acquire(extension, signal) : undefined;
    if (grant?.refused === true) {
      this.running.delete(runningKey);
      return this.refuse(connection, frame, `not run: ${grant.waiting} call_tool requests of this extension are already waiting for one of its ${this.slots.maxRunning} running ones to finish`);
    }
    try {
      this.onCallStart?.({ toolId, toolName: frame.name, args: args as Record<string, unknown>, extension });
      const record = await parentChain.run(chainAbove, () =>
        this.runTool({ id: toolId, name: frame.name, arguments: JSON.stringify(args) }, { origin: { kind: "extension", extension }, signal }),
      );
      const bounded = boundContent(record.outcome.content);
      connection.send({
        type: "tool_result",
        id: frame.id,
        name: frame.name,
        content: bounded.content,
        is_error: record.outcome.isError,
        ...(bounded.truncated ? { truncated: true } : {}),
      });
    } catch (err) {
      connection.send({ type: "tool_result", id: frame.id, name: frame.name, is_error: true, content: [{ type: "text", text: `call_tool failed: ${err instanceof Error ? err.message : String(err)}` }] });
    } finally {
      grant?.release();
      this.running.delete(runningKey);
    }
  }

  private cancelAll(extension: string): void {
    const prefix = `${extension}\u0000`;
    for (const [runningKey, call] of this.running) if (runningKey.startsWith(prefix)) call.controller.abort();
  }
}

function key(extension: string, id: string): string {
  return `${extension}\u0000${id}`;
}
