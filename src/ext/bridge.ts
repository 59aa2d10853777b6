/**
 * The bridge between one agent session and the extension manager. A mode
 * creates one per session and (1) passes `hooks` to the AgentSession so
 * interception runs at the agent's hook points, (2) forwards every agent
 * event to `observe` so extensions receive lifecycle notifications, (3) calls
 * the session lifecycle methods, and (4) `attachAgent` so extensions can use
 * `call_tool`. With no extension listening, every hook answers synchronously
 * with "no change" and no frame is built.
 *
 * Order for one tool call (extensions.md "Ordering, delivery, and privacy"):
 * tool_call event (at turn end) → tool_call interception → confirmation
 * (tool_confirmation_requested when waited for) → permission_decision →
 * execution → tool_result interception (zot addition) → tool_result event.
 */
import type { AgentEvent } from "../agent/events.ts";
import type { AgentHooks, ToolCallDecision, ToolCallInfo, ToolResultInfo } from "../agent/hooks.ts";
import { DEFAULT_TOOL_BLOCK_REASON, DEFAULT_TURN_BLOCK_REASON } from "../agent/hooks.ts";
import type { PermissionDecisionInfo, PermissionGate, PermissionObserver } from "../agent/permissions.ts";
import { MAX_VALUE_DEPTH, parseJson } from "../common/json.ts";
import type { ToolOutcome } from "../tools/types.ts";
import { CallToolService, type RunTool } from "./call-tool.ts";
import type { LifecycleEvent, WireContentBlock } from "./frames.ts";
import {
  interceptAssistantMessage, interceptSystemPrompt, interceptToolCall, interceptToolResult,
  interceptTurnStart, interceptorsOf,
} from "./intercept.ts";
import { type LifecycleContext, emitLifecycle, hasSubscribers } from "./lifecycle.ts";
import type { ExtensionConnection } from "./connection.ts";
import type { ExtensionManager } from "./manager.ts";
import { boundContent } from "./observation.ts";
import { mapResultBlocks } from "./tool-adapter.ts";

export type SessionEndReason = "shutdown" | "session_switch" | "cwd_change";

/** The confirmation policy (the --no-yolo gate); absent means yolo. */
export type PermissionPolicy = Pick<PermissionGate, "check">;

export interface BridgeOptions {
  readonly sessionId: string;
  /** The user's project directory. */
  readonly cwd: string;
  readonly provider: string;
  readonly model: string;
  /** Interactive hosts may run interactive tools and accept `submit`. */
  readonly interactive: boolean;
  readonly permissions?: PermissionPolicy;
  /** A swarm child's agent_id: carried by every lifecycle notification. */
  readonly agentId?: string;
}

export class ExtensionBridge {
  readonly hooks: AgentHooks;
  private context: LifecycleContext;
  private provider: string;
  private model: string;
  private runCounter = 0;
  private sessionOpen = false;
  private detachCallTool: (() => void) | undefined;

  constructor(
    readonly manager: ExtensionManager,
    readonly options: BridgeOptions,
  ) {
    this.context = { sessionId: options.sessionId, cwd: options.cwd, ...(options.agentId !== undefined ? { agentId: options.agentId } : {}) };
    this.provider = options.provider;
    this.model = options.model;
    this.hooks = {
      systemPrompt: (base, { signal }) => this.systemPrompt(base, signal),
      beforeTurn: (info) => this.beforeTurn(info.step, info.signal),
      onAssistantMessage: (info) => this.assistantMessage(info.text, info.signal),
      beforeToolCall: (info) => this.beforeToolCall(info),
      afterToolResult: (info) => this.afterToolResult(info),
    };
  }

  /** Lets extensions use call_tool through this agent's tool choke point. */
  attachAgent(runTool: RunTool): void {
    this.detachCallTool?.();
    const service = new CallToolService(this.manager, runTool, ({ toolId, toolName, args, extension }) =>
      this.emit("tool_call", { tool_id: toolId, tool_name: toolName, tool_args: args, origin_extension: extension }),
    );
    this.detachCallTool = service.attach();
  }

