/**
 * One handler per RPC command (docs/rpc.md). Each writes exactly one
 * response line for its command; prompt and compact then stream their
 * events from the operation queue and always end with a `done` event.
 *
 * - prompt: queued behind any running prompt/compact; `{started:true}` when it
 *   actually starts, then the agent's events (JSON-mode schema, the agent's
 *   own done/error filtered out by the server), then `error{message}` when
 *   the prompt failed or was blocked (not when aborted), then `done`. The
 *   text goes to the model as is: extension slash commands are not reachable
 *   over RPC (as in the original).
 * - compact: same lifecycle; `compact_done{summary}` on success, `error` on
 *   failure, nothing extra when aborted; always `done` last.
 * - clear / set_model refuse with `agent is busy` while an operation runs or
 *   waits; they are not queued.
 * - set_model accepts ids the catalog lists for the current provider (any id
 *   for Ollama, which has no fixed list).
 * - get_models lists the current provider's catalog models.
 *
 * prompt and compact reach the model (and extensions' tools and events), so
 * before they start they wait for extensions still starting (saying so on
 * stderr after a second); an abort ends that wait. Every other command
 * answers at once, even while extensions start.
 */
import { contentJson, usageFields } from "../../agent/events.ts";
import { ZOT_VERSION } from "../../common/version.ts";
import { findModel, syntheticModel, type Catalog, type ImageBlock, type ModelInfo } from "../../providers/index.ts";
import { waitForExtensions } from "../extension-wait.ts";
import type { HeadlessRuntime } from "../setup.ts";
import { queueStderr } from "../../common/stderr.ts";
import type { OperationQueue } from "./operation-queue.ts";
import type { RpcOutput } from "./output.ts";
import { RPC_ERRORS, RPC_PROTOCOL_VERSION, type RpcCommand, type RpcCommandOf } from "./protocol.ts";

export interface RpcContext {
  readonly runtime: HeadlessRuntime;
  readonly output: RpcOutput;
  readonly queue: OperationQueue;
  /** The model catalog (loaded once, on first use). */
  readonly catalog: () => Promise<Catalog>;
}

function hello(context: RpcContext, command: RpcCommandOf<"hello">): void {
  const { model } = context.runtime.agent;
  context.output.succeeded("hello", command.id, {
    protocol_version: RPC_PROTOCOL_VERSION,
    version: ZOT_VERSION,
    provider: model.provider,
    model: model.id,
  });
}

function prompt(context: RpcContext, command: RpcCommandOf<"prompt">): void {
  const { output, runtime } = context;
  const images: ImageBlock[] = command.images.map((image) => ({ type: "image", mime_type: image.mime_type, data: image.data }));
  if (command.message.trim() === "" && images.length === 0) {
    output.failed("prompt", command.id, "invalid prompt command: message (or images) required");
    return;
  }
  context.queue.enqueue(async (signal) => {
    await waitForExtensions(runtime, queueStderr, signal);
    if (signal.aborted) {
      output.failed("prompt", command.id, RPC_ERRORS.interrupted);
      return;
    }
    output.succeeded("prompt", command.id, { started: true });
    runtime.extensions?.bridge.userPromptSubmit(command.message, images.length);
    const outcome = await runtime.agent.prompt(command.message, { images, signal });
    // A turn an extension blocked is not a failed prompt (the original's Prompt returned nil): its turn_end carries the reason.
    if (outcome.status === "error") output.event({ type: "error", message: outcome.error.message });
    output.event({ type: "done" });
  });
}

function compact(context: RpcContext, command: RpcCommandOf<"compact">): void {
  const { output, runtime } = context;
  context.queue.enqueue(async (signal) => {
    await waitForExtensions(runtime, queueStderr, signal);
    if (signal.aborted) {
      output.failed("compact", command.id, RPC_ERRORS.interrupted);
      return;
    }
    output.succeeded("compact", command.id, { started: true });
    const result = await runtime.agent.compact({ signal });
    if (result.status === "completed") output.event({ type: "compact_done", summary: result.summary ?? "" });
    else if (result.status !== "cancelled") output.event({ type: "error", message: result.error?.message ?? `compaction ${result.status}` });
    output.event({ type: "done" });
  });
}

function getState(context: RpcContext, command: RpcCommandOf<"get_state">): void {
  const { agent, cwd } = context.runtime;
  context.output.succeeded("get_state", command.id, {
    provider: agent.model.provider,
    model: agent.model.id,
    cwd,
    message_count: agent.messages.length,
    busy: context.queue.busy,
    usage: usageFields(agent.cumulativeUsage),
  });
}

function getMessages(context: RpcContext, command: RpcCommandOf<"get_messages">): void {
  const messages = context.runtime.agent.messages.map((message) => ({
    role: message.role,
    content: contentJson(message.content),
    time: message.time,
  }));
  context.output.succeeded("get_messages", command.id, { messages });
}

function clear(context: RpcContext, command: RpcCommandOf<"clear">): void {
  if (context.queue.busy) {
    context.output.failed("clear", command.id, RPC_ERRORS.busy);
    return;
  }
  const refused = context.runtime.agent.clearMessages();
  if (refused !== undefined) context.output.failed("clear", command.id, refused.message);
  else context.output.succeeded("clear", command.id);
}

function modelFor(catalog: Catalog, current: ModelInfo, id: string): ModelInfo | undefined {
  if (id === current.id) return current;
  const listed = findModel(catalog, current.provider, id);
  if (listed !== undefined) return listed;
  return current.provider === "ollama" ? syntheticModel(current.provider, id) : undefined;
}

async function setModel(context: RpcContext, command: RpcCommandOf<"set_model">): Promise<void> {
  const { agent, extensions } = context.runtime;
  const catalog = await context.catalog();
  if (context.queue.busy) {
    context.output.failed("set_model", command.id, RPC_ERRORS.busy);
    return;
  }
  const provider = agent.model.provider;
  const model = modelFor(catalog, agent.model, command.model);
  if (model === undefined) {
    context.output.failed("set_model", command.id, `unknown model "${command.model}" for provider ${provider}`);
    return;
  }
  agent.setModel(model);
  extensions?.bridge.setModel(provider, model.id);
  context.output.succeeded("set_model", command.id, { model: model.id });
}

async function getModels(context: RpcContext, command: RpcCommandOf<"get_models">): Promise<void> {
  const current = context.runtime.agent.model;
  const catalog = await context.catalog();
  const listed = catalog.models.filter((model) => model.provider === current.provider);
  const all = listed.some((model) => model.id === current.id) ? listed : [current, ...listed];
  const models = all.map((model) => ({
    id: model.id,
    provider: model.provider,
    context_window: model.contextWindow,
    max_output: model.maxOutput,
    reasoning: model.reasoning,
  }));
  context.output.succeeded("get_models", command.id, { models });
}

/** Runs one authenticated, well-formed command. */
export async function runCommand(context: RpcContext, command: RpcCommand): Promise<void> {
  switch (command.type) {
    case "hello":
      return hello(context, command);
    case "prompt":
      return prompt(context, command);
    case "abort":
      context.queue.abortActive();
      return context.output.succeeded("abort", command.id);
    case "compact":
      return compact(context, command);
    case "get_state":
      return getState(context, command);
    case "get_messages":
      return getMessages(context, command);
    case "clear":
      return clear(context, command);
    case "set_model":
      return setModel(context, command);
    case "get_models":
      return getModels(context, command);
    case "ping":
      return context.output.succeeded("ping", command.id, { pong: true });
  }
}
