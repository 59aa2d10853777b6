/**
 * AgentSession: the conversation every mode drives (modes only do I/O). It
 * owns the transcript, cumulative usage, the system prompt (base + hook
 * result), the tool set and the hooks; prompt() runs the loop in loop.ts and
 * runTool() reuses the same tool choke point for extension-originated calls.
 *
 * One prompt runs at a time: a second prompt() while one is running resolves
 * with an `agent.busy` error and emits nothing. compact() (compaction.ts) also
 * holds the session busy while it runs and is refused while a prompt runs;
 * automatic compaction happens inside prompt() (autoCompact, default on at
 * 0.85 of the context window). Invalid options are reported
 * by AgentSession.create as a ZotError value (the constructor throws it).
 */
import { ZotError } from "../common/errors.ts";
import { emptyUsage, type Message, type ModelInfo, type ProviderClient, type ReasoningLevel, type Usage } from "../providers/types.ts";
import type { AgentEvent } from "./events.ts";
import { MODEL_ORIGIN, NO_HOOKS, type AgentHooks, type ToolCallOrigin } from "./hooks.ts";
import {
  DEFAULT_AUTO_COMPACT_THRESHOLD,
  refuseCompaction,
  runCompaction,
  type CompactionObserver,
  type CompactionResult,
  type CompactOptions,
} from "./compaction.ts";
import { flushPendingAppends, runPrompt, toolEnvironment, type AgentCore } from "./loop.ts";
import { runToolCall, type ToolBatchOptions } from "./tool-exec.ts";
import {
  AGENT_ERROR_CODES,
  type AgentPersistence,
  type AgentTools,
  type PromptOptions,
  type PromptOutcome,
  type ToolCallRecord,
  type ToolCallRequest,
} from "./types.ts";

export const DEFAULT_MAX_STEPS = 50;

export interface AgentSessionOptions {
  readonly client: ProviderClient;
  readonly model: ModelInfo;
  /** The base system prompt (see buildSystemPrompt); hooks.systemPrompt may replace it. */
  readonly system: string;
  readonly tools: AgentTools;
  readonly cwd: string;
  /** Model calls per prompt; a positive integer, default 50. */
  readonly maxSteps?: number;
  readonly reasoning?: ReasoningLevel;
  readonly hooks?: AgentHooks;
  /** Passed to tools: file tools refuse paths outside it. */
  readonly jailRoot?: string;
  /** Let concurrency-safe calls of one message overlap (default true). */
  readonly parallelTools?: boolean;
  /** Interactive tools are refused unless the host can serve them (default false). */
  readonly allowInteractive?: boolean;
  /** Mirror tool-result images into a hidden user message; default: client named openai/ollama. */
  readonly mirrorToolImages?: boolean;
  readonly onEvent?: (event: AgentEvent) => void;
  readonly persistence?: AgentPersistence;
  /** A resumed transcript (not re-persisted). */
  readonly initialMessages?: readonly Message[];
  /** A resumed cumulative usage (last usage row's cumulative). */
  readonly initialCumulative?: Usage;
  /**
   * Parallel to initialMessages: their session-file row indexes
   * (LoadedSession.messageRows), so a later compaction can name keptFrom.
   */
  readonly initialMessageRows?: readonly (number | null)[];
  /**
   * Compact before a model call once the last call used ≥ threshold × the
   * model's context window (and compact-and-retry once on HTTP 413).
   * Default { threshold: 0.85 }; false turns both off.
   */
  readonly autoCompact?: { readonly threshold?: number } | false;
  /** Told about every compaction attempt (pre_compact / post_compact). */
  readonly compactionObserver?: CompactionObserver;
}

export interface RunToolOptions {
  readonly origin?: ToolCallOrigin;
  readonly signal?: AbortSignal;
  readonly onProgress?: (text: string) => void;
  /** Right before the tool executes; `rewritten` when a guard replaced the arguments (tool-exec.ts onStarted). */
  readonly onStarted?: ToolBatchOptions["onStarted"];
}

function ignoreEvent(): void {}

