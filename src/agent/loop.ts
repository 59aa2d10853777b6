/**
 * The agent loop of one prompt (reference notes §4.2, [BUG?]s not
 * reproduced). Operates on the mutable AgentCore owned by AgentSession.
 * The prompt's user message is appended first, then any afterUserMessage
 * messages (a tool_prompt's recorded call + result), then the steps run.
 *
 * Per step: turn_start → hooks.beforeTurn (block → turn_end{error}, done,
 * "blocked") → one model call (any `retry` events first) → assistant_start once
 * the model's response has begun (a 200; also when its stream then fails) →
 * forwarded deltas → usage (when the stream ends,
 * before the message, where the original zot emits it) → tool-call arguments
 * nested deeper than MAX_VALUE_DEPTH replaced by "{}" (their calls fail with
 * an error result, tool-exec.ts boundToolCalls) → assistant message kept
 * unless empty or aborted with tool calls → hooks.onAssistantMessage →
 * append + assistant_message (unless hidden) → tool_call per call →
 * turn_end. The usage row is persisted after the message row. A tool_use stop runs the
 * calls through the choke point (tool-exec.ts: tool_guard around a call's
 * guards, tool_start as its tool begins to execute, both UI-only,
 * tool_progress, tool_result as each settles), adds any usage a tool
 * reported (ToolOutcome.usage: subagents) to the cumulative total, appends
 * one tool message and loops. The last event of every prompt is exactly one `done` (normal end or
 * blocked turn) or `error` (failure, abort); an exhausted step budget ends
 * with `done` then `error` "max steps (N) exceeded", as the original's loop.
 *
 * A failed model call whose error points at a tool (by position or name)
 * registered by an extension says which extension (tool-blame.ts).
 *
 * Automatic compaction (compaction.ts) runs at the top of a step, before
 * turn_start, when the previous model call's context use reached the
 * threshold; and once per step when the model call fails with HTTP 413
 * (compact, then the same call is retried). Never in the middle of a tool batch.
 */
import { ZotError, errorMessage } from "../common/errors.ts";
import {
  addUsage,
  type ImageBlock,
  type Message,
  type ModelInfo,
  type ProviderClient,
  type ReasoningLevel,
  type StreamEvent,
  type StreamResult,
  type Usage,
} from "../providers/types.ts";
import { usageEvent, parseArgsForDisplay, type AgentEvent } from "./events.ts";
import { DEFAULT_TURN_BLOCK_REASON, MODEL_ORIGIN, type AgentHooks } from "./hooks.ts";
import {
  imageMirrorMessage,
  isEmptyMessage,
  messageText,
  replaceMessageText,
  toolResultMessage,
  userMessage,
} from "./messages.ts";
import { contextTokens, isPayloadTooLarge, runCompaction, shouldAutoCompact, type CompactionObserver } from "./compaction.ts";
import { boundToolCalls, runToolBatch, type ToolRunEnvironment } from "./tool-exec.ts";
import { blameTool } from "./tool-blame.ts";
import { AGENT_ERROR_CODES, type AgentPersistence, type AgentTools, type PromptOutcome } from "./types.ts";

export const ABORTED_MESSAGE = "aborted";

/** System prompt state: the base, and the hook's result for one generation of it. */
export interface SystemPromptState {
  base: string;
  /** Bumped by every reset; a preparation for an older generation is discarded. */
  generation: number;
  prepared: { readonly generation: number; readonly text: string } | undefined;
}

/** Everything the loop reads and mutates; owned by AgentSession. */
export interface AgentCore {
  client: ProviderClient;
  model: ModelInfo;
  tools: AgentTools;
  readonly hooks: AgentHooks;
  readonly cwd: string;
  jailRoot: string | undefined;
  readonly maxSteps: number;
  readonly reasoning: ReasoningLevel | undefined;
  readonly parallelTools: boolean;
  readonly allowInteractive: boolean;
  /** undefined → mirror for clients named openai / ollama. */
  readonly mirrorToolImages: boolean | undefined;
  readonly emit: (event: AgentEvent) => void;
  readonly persistence: AgentPersistence | undefined;
  readonly messages: Message[];
  /** Parallel to messages: each one's session-file row index (null: unknown / not on disk). */
  readonly messageRows: (number | null)[];
  readonly cumulative: Usage;
  /** Fraction of model.contextWindow that triggers automatic compaction; undefined → never automatic. */
  readonly autoCompactThreshold: number | undefined;
  readonly compactionObserver: CompactionObserver | undefined;
  /** Context use (input + cache read + cache write) of the last model call since the transcript last changed shape. */
  lastContextTokens: number | undefined;
  readonly system: SystemPromptState;
  /** Messages handed to appendMessages while a prompt ran; appended at the next safe point. */
  readonly pendingAppends: Message[];
}

