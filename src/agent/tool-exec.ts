/**
 * The single choke point for tool execution. Every call (the model's, and an
 * extension's call_tool / tool_prompt via AgentSession.runTool) goes through
 * runToolBatch, which for each call, in the model's order:
 *   1. parses the argument text (blank → {}; malformed, non-object, nested
 *      deeper than MAX_VALUE_DEPTH, or refused upstream (argumentsRefused) →
 *      failed, with an error result that says what was wrong),
 *   2. looks the tool up (unknown → `unknown tool "x"`),
 *   3. refuses interactive tools unless the host allows them (blocked),
 *   4. consults hooks.beforeToolCall (block, or replacement args),
 *   5. executes, reported through onStarted right before the tool runs
 *      (with the arguments and the extensions, when a guard rewrote them;
 *      such a call's error result ends with a line naming them), thrown
 *      errors become error results, never escape; a call settled in
 *      steps 1–4 never reaches onStarted,
 *   6. consults hooks.afterToolResult (replacement outcome),
 *   7. reports the record through onSettled.
 * Consecutive concurrency-safe calls form one group: their steps 1–4 run
 * serially, then their executions overlap; unsafe calls run alone. Records
 * come back in the order of the input calls. Nothing here emits AgentEvents.
 */
import { errorMessage } from "../common/errors.ts";
import { MAX_VALUE_DEPTH, describeJsonProblem, jsonTextTooDeep, parseJson, isPlainObject } from "../common/json.ts";
import type { ContentBlock, Message } from "../providers/types.ts";
import type { Tool, ToolOutcome, ToolStatus } from "../tools/types.ts";
import { DEFAULT_TOOL_BLOCK_REASON, type AgentHooks, type ToolCallOrigin } from "./hooks.ts";
import type { AgentTools, ToolCallRecord, ToolCallRequest } from "./types.ts";

export interface ToolRunEnvironment {
  readonly tools: AgentTools;
  readonly hooks: AgentHooks;
  readonly cwd: string;
  readonly jailRoot: string | undefined;
  readonly allowInteractive: boolean;
  /** false → every call runs alone, in order. */
  readonly parallel: boolean;
}

export interface ToolBatchOptions {
  readonly origin: ToolCallOrigin;
  readonly signal: AbortSignal;
  readonly onProgress?: (id: string, text: string) => void;
  /** Called once per call as soon as its record is final (completion order). */
  readonly onSettled?: (record: ToolCallRecord) => void;
  /** The beforeToolCall hook (extension guards, confirmation) is consulted for a call (true), and answered (false). */
  readonly onGuard?: (id: string, waiting: boolean) => void;
  /**
   * Called once per call right before its tool executes (steps 1–4 let it run); never for a call settled before.
   * `rewritten`: an extension's guard replaced the arguments; what the tool runs with and who changed it.
   */
  readonly onStarted?: (id: string, rewritten?: ArgumentRewrite) => void;
}

/** Arguments an extension guard substituted for the model's (tool_call `modified_args`). */
export interface ArgumentRewrite {
  readonly args: JsonObject;
  readonly by: readonly string[];
}

/** The line an error result gains when the call ran with rewritten arguments, so the model and the user know whose arguments failed. */
export function rewrittenArgumentsNote(by: readonly string[]): string {
  return `(this call ran with arguments rewritten by extension ${by.join(", then by extension ")}, not the ones you sent)`;
}

const DEFAULT_EXCLUSIVE_TOOLS: ReadonlySet<string> = new Set(["write", "edit", "bash"]);
export const ABORTED_BEFORE_EXECUTION = "tool call was aborted before it ran";

type JsonObject = Readonly<Record<string, unknown>>;

/** A call after steps 1–4: either settled without execution, or ready to run. */
type PreparedCall =
  | {
      readonly kind: "settled";
      readonly call: ToolCallRequest;
      readonly effectiveArgs: JsonObject | undefined;
      readonly outcome: ToolOutcome;
      readonly status: ToolStatus;
    }
  | {
      readonly kind: "ready";
      readonly call: ToolCallRequest;
      readonly tool: Tool;
      readonly effectiveArgs: JsonObject;
      /** The extensions that rewrote the arguments (empty: the model's own). */
      readonly rewrittenBy: readonly string[];
    };

type ParsedArgs = { readonly ok: true; readonly args: JsonObject } | { readonly ok: false; readonly message: string };

/** The argument text as a JSON object nested at most MAX_VALUE_DEPTH levels (blank → {}). */
export function parseToolArguments(raw: string): ParsedArgs {
  if (raw.trim() === "") return { ok: true, args: {} };
  const parsed = parseJson(raw, MAX_VALUE_DEPTH);
  if (!parsed.ok) {
    const detail = describeJsonProblem(parsed.problem);
    return { ok: false, message: parsed.problem.kind === "too_deep" ? refusedArgumentsMessage(detail) : `invalid tool arguments: ${detail}` };
  }
  if (!isPlainObject(parsed.value)) return { ok: false, message: "invalid tool arguments: expected a JSON object" };
  return { ok: true, args: parsed.value };
}