export function checkAgentSessionOptions(options: AgentSessionOptions): ZotError | undefined {
  const maxSteps = options.maxSteps;
  if (maxSteps !== undefined && (!Number.isSafeInteger(maxSteps) || maxSteps < 1)) {
    return new ZotError(AGENT_ERROR_CODES.invalidOption, `max steps must be a positive integer, got ${String(maxSteps)}`, {
      field: "maxSteps",
    });
  }
  const autoCompact = options.autoCompact;
  const threshold = autoCompact === false || autoCompact === undefined ? undefined : autoCompact.threshold;
  if (threshold !== undefined && !(Number.isFinite(threshold) && threshold > 0 && threshold <= 1)) {
    return new ZotError(AGENT_ERROR_CODES.invalidOption, `auto-compaction threshold must be in (0, 1], got ${String(threshold)}`, {
      field: "autoCompact.threshold",
    });
  }
  const rows = options.initialMessageRows;
  if (rows !== undefined && rows.length !== (options.initialMessages?.length ?? 0)) {
    return new ZotError(AGENT_ERROR_CODES.invalidOption, "initialMessageRows must have one entry per initial message", {
      field: "initialMessageRows",
    });
  }
  return undefined;
}

export class AgentSession {
  readonly #core: AgentCore;
  #running = false;

  /** Validating factory: invalid options come back as a ZotError value. */
  static create(options: AgentSessionOptions): AgentSession | ZotError {
    return checkAgentSessionOptions(options) ?? new AgentSession(options);
  }