  setModel(provider: string, model: string): void {
    this.provider = provider;
    this.model = model;
  }

  /** Feed every agent event here (AgentSession onEvent). */
  observe(event: AgentEvent): void {
    switch (event.type) {
      case "turn_start":
        this.emit("turn_start", { step: event.step });
        return;
      case "assistant_message": {
        if (!hasSubscribers(this.manager, "assistant_message")) return;
        let text = "";
        for (const block of event.content) if (block.type === "text") text += block.text;
        if (text !== "") this.emit("assistant_message", { text });
        return;
      }
      case "tool_call":
        if (!hasSubscribers(this.manager, "tool_call")) return;
        this.emit("tool_call", { tool_id: event.id, tool_name: event.name, ...argsPayload(event.args) });
        return;
      case "turn_end":
        this.emit("turn_end", { stop: event.stop, ...(event.error ? { error: event.error } : {}) });
        return;
      default:
    }
  }

  /** The active conversation opened (once per activation). */
  sessionStart(): void {
    if (this.sessionOpen) return;
    this.sessionOpen = true;
    this.emit("session_start", {});
  }

  /**
   * An extension that finished starting after the session opened (the first
   * prompt came before it was ready) gets its own session_start, so every
   * extension's events begin with one. Modes call this only for the initial
   * startup: a reload does not replay events.
   */
  extensionJoined(connection: ExtensionConnection): void {
    if (this.sessionOpen) emitLifecycle(this.manager, this.context, "session_start", {}, connection);
  }

  /** Model input accepted, before it is appended (user_prompt_submit). */
  userPromptSubmit(text: string, imageCount = 0, queued = false): void {
    this.sessionStart();
    this.emit("user_prompt_submit", {
      ...(text ? { text } : {}),
      ...(queued ? { queued: true } : {}),
      image_count: imageCount,
    });
  }

  /** The active conversation closes; the frame is queued before shutdown drains the queues. */
  async sessionEnd(reason: SessionEndReason): Promise<void> {
    if (!this.sessionOpen) return;
    this.sessionOpen = false;
    this.emit("session_end", { reason });
  }

  /** Compaction observer for the agent (pre_compact / post_compact). */
  compactionStarted(info: { readonly compactionId: string; readonly messageCount: number; readonly tokenEstimate: number }): void {
    this.emit("pre_compact", { compaction_id: info.compactionId, message_count: info.messageCount, token_estimate: info.tokenEstimate });
  }

  compactionFinished(info: {
    readonly compactionId: string;
    readonly messageCount: number;
    readonly tokenEstimate: number;
    readonly status: string;
    readonly error?: string;
  }): void {
    this.emit("post_compact", {
      compaction_id: info.compactionId,
      message_count: info.messageCount,
      token_estimate: info.tokenEstimate,
      status: info.status,
      ...(info.error ? { error: info.error } : {}),
    });
  }

  /** Switches to another conversation: end of the old one, start of the new. */
  async switchSession(sessionId: string): Promise<void> {
    await this.sessionEnd("session_switch");
    this.context = { ...this.context, sessionId };
    this.sessionStart();
  }

  /** The conversation notifications are about now (a subagent's stop reuses its start's). */
  get sessionId(): string {
    return this.context.sessionId;
  }

  /** A local swarm runner starts (extensions.md "swarm boundaries"); `sessionId` is the task's parent conversation. */
  subagentStart(info: { readonly sessionId: string; readonly agentId: string; readonly agentRunId: string; readonly name: string }): void {
    emitLifecycle(this.manager, { ...this.context, sessionId: info.sessionId }, "subagent_start", {
      agent_id: info.agentId, agent_run_id: info.agentRunId, name: info.name,
    });
  }