export function appendMessage(core: AgentCore, message: Message): void {
  core.messages.push(message);
  const row = core.persistence?.onMessage(message);
  core.messageRows.push(typeof row === "number" ? row : null);
}

export function flushPendingAppends(core: AgentCore): void {
  if (core.pendingAppends.length === 0) return;
  for (const message of core.pendingAppends.splice(0)) appendMessage(core, message);
}

export function toolEnvironment(core: AgentCore): ToolRunEnvironment {
  return {
    tools: core.tools,
    hooks: core.hooks,
    cwd: core.cwd,
    jailRoot: core.jailRoot,
    allowInteractive: core.allowInteractive,
    parallel: core.parallelTools,
  };
}

/** The hook-prepared system prompt for the current generation; undefined when aborted meanwhile. */
async function preparedSystemPrompt(core: AgentCore, signal: AbortSignal): Promise<string | undefined> {
  const hook = core.hooks.systemPrompt;
  const state = core.system;
  if (hook === undefined) return state.base;
  while (state.prepared === undefined || state.prepared.generation !== state.generation) {
    const generation = state.generation;
    const base = state.base;
    let text = base;
    try {
      const replaced: unknown = await hook(base, { signal });
      if (typeof replaced === "string") text = replaced;
    } catch {
      text = base;
    }
    if (signal.aborted) return undefined;
    // A reset meanwhile bumped state.generation: the loop condition reruns the hook.
    state.prepared = { generation, text };
  }
  return state.prepared.text;
}

type ModelCall =
  | { readonly kind: "result"; readonly result: StreamResult }
  | { readonly kind: "failed"; readonly error: ZotError };

async function callModel(core: AgentCore, system: string, signal: AbortSignal): Promise<ModelCall> {
  const { emit } = core;
  let started = false;
  const start = (): void => {
    if (started) return;
    started = true;
    emit({ type: "assistant_start" });
  };
  const forward = (event: StreamEvent): void => {
    if (event.type === "retry") {
      emit(event); // before the response starts: no assistant_start yet
      return;
    }
    start();
    switch (event.type) {
      case "text_delta":
      case "tool_use_start":
      case "tool_use_args":
      case "tool_use_end":
      case "thinking_delta":
        emit(event);
        return;
      case "usage":
        return;
    }
  };
  const tools = core.tools.specs();
  try {
    const result = await core.client.stream(
      { model: core.model, system, messages: core.messages.slice(), tools, reasoning: core.reasoning, signal, onResponseStart: start },
      forward,
    );
    start();
    return { kind: "result", result };
  } catch (err) {
    const error =
      err instanceof ZotError
        ? err
        : new ZotError(AGENT_ERROR_CODES.providerFailure, errorMessage(err), { provider: core.client.name }, { cause: err });
    // A refused tool definition is named with the extension that registered it (tool-blame.ts).
    if (tools.length > 0) error.message = blameTool(error.message, tools, core.tools);
    return { kind: "failed", error };
  }
}

/** Runs onAssistantMessage, appends the message and emits what the user may see. */
async function deliverAssistantMessage(core: AgentCore, message: Message, signal: AbortSignal): Promise<void> {
  let visible: Message | undefined = message;
  const hook = core.hooks.onAssistantMessage;
  if (hook !== undefined) {
    const text = messageText(message);
    if (text !== "") {
      try {
        const decision = await hook({ text, message, signal });
        if (decision?.block !== undefined) {
          visible = undefined;
          const { reason, by } = decision.block;
          core.emit(by === undefined ? { type: "assistant_hidden", reason } : { type: "assistant_hidden", reason, by });
        }
        else if (decision?.replaceText !== undefined && decision.replaceText !== "") {
          visible = { ...message, content: replaceMessageText(message.content, decision.replaceText) };
        }
      } catch {
        visible = undefined;
      }
    }
  }
  appendMessage(core, message);
  if (visible !== undefined) core.emit({ type: "assistant_message", content: visible.content, time: visible.time });
}

function shouldMirrorImages(core: AgentCore): boolean {
  return core.mirrorToolImages ?? (core.client.name === "openai" || core.client.name === "ollama");
}

function finishDone(core: AgentCore, outcome: PromptOutcome): PromptOutcome {
  flushPendingAppends(core);
  core.emit({ type: "done" });
  return outcome;
}

function finishError(core: AgentCore, error: ZotError): PromptOutcome {
  flushPendingAppends(core);
  core.emit({ type: "error", message: error.message });
  return { status: "error", error };
}

function finishAborted(core: AgentCore): PromptOutcome {
  flushPendingAppends(core);
  core.emit({ type: "error", message: ABORTED_MESSAGE });
  return { status: "aborted" };
}