  /** Throws the ZotError AgentSession.create would return for invalid options. */
  constructor(options: AgentSessionOptions) {
    const invalid = checkAgentSessionOptions(options);
    if (invalid !== undefined) throw invalid;
    this.#core = {
      client: options.client,
      model: options.model,
      tools: options.tools,
      hooks: options.hooks ?? NO_HOOKS,
      cwd: options.cwd,
      jailRoot: options.jailRoot,
      maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
      reasoning: options.reasoning,
      parallelTools: options.parallelTools ?? true,
      allowInteractive: options.allowInteractive ?? false,
      mirrorToolImages: options.mirrorToolImages,
      emit: options.onEvent ?? ignoreEvent,
      persistence: options.persistence,
      messages: [...(options.initialMessages ?? [])],
      messageRows: options.initialMessageRows !== undefined ? [...options.initialMessageRows] : (options.initialMessages ?? []).map(() => null),
      autoCompactThreshold: options.autoCompact === false ? undefined : (options.autoCompact?.threshold ?? DEFAULT_AUTO_COMPACT_THRESHOLD),
      compactionObserver: options.compactionObserver,
      lastContextTokens: undefined,
      cumulative: { ...(options.initialCumulative ?? emptyUsage()) },
      system: { base: options.system, generation: 0, prepared: undefined },
      pendingAppends: [],
    };
  }

  /** Runs one user prompt to completion; never rejects. */
  async prompt(text: string, options: PromptOptions = {}): Promise<PromptOutcome> {
    if (this.#running) {
      return { status: "error", error: new ZotError(AGENT_ERROR_CODES.busy, "a prompt is already running") };
    }
    this.#running = true;
    try {
      const signal = options.signal ?? new AbortController().signal;
      return await runPrompt(this.#core, text, options.images ?? [], signal, options.afterUserMessage ?? []);
    } finally {
      this.#running = false;
    }
  }

  /**
   * Summarises the older part of the transcript (see compaction.ts). Refused
   * with a busy error (status failed) while a prompt or another compaction
   * runs; holds the session busy meanwhile. Never rejects.
   */
  async compact(options: CompactOptions = {}): Promise<CompactionResult> {
    if (this.#running) {
      return refuseCompaction(this.#core, new ZotError(AGENT_ERROR_CODES.busy, "cannot compact while a prompt is running"));
    }
    this.#running = true;
    try {
      flushPendingAppends(this.#core);
      return await runCompaction(this.#core, options);
    } finally {
      this.#running = false;
      flushPendingAppends(this.#core);
    }
  }

  get busy(): boolean {
    return this.#running;
  }

  get messages(): readonly Message[] {
    return this.#core.messages;
  }

  /** Parallel to messages: session-file row indexes as persistence reported them (null: unknown). */
  get messageRows(): readonly (number | null)[] {
    return this.#core.messageRows;
  }

  /** A copy of the running total over every model call of the session. */
  get cumulativeUsage(): Usage {
    return { ...this.#core.cumulative };
  }

  get model(): ModelInfo {
    return this.#core.model;
  }

  /** The client model calls go through (a side question reuses it). */
  get client(): ProviderClient {
    return this.#core.client;
  }

  /** Where file tools and bash are confined; undefined when not jailed. */
  get jailRoot(): string | undefined {
    return this.#core.jailRoot;
  }

  /** Jails (a root) or unjails (undefined) the tools from the next tool call on (/jail, /unjail). */
  setJailRoot(root: string | undefined): void {
    this.#core.jailRoot = root;
  }

  /** The base prompt, before hooks.systemPrompt. */
  get systemPrompt(): string {
    return this.#core.system.base;
  }

  /** The prompt the model currently gets; undefined until the hook ran for the current base. */
  get effectiveSystemPrompt(): string | undefined {
    const { system, hooks } = this.#core;
    if (hooks.systemPrompt === undefined) return system.base;
    return system.prepared?.generation === system.generation ? system.prepared.text : undefined;
  }

  /** New base prompt; hooks.systemPrompt runs again before the next model call. */
  setSystemPrompt(text: string): void {
    this.#core.system.base = text;
    this.resetSystemPrompt();
  }

  /** Discards the hook's result (and any preparation in flight) so it runs again. */
  resetSystemPrompt(): void {
    const { system } = this.#core;
    system.generation += 1;
    system.prepared = undefined;
  }

  /** Takes effect from the next model request. */
  setTools(tools: AgentTools): void {
    this.#core.tools = tools;
  }

  /** Switches model (and client when the provider changes); re-runs the system prompt hook. */
  setModel(model: ModelInfo, client: ProviderClient = this.#core.client): void {
    this.#core.model = model;
    this.#core.client = client;
    this.resetSystemPrompt();
  }

  /**
   * Appends (and persists) messages that did not come from the loop, such as
   * tool_prompt pairs. While a prompt runs they wait for the next point where
   * the transcript is consistent (before the next model call or at the end).
   */
  appendMessages(messages: readonly Message[]): void {
    this.#core.pendingAppends.push(...messages);
    if (!this.#running) flushPendingAppends(this.#core);
  }

  /**
   * Replaces the transcript (resume, import); not persisted. `rows` gives the
   * messages' session-file row indexes (default: unknown). Refused while a
   * prompt runs.
   */
  replaceMessages(messages: readonly Message[], rows?: readonly (number | null)[]): ZotError | undefined {
    if (this.#running) return new ZotError(AGENT_ERROR_CODES.busy, "cannot replace messages while a prompt is running");
    if (rows !== undefined && rows.length !== messages.length) {
      return new ZotError(AGENT_ERROR_CODES.invalidOption, "rows must have one entry per message", { field: "rows" });
    }
    const core = this.#core;
    core.messages.splice(0, core.messages.length, ...messages);
    core.messageRows.splice(0, core.messageRows.length, ...(rows ?? messages.map(() => null)));
    core.lastContextTokens = undefined;
    return undefined;
  }

  /** Sets the running total (another session was opened in-process: its last usage row's cumulative). */
  setCumulativeUsage(usage: Usage): void {
    Object.assign(this.#core.cumulative, usage);
  }

  /** Empties the transcript (conversation clear); the system prompt hook runs again. */
  clearMessages(): ZotError | undefined {
    const refused = this.replaceMessages([]);
    if (refused === undefined) this.resetSystemPrompt();
    return refused;
  }

  /**
   * Runs one tool call through the same choke point as model calls (guards,
   * execution, result hook) without touching the transcript or emitting
   * AgentEvents. Used for extension call_tool / tool_prompt.
   */
  async runTool(call: ToolCallRequest, options: RunToolOptions = {}): Promise<ToolCallRecord> {
    const onProgress = options.onProgress;
    return runToolCall(toolEnvironment(this.#core), call, {
      origin: options.origin ?? MODEL_ORIGIN,
      signal: options.signal ?? new AbortController().signal,
      onProgress: onProgress === undefined ? undefined : (_id, text) => onProgress(text),
      onStarted: options.onStarted,
    });
  }
}