/** The error result text of a call whose arguments were refused unparsed. */
export function refusedArgumentsMessage(detail: string): string {
  return `invalid tool arguments: ${detail}; the call was not run (send the arguments as a flatter JSON object)`;
}

/**
 * An assistant message as the transcript may keep it, and its tool calls to
 * run. Argument text nested deeper than MAX_VALUE_DEPTH would overflow the
 * stack of whatever later serialises or walks it (the next provider request,
 * the session file, --json output, a resume), so it never enters the
 * transcript: the block keeps "{}" and the call carries `argumentsRefused`,
 * which settles it with an error result saying why. Other text is untouched
 * (malformed JSON stays a string and fails in parseToolArguments).
 */
export function boundToolCalls(message: Message): { readonly message: Message; readonly calls: ToolCallRequest[] } {
  const calls: ToolCallRequest[] = [];
  let content: ContentBlock[] | undefined;
  message.content.forEach((block, index) => {
    if (block.type !== "tool_call") return;
    if (!jsonTextTooDeep(block.arguments, MAX_VALUE_DEPTH)) {
      calls.push({ id: block.id, name: block.name, arguments: block.arguments });
      return;
    }
    content ??= [...message.content];
    content[index] = { ...block, arguments: "{}" };
    const argumentsRefused = refusedArgumentsMessage(describeJsonProblem({ kind: "too_deep", limit: MAX_VALUE_DEPTH }));
    calls.push({ id: block.id, name: block.name, arguments: "{}", argumentsRefused });
  });
  return { message: content === undefined ? message : { ...message, content }, calls };
}

function errorOutcome(text: string, status: ToolStatus): ToolOutcome {
  return { content: [{ type: "text", text }], isError: true, status };
}

function settled(
  call: ToolCallRequest,
  effectiveArgs: JsonObject | undefined,
  text: string,
  status: ToolStatus,
  blockedBy?: string,
): PreparedCall {
  const outcome = errorOutcome(text, status);
  return { kind: "settled", call, effectiveArgs, outcome: blockedBy === undefined ? outcome : { ...outcome, details: { blocked_by: blockedBy } }, status };
}

function classify(outcome: ToolOutcome): ToolStatus {
  return outcome.status ?? (outcome.isError ? "failed" : "completed");
}

function isToolOutcome(value: unknown): value is ToolOutcome {
  return isPlainObject(value) && Array.isArray(value.content) && typeof value.isError === "boolean";
}

async function prepare(env: ToolRunEnvironment, call: ToolCallRequest, options: ToolBatchOptions): Promise<PreparedCall> {
  const parsed = call.argumentsRefused === undefined ? parseToolArguments(call.arguments) : { ok: false as const, message: call.argumentsRefused };
  if (!parsed.ok) return settled(call, undefined, parsed.message, "failed");
  const tool = env.tools.get(call.name);
  if (tool === undefined) return settled(call, parsed.args, `unknown tool "${call.name}"`, "failed");
  if (tool.interactive === true && !env.allowInteractive) {
    return settled(call, parsed.args, `tool "${call.name}" needs user interaction, which this mode does not support`, "blocked");
  }
  if (options.signal.aborted) return settled(call, parsed.args, ABORTED_BEFORE_EXECUTION, "cancelled");
  const hook = env.hooks.beforeToolCall;
  if (hook === undefined) return { kind: "ready", call, tool, effectiveArgs: parsed.args, rewrittenBy: [] };
  let effectiveArgs = parsed.args;
  let rewrittenBy: readonly string[] = [];
  options.onGuard?.(call.id, true);
  try {
    const decision = await hook({
      id: call.id,
      name: call.name,
      args: parsed.args,
      rawArgs: call.arguments,
      origin: options.origin,
      signal: options.signal,
    });
    if (decision?.block !== undefined) {
      const reason = decision.block.reason === "" ? DEFAULT_TOOL_BLOCK_REASON : decision.block.reason;
      return settled(call, parsed.args, reason, decision.block.status ?? "blocked", decision.block.by);
    }
    if (decision?.args !== undefined && isPlainObject(decision.args)) {
      effectiveArgs = decision.args;
      rewrittenBy = decision.rewrittenBy ?? [];
    }
  } catch (err) {
    return settled(call, parsed.args, `tool call guard failed: ${errorMessage(err)}`, "blocked");
  } finally {
    options.onGuard?.(call.id, false);
  }
  if (options.signal.aborted) return settled(call, effectiveArgs, ABORTED_BEFORE_EXECUTION, "cancelled");
  return { kind: "ready", call, tool, effectiveArgs, rewrittenBy };
}