  /** That runner returned with its terminal status. */
  subagentStop(
    info: { readonly sessionId: string; readonly agentId: string; readonly agentRunId: string; readonly name: string },
    status: string,
    error: string | undefined,
  ): void {
    emitLifecycle(this.manager, { ...this.context, sessionId: info.sessionId }, "subagent_stop", {
      agent_id: info.agentId, agent_run_id: info.agentRunId, name: info.name, status, ...(error !== undefined ? { error } : {}),
    });
  }

  dispose(): void {
    this.detachCallTool?.();
    this.detachCallTool = undefined;
  }

  private emit(event: LifecycleEvent, payload: Readonly<Record<string, unknown>>): void {
    emitLifecycle(this.manager, this.context, event, payload);
  }

  private warn(extension: string, message: string): void {
    this.manager.hostWarning(extension, message);
  }

  private systemPrompt(base: string, signal: AbortSignal): string | Promise<string> {
    const interceptors = interceptorsOf(this.manager, "before_agent_start");
    if (interceptors.length === 0) return base;
    this.runCounter += 1;
    const payload = {
      session_id: this.context.sessionId,
      agent_run_id: `run-${this.runCounter}`,
      ...(this.context.agentId !== undefined ? { agent_id: this.context.agentId } : {}),
      cwd: this.context.cwd,
      provider: this.provider,
      model: this.model,
    };
    return interceptSystemPrompt(interceptors, base, payload, signal, (w) => this.warn(w.extension, w.message));
  }

  private beforeTurn(step: number, signal: AbortSignal) {
    const interceptors = interceptorsOf(this.manager, "turn_start");
    if (interceptors.length === 0) return undefined;
    return interceptTurnStart(interceptors, step, signal, DEFAULT_TURN_BLOCK_REASON).then((decision) =>
      decision.blocked ? { block: { reason: decision.reason } } : undefined,
    );
  }

  private assistantMessage(text: string, signal: AbortSignal) {
    const interceptors = interceptorsOf(this.manager, "assistant_message");
    if (interceptors.length === 0) return undefined;
    return interceptAssistantMessage(interceptors, text, signal, "assistant message blocked by extension guard").then((result) => {
      if (result.decision.blocked) return { block: { reason: result.decision.reason, by: result.decision.by } };
      return result.replaced ? { replaceText: result.text } : undefined;
    });
  }

  private beforeToolCall(info: ToolCallInfo): ToolCallDecision | undefined | Promise<ToolCallDecision | undefined> {
    const interceptors = interceptorsOf(this.manager, "tool_call");
    const policy = this.options.permissions;
    if (interceptors.length === 0 && !policy && !hasSubscribers(this.manager, "permission_decision")) return undefined;
    return this.guardToolCall(info, interceptors);
  }

  private async guardToolCall(info: ToolCallInfo, interceptors: ReturnType<typeof interceptorsOf>): Promise<ToolCallDecision | undefined> {
    const origin = info.origin.kind === "extension" ? { origin_extension: info.origin.extension } : {};
    const base = { tool_id: info.id, tool_name: info.name, ...origin };
    let args = info.args;
    let rewrittenBy: readonly string[] = [];
    if (interceptors.length > 0) {
      const chain = await interceptToolCall(interceptors, base, info.args, info.signal, DEFAULT_TOOL_BLOCK_REASON);
      if (chain.decision.blocked) {
        this.emit("permission_decision", { ...base, decision: "denied", source: "policy", stage: "pre_execution", reason: chain.decision.reason });
        return { block: { reason: chain.decision.reason, status: "blocked", by: chain.decision.by } };
      }
      args = chain.args;
      rewrittenBy = chain.rewrittenBy;
    }
    const observer: Required<PermissionObserver> = {
      confirmationRequested: (request) =>
        this.emit("tool_confirmation_requested", { tool_id: request.toolId, tool_name: request.toolName, tool_preview: request.toolPreview, ...origin }),
      decision: (decision: PermissionDecisionInfo) =>
        this.emit("permission_decision", {
          tool_id: decision.toolId,
          tool_name: decision.toolName,
          decision: decision.decision,
          source: decision.source,
          stage: decision.stage,
          ...(decision.reason ? { reason: decision.reason } : {}),
          ...origin,
        }),
    };
    const policy = this.options.permissions;
    if (policy) {
      const result = await policy.check({ toolId: info.id, toolName: info.name, args, signal: info.signal, ...(rewrittenBy.length > 0 ? { rewrittenBy } : {}) }, observer);
      if (!result.approved) return { block: { reason: result.reason, status: result.decision === "cancelled" ? "cancelled" : "blocked" } };
    } else {
      observer.decision({ toolId: info.id, toolName: info.name, decision: "approved", source: "yolo", stage: "pre_execution" });
    }
    return rewrittenBy.length > 0 ? { args, rewrittenBy } : undefined;
  }

