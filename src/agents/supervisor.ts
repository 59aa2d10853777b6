/**
 * The swarm supervisor of one parent session: runs `agent` tool calls as
 * swarm children (child.ts), at most `maxConcurrent` at a time (the rest wait
 * for a slot in call order; a call cancelled while waiting never starts and
 * is `cancelled`). For every child that starts it reports, in this order:
 *   observer.start (extensions' subagent_start) + a `subagent_start` event,
 *   `subagent_event`s (the child's own --json events, tagged with agent_id),
 *   observer.stop (subagent_stop, after the runner returned) + a
 *   `subagent_stop` event with the terminal status and the child's usage.
 * start/stop share agent_id (survives resume) and agent_run_id (fresh per
 * run); `name` is the agent_id (extensions.md "swarm boundaries");
 * `session_id` is the parent conversation at the start, also for the stop.
 * Each run is recorded in $ZOT_HOME/agents/runs/<agent_id>.json (runs.ts).
 * close() cancels every run and waits up to `graceMs` for them to return.
 */
import { join } from "node:path";
import type { AgentEvent } from "../agent/events.ts";
import { runChild, type ChildResult } from "./child.ts";
import type { SubagentStatus, SwarmTask } from "./protocol.ts";
import { writeRunRecord } from "./runs.ts";

export const DEFAULT_MAX_CONCURRENT = 4;
export const DEFAULT_AGENT_TIMEOUT_MS = 30 * 60 * 1000;
export const SHUTDOWN_GRACE_MS = 2_000;

export interface SubagentIdentity {
  readonly sessionId: string;
  readonly agentId: string;
  readonly agentRunId: string;
  readonly name: string;
}

/** The extension side (ExtensionBridge.subagentStart / subagentStop). */
export interface SwarmObserver {
  start(identity: SubagentIdentity): void;
  stop(identity: SubagentIdentity, status: SubagentStatus, error: string | undefined): void;
}

/** What a child inherits from the parent's run (see protocol.ts SwarmTask). */
export type ChildSettings = Omit<SwarmTask, "agent_id" | "agent_run_id" | "parent_session_id" | "prompt" | "tools" | "system_prompt" | "model"> & {
  readonly model?: string;
  /** The parent's built-in selection: undefined = default, else the allowed names. */
  readonly tools?: readonly string[];
};

export interface SupervisorOptions {
  readonly settings: ChildSettings;
  readonly zotHome: string;
  /** The parent conversation now (it can change in interactive mode). */
  readonly parentSessionId: () => string;
  readonly maxConcurrent?: number;
  readonly timeoutMs?: number;
  readonly observer?: SwarmObserver;
  readonly onEvent?: (event: AgentEvent) => void;
  /** argv of a swarm child (default: this zot's swarm-child). */
  readonly command?: readonly string[];
}

export interface SubagentRequest {
  readonly toolId: string;
  readonly description: string;
  readonly prompt: string;
  /** Definition name (for events and records). */
  readonly agent?: string;
  readonly tools?: readonly string[];
  readonly model?: string;
  readonly systemPrompt?: string;
  readonly signal: AbortSignal;
}

export interface SubagentResult extends ChildResult {
  readonly agentId: string;
  readonly agentRunId: string;
}