export async function runPrompt(
  core: AgentCore,
  text: string,
  images: readonly ImageBlock[],
  signal: AbortSignal,
  afterUserMessage: readonly Message[] = [],
): Promise<PromptOutcome> {
  const { emit } = core;
  if (text === "" && images.length === 0) {
    return finishError(core, new ZotError(AGENT_ERROR_CODES.emptyPrompt, "empty prompt: nothing to send"));
  }
  flushPendingAppends(core);
  const user = userMessage(text, images);
  appendMessage(core, user);
  emit({ type: "user_message", content: user.content, time: user.time });
  for (const message of afterUserMessage) appendMessage(core, message);

  for (let step = 1; step <= core.maxSteps; step++) {
    flushPendingAppends(core);
    if (signal.aborted) return finishAborted(core);
    if (shouldAutoCompact(core)) {
      core.lastContextTokens = undefined;
      await runCompaction(core, { signal });
      if (signal.aborted) return finishAborted(core);
    }
    emit({ type: "turn_start", step });

    const beforeTurn = core.hooks.beforeTurn;
    if (beforeTurn !== undefined) {
      let reason: string | undefined;
      try {
        const decision = await beforeTurn({ step, signal });
        if (decision?.block !== undefined) reason = decision.block.reason || DEFAULT_TURN_BLOCK_REASON;
      } catch (err) {
        reason = `turn guard failed: ${errorMessage(err)}`;
      }
      if (reason !== undefined) {
        emit({ type: "turn_end", stop: "error", error: reason });
        return finishDone(core, { status: "blocked", reason });
      }
    }

    const system = await preparedSystemPrompt(core, signal);
    if (system === undefined) {
      emit({ type: "turn_end", stop: "aborted" });
      return finishAborted(core);
    }

    let call = await callModel(core, system, signal);
    if (call.kind === "failed" && !signal.aborted && core.autoCompactThreshold !== undefined && isPayloadTooLarge(call.error)) {
      const compaction = await runCompaction(core, { signal });
      if (compaction.status === "completed") call = await callModel(core, system, signal);
    }
    if (call.kind === "failed") {
      if (signal.aborted) {
        emit({ type: "turn_end", stop: "aborted" });
        return finishAborted(core);
      }
      emit({ type: "turn_end", stop: "error", error: call.error.message });
      return finishError(core, call.error);
    }

    const { stop, usage } = call.result;
    core.lastContextTokens = contextTokens(usage);
    addUsage(core.cumulative, usage);
    emit(usageEvent(usage, core.cumulative));

    // Too-deep tool arguments are refused here, before anything stores or serialises them.
    const { message, calls } = boundToolCalls(call.result.message);
    const keep = !isEmptyMessage(message) && !(stop === "aborted" && calls.length > 0);
    if (keep) {
      await deliverAssistantMessage(core, message, signal);
      for (const toolCall of calls) {
        emit({ type: "tool_call", id: toolCall.id, name: toolCall.name, args: parseArgsForDisplay(toolCall.arguments) });
      }
    }
    core.persistence?.onUsage(usage, core.cumulative);

    if (stop === "error") {
      const error = new ZotError(AGENT_ERROR_CODES.modelError, "the model response ended with an error", {
        provider: core.client.name,
        model: core.model.id,
      });
      emit({ type: "turn_end", stop, error: error.message });
      return finishError(core, error);
    }
    emit({ type: "turn_end", stop });
    if (stop === "aborted") return finishAborted(core);
    if (stop !== "tool_use" || !keep || calls.length === 0) return finishDone(core, { status: "done" });

    const records = await runToolBatch(toolEnvironment(core), calls, {
      origin: MODEL_ORIGIN,
      signal,
      onProgress: (id, progress) => emit({ type: "tool_progress", id, text: progress }),
      onGuard: (id, waiting) => emit({ type: "tool_guard", id, waiting }),
      onStarted: (id, rewritten) => emit(rewritten === undefined ? { type: "tool_start", id } : { type: "tool_start", id, rewritten }),
      onSettled: (record) =>
        emit({
          type: "tool_result",
          id: record.id,
          is_error: record.outcome.isError,
          content: record.outcome.content,
          status: record.status,
          details: record.outcome.details,
        }),
    });
    // Tools that spent model usage themselves (subagents) count towards the session's totals.
    for (const record of records) if (record.outcome.usage !== undefined) addUsage(core.cumulative, record.outcome.usage);
    appendMessage(core, toolResultMessage(records));
    if (shouldMirrorImages(core)) {
      const mirror = imageMirrorMessage(records);
      if (mirror !== undefined) appendMessage(core, mirror);
    }
    if (signal.aborted) return finishAborted(core);
  }

  // As the original's loop: the exhausted loop ends with `done`, and the prompt then fails.
  flushPendingAppends(core);
  core.emit({ type: "done" });
  return finishError(
    core,
    new ZotError(AGENT_ERROR_CODES.maxSteps, `max steps (${core.maxSteps}) exceeded`, { maxSteps: core.maxSteps }),
  );
}