  private afterToolResult(info: ToolResultInfo): ToolOutcome | undefined | Promise<ToolOutcome | undefined> {
    const interceptors = interceptorsOf(this.manager, "tool_result");
    const observed = hasSubscribers(this.manager, "tool_result");
    const toolExecutionRefusal = info.status === "blocked" && info.executed;
    if (interceptors.length === 0 && !observed && !(toolExecutionRefusal && hasSubscribers(this.manager, "permission_decision"))) return undefined;
    return this.finishToolResult(info, interceptors);
  }

  private async finishToolResult(info: ToolResultInfo, interceptors: ReturnType<typeof interceptorsOf>): Promise<ToolOutcome | undefined> {
    const origin = info.origin.kind === "extension" ? { origin_extension: info.origin.extension } : {};
    const args = info.effectiveArgs !== undefined ? { tool_args: info.effectiveArgs } : argsPayload(info.rawArgs, true);
    let outcome = info.outcome;
    let replaced: ToolOutcome | undefined;
    if (interceptors.length > 0) {
      const bounded = boundContent(outcome.content);
      const payload = {
        tool_id: info.id, tool_name: info.name, ...args, status: info.status, executed: info.executed, ...origin,
        result: { is_error: outcome.isError, ...(bounded.truncated ? { truncated: true } : {}) },
      };
      const result = await interceptToolResult(interceptors, payload, bounded.content as WireContentBlock[], info.signal);
      if (result.replacedBy.length > 0) {
        const mapped = mapResultBlocks(result.replacedBy.join(","), result.content);
        replaced = { ...outcome, content: mapped.content };
        outcome = replaced;
      }
    }
    if (info.status === "blocked" && info.executed) {
      const reason = outcome.content.find((block) => block.type === "text")?.text;
      this.emit("permission_decision", {
        tool_id: info.id, tool_name: info.name, decision: "denied", source: "policy", stage: "tool_execution",
        ...(reason ? { reason } : {}), ...origin,
      });
    }
    if (hasSubscribers(this.manager, "tool_result")) {
      const bounded = boundContent(outcome.content);
      this.emit("tool_result", {
        tool_id: info.id,
        tool_name: info.name,
        ...args,
        status: info.status,
        executed: info.executed,
        result: { content: bounded.content, is_error: outcome.isError, ...(bounded.truncated ? { truncated: true } : {}) },
        ...origin,
      });
    }
    return replaced;
  }
}

/**
 * tool_args for a parsed value, or tool_args_raw when the model's text was not
 * a JSON object nested at most MAX_VALUE_DEPTH levels.
 */
function argsPayload(args: unknown, raw = false): Record<string, unknown> {
  if (raw && typeof args === "string") {
    const parsed = args.trim() === "" ? { ok: true as const, value: {} } : parseJson(args, MAX_VALUE_DEPTH);
    const value = parsed.ok ? parsed.value : undefined;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { tool_args: value };
    return { tool_args_raw: args };
  }
  if (typeof args === "object" && args !== null && !Array.isArray(args)) return { tool_args: args };
  return { tool_args_raw: typeof args === "string" ? args : JSON.stringify(args) };
}