function shortId(prefix: string): string {
  return `${prefix}${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
}

export class AgentSupervisor {
  readonly maxConcurrent: number;
  readonly timeoutMs: number;
  readonly #options: SupervisorOptions;
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #running = new Map<string, { readonly abort: AbortController; readonly done: Promise<unknown> }>();
  readonly #listeners = new Set<(event: AgentEvent) => void>();

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.maxConcurrent = Math.max(1, Math.floor(options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT));
    this.timeoutMs = Math.max(1, options.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS);
    if (options.onEvent !== undefined) this.#listeners.add(options.onEvent);
  }

  /** The event stream a UI can follow (subagent_start / subagent_event / subagent_stop). Returns the unsubscribe. */
  subscribe(listener: (event: AgentEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Runs now. */
  get running(): number {
    return this.#active;
  }

  #emit(event: AgentEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // a listener's failure is not the run's
      }
    }
  }

  async #acquire(signal: AbortSignal): Promise<boolean> {
    if (this.#active < this.maxConcurrent) {
      this.#active++;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const grant = (): void => {
        signal.removeEventListener("abort", cancel);
        this.#active++;
        resolve(true);
      };
      const cancel = (): void => {
        const at = this.#waiting.indexOf(grant);
        if (at !== -1) this.#waiting.splice(at, 1);
        resolve(false);
      };
      if (signal.aborted) return resolve(false);
      signal.addEventListener("abort", cancel, { once: true });
      this.#waiting.push(grant);
    });
  }

  #release(): void {
    this.#active--;
    this.#waiting.shift()?.();
  }

  async run(request: SubagentRequest): Promise<SubagentResult> {
    const agentId = shortId("agent_");
    const agentRunId = shortId("run_");
    if (!(await this.#acquire(request.signal))) {
      return { agentId, agentRunId, status: "cancelled", text: "", error: "cancelled before it started", usage: { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: 0 } };
    }
    const abort = new AbortController();
    const forward = (): void => abort.abort();
    if (request.signal.aborted) abort.abort();
    else request.signal.addEventListener("abort", forward, { once: true });
    let finish: (value: unknown) => void = () => {};
    this.#running.set(agentRunId, { abort, done: new Promise((resolve) => (finish = resolve)) });
    try {
      return await this.#runChild(request, agentId, agentRunId, abort.signal);
    } finally {
      request.signal.removeEventListener("abort", forward);
      this.#running.delete(agentRunId);
      finish(undefined);
      this.#release();
    }
  }

  async #runChild(request: SubagentRequest, agentId: string, agentRunId: string, signal: AbortSignal): Promise<SubagentResult> {
    const { settings, zotHome } = this.#options;
    const identity: SubagentIdentity = { sessionId: this.#options.parentSessionId(), agentId, agentRunId, name: agentId };
    const task: SwarmTask = {
      ...settings,
      agent_id: agentId,
      agent_run_id: agentRunId,
      parent_session_id: identity.sessionId,
      prompt: request.prompt,
      ...(request.tools !== undefined ? { tools: request.tools } : settings.tools !== undefined ? { tools: settings.tools } : {}),
      ...(request.model !== undefined ? { model: request.model } : settings.model !== undefined ? { model: settings.model } : {}),
      ...(request.systemPrompt !== undefined && request.systemPrompt !== "" ? { system_prompt: request.systemPrompt } : {}),
    };
    const started = new Date();
    const record = (status: SubagentStatus | "running", extra: Partial<ChildResult> = {}): boolean =>
      writeRunRecord(join(zotHome, "agents", "runs"), {
        agent_id: agentId,
        agent_run_id: agentRunId,
        name: agentId,
        ...(request.agent !== undefined ? { agent: request.agent } : {}),
        description: request.description,
        prompt: request.prompt,
        parent_session_id: identity.sessionId,
        cwd: settings.cwd,
        status,
        started: started.toISOString(),
        ...(status !== "running" ? { ended: new Date().toISOString() } : {}),
        ...(extra.sessionPath !== undefined ? { session_path: extra.sessionPath } : {}),
        ...(extra.error !== undefined ? { error: extra.error } : {}),
      });
    record("running");
    this.#options.observer?.start(identity);
    this.#emit({
      type: "subagent_start",
      agent_id: agentId,
      agent_run_id: agentRunId,
      name: agentId,
      tool_id: request.toolId,
      description: request.description,
      ...(request.agent !== undefined ? { agent: request.agent } : {}),
    });
    const result = await runChild({
      task,
      signal,
      timeoutMs: this.timeoutMs,
      command: this.#options.command,
      onEvent: (event) => this.#emit({ type: "subagent_event", agent_id: agentId, agent_run_id: agentRunId, event }),
    });
    record(result.status, result);
    this.#options.observer?.stop(identity, result.status, result.status === "completed" ? undefined : result.error);
    this.#emit({
      type: "subagent_stop",
      agent_id: agentId,
      agent_run_id: agentRunId,
      name: agentId,
      tool_id: request.toolId,
      status: result.status,
      ...(result.status !== "completed" && result.error !== undefined ? { error: result.error } : {}),
      usage: result.usage,
    });
    return { ...result, agentId, agentRunId };
  }

  /** Cancels every run and waits for them to return, at most `graceMs`. */
  async close(graceMs: number = SHUTDOWN_GRACE_MS): Promise<void> {
    const runs = [...this.#running.values()];
    for (const run of runs) run.abort.abort();
    if (runs.length === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(runs.map((run) => run.done)), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }
}