async function execute(
  env: ToolRunEnvironment,
  tool: Tool,
  call: ToolCallRequest,
  args: JsonObject,
  options: ToolBatchOptions,
): Promise<ToolOutcome> {
  const onProgress = options.onProgress;
  const ctx = {
    cwd: env.cwd,
    signal: options.signal,
    onProgress: onProgress === undefined ? ignoreProgress : (text: string) => onProgress(call.id, text),
    jailRoot: env.jailRoot,
    callId: call.id,
  };
  try {
    const outcome: unknown = await tool.execute(args, ctx);
    if (isToolOutcome(outcome)) return outcome;
    return errorOutcome(`tool "${call.name}" returned an invalid result`, "failed");
  } catch (err) {
    if (options.signal.aborted) return errorOutcome(`aborted: ${errorMessage(err)}`, "cancelled");
    return errorOutcome(errorMessage(err), "failed");
  }
}

function ignoreProgress(): void {}

async function finish(env: ToolRunEnvironment, prepared: PreparedCall, options: ToolBatchOptions): Promise<ToolCallRecord> {
  const { call } = prepared;
  let outcome: ToolOutcome;
  let status: ToolStatus;
  let executed = false;
  if (prepared.kind === "settled") {
    outcome = prepared.outcome;
    status = prepared.status;
  } else {
    executed = true;
    const rewrittenBy = prepared.rewrittenBy;
    options.onStarted?.(call.id, rewrittenBy.length > 0 ? { args: prepared.effectiveArgs, by: rewrittenBy } : undefined);
    outcome = await execute(env, prepared.tool, call, prepared.effectiveArgs, options);
    status = classify(outcome);
    if (rewrittenBy.length > 0) outcome = withRewriteNoted(outcome, rewrittenBy);
    const activate = outcome.activateTools;
    if (activate !== undefined && activate.length > 0) env.tools.activate(activate);
  }
  const beforeHook: ToolCallRecord = {
    id: call.id,
    name: call.name,
    rawArgs: call.arguments,
    origin: options.origin,
    effectiveArgs: prepared.effectiveArgs,
    outcome,
    status,
    executed,
  };
  const hook = env.hooks.afterToolResult;
  const record = hook === undefined ? beforeHook : { ...beforeHook, outcome: await hookedOutcome(hook, beforeHook, options.signal) };
  options.onSettled?.(record);
  return record;
}

/**
 * A call that ran with an extension's arguments: its details say so
 * (`args_rewritten_by`, UI-only), and an error result ends with a line
 * naming the extensions, since the error may be about arguments the model
 * never sent (a rewrite into an invalid shape).
 */
function withRewriteNoted(outcome: ToolOutcome, by: readonly string[]): ToolOutcome {
  const details = { ...outcome.details, args_rewritten_by: [...by] };
  if (!outcome.isError) return { ...outcome, details };
  return { ...outcome, details, content: [...outcome.content, { type: "text", text: rewrittenArgumentsNote(by) }] };
}

/** Step 6: the hook's replacement outcome, an error outcome when it fails or answers garbage, else the record's own. */
async function hookedOutcome(
  hook: NonNullable<AgentHooks["afterToolResult"]>,
  record: ToolCallRecord,
  signal: AbortSignal,
): Promise<ToolOutcome> {
  try {
    const replacement = await hook({ ...record, signal });
    if (replacement === undefined) return record.outcome;
    return isToolOutcome(replacement) ? replacement : errorOutcome("tool result hook returned an invalid result", record.status);
  } catch (err) {
    return errorOutcome(`tool result hook failed: ${errorMessage(err)}`, record.status);
  }
}

function isConcurrencySafe(env: ToolRunEnvironment, name: string): boolean {
  if (!env.parallel) return false;
  const check = env.tools.concurrencySafe;
  return check === undefined ? !DEFAULT_EXCLUSIVE_TOOLS.has(name) : check.call(env.tools, name);
}

/** Splits calls into runs of consecutive concurrency-safe calls; each unsafe call stands alone. */
function groupCalls(env: ToolRunEnvironment, calls: readonly ToolCallRequest[]): ToolCallRequest[][] {
  const groups: ToolCallRequest[][] = [];
  let open: ToolCallRequest[] | undefined;
  for (const call of calls) {
    if (isConcurrencySafe(env, call.name)) {
      if (open === undefined) {
        open = [];
        groups.push(open);
      }
      open.push(call);
    } else {
      open = undefined;
      groups.push([call]);
    }
  }
  return groups;
}

/** One call through the choke point (steps 1–7). */
export async function runToolCall(
  env: ToolRunEnvironment,
  call: ToolCallRequest,
  options: ToolBatchOptions,
): Promise<ToolCallRecord> {
  return finish(env, await prepare(env, call, options), options);
}

export async function runToolBatch(
  env: ToolRunEnvironment,
  calls: readonly ToolCallRequest[],
  options: ToolBatchOptions,
): Promise<ToolCallRecord[]> {
  const records: ToolCallRecord[] = [];
  for (const group of groupCalls(env, calls)) {
    if (group.length === 1) {
      records.push(await runToolCall(env, group[0] as ToolCallRequest, options));
      continue;
    }
    const prepared: PreparedCall[] = [];
    for (const call of group) prepared.push(await prepare(env, call, options));
    records.push(...(await Promise.all(prepared.map((item) => finish(env, item, options)))));
  }
  return records;
}
