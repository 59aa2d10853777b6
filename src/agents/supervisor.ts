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
 * A resume (request.resume, from resumable()) reuses the agent_id and the
 * child continues the recorded session file; it is reported like any run.
 * close() cancels every run, retires the warm spare and waits up to
 * `graceMs` for the runs to return and for children that already answered
 * to finish their cleanup and exit.
 *
 * Warm spare (warm.ts, unless `warm: false`): observeParent() sees the
 * parent's agent events; a `tool_use_start` of `agent` (the model begins
 * writing a call; its arguments are still streaming) starts a spare if none
 * is ready, on the next tick (after the stream handling of that moment). A
 * run that never calls `agent` starts none. A call takes the spare if one
 * is alive, else spawns its own child (a spare scheduled but not started
 * yet is then dropped); at most one spare exists.
 * A call's result is returned as soon as the child answered; a resume of
 * that agent waits for its child's exit first (exitedAgent).
 */
import { join } from "node:path";
import type { AgentEvent } from "../agent/events.ts";
import { startChild, swarmChildCommand, type ChildResult } from "./child.ts";
import type { SubagentStatus, SwarmPrepare, SwarmTask } from "./protocol.ts";
import { WarmSpare } from "./warm.ts";
import { isLockedByOther } from "../session/lock.ts";
import { readRunRecord, writeRunRecord, type RunRecord } from "./runs.ts";

export const DEFAULT_MAX_CONCURRENT = 4;
export const DEFAULT_AGENT_TIMEOUT_MS = 30 * 60 * 1000;
export const SHUTDOWN_GRACE_MS = 2_000;
/** The tool whose calls the supervisor runs (tool.ts AGENT_TOOL_NAME). */
const AGENT_TOOL = "agent";

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
  /** false: no warm spare (every call spawns its child). Default true. */
  readonly warm?: boolean;
  /** What a warm spare prepares (the parent's provider and base URL, whether it has extensions). */
  readonly prepare?: SwarmPrepare;
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
  /** Resume this earlier agent (checked by resumable()): same agent_id, its session file, a new agent_run_id. */
  readonly resume?: RunRecord;
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
  readonly #running = new Map<string, { readonly agentId: string; readonly abort: AbortController; readonly done: Promise<unknown> }>();
  readonly #listeners = new Set<(event: AgentEvent) => void>();
  /** Children that answered and are finishing (cleanup, exit), by agent_id. */
  readonly #exiting = new Map<string, Promise<void>>();
  readonly #spare: WarmSpare | undefined;
  #spareTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.maxConcurrent = Math.max(1, Math.floor(options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT));
    this.timeoutMs = Math.max(1, options.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS);
    if (options.onEvent !== undefined) this.#listeners.add(options.onEvent);
    this.#spare =
      options.warm === false ? undefined : new WarmSpare({ command: options.command ?? swarmChildCommand(), cwd: options.settings.cwd, prepare: options.prepare ?? {} });
  }

  /** The warm spare (undefined with `warm: false`). */
  get spare(): WarmSpare | undefined {
    return this.#spare;
  }

  /** The parent's own agent events: when to have a warm spare (see the contract above). */
  observeParent(event: AgentEvent): void {
    if (event.type !== "tool_use_start" || event.name !== AGENT_TOOL) return;
    if (this.#spare === undefined || this.#spare.ready || this.#spareTimer !== undefined) return;
    this.#spareTimer = setTimeout(() => {
      this.#spareTimer = undefined;
      this.#spare?.ensure();
    }, 0);
  }

  /** The spare for a call; one scheduled but not started yet is dropped (the call starts its own child, no warm-up to duplicate). */
  #takeSpare(): ReturnType<WarmSpare["take"]> {
    clearTimeout(this.#spareTimer);
    this.#spareTimer = undefined;
    return this.#spare?.take();
  }

  /** Resolves once the child of `agentId`'s last run has exited (at once when none is finishing). */
  async exitedAgent(agentId: string): Promise<void> {
    await this.#exiting.get(agentId);
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

  /** Agents running now (their agent_id), for a UI and for resume checks. */
  get runningAgentIds(): readonly string[] {
    return [...this.#running.values()].map((run) => run.agentId);
  }

  /**
   * The record of an agent this supervisor may resume, or why not: it must be
   * recorded, have a session file, have run in this cwd, and not be running
   * here or in another zot (its session file locked) now.
   */
  resumable(agentId: string): { readonly ok: true; readonly record: RunRecord } | { readonly ok: false; readonly error: string } {
    const found = readRunRecord(join(this.#options.zotHome, "agents", "runs"), agentId);
    if (!found.ok) return found;
    const record = found.record;
    if (this.runningAgentIds.includes(agentId)) return { ok: false, error: `agent ${agentId} is running now; wait for its result` };
    if (this.#options.settings.sessions_root === undefined) return { ok: false, error: "resume needs session files (this zot runs with --no-session)" };
    if (record.session_path === undefined) return { ok: false, error: `agent ${agentId} has no session file to continue` };
    if (record.cwd !== this.#options.settings.cwd) return { ok: false, error: `agent ${agentId} ran in ${record.cwd}; resume it from there` };
    // Another zot running it now holds its session: refused here, before its record would be overwritten.
    if (isLockedByOther(record.session_path)) return { ok: false, error: `agent ${agentId} is running in another zot (its session ${record.session_path} is in use)` };
    return { ok: true, record };
  }

  async run(request: SubagentRequest): Promise<SubagentResult> {
    const agentId = request.resume?.agent_id ?? shortId("agent_");
    const agentRunId = shortId("run_");
    if (!(await this.#acquire(request.signal))) {
      return { agentId, agentRunId, status: "cancelled", text: "", error: "cancelled before it started", usage: { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: 0 } };
    }
    const abort = new AbortController();
    const forward = (): void => abort.abort();
    if (request.signal.aborted) abort.abort();
    else request.signal.addEventListener("abort", forward, { once: true });
    let finish: (value: unknown) => void = () => {};
    this.#running.set(agentRunId, { agentId, abort, done: new Promise((resolve) => (finish = resolve)) });
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
      ...(request.resume?.session_path !== undefined ? { resume_session: request.resume.session_path } : {}),
    };
    const runs = (request.resume?.runs ?? (request.resume !== undefined ? 1 : 0)) + 1;
    const spawned = this.#takeSpare();
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
        ...((extra.sessionPath ?? request.resume?.session_path) !== undefined ? { session_path: extra.sessionPath ?? request.resume?.session_path } : {}),
        ...(extra.error !== undefined ? { error: extra.error } : {}),
        runs,
        ...(spawned !== undefined ? { warm: true } : {}),
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
    const child = startChild({
      task,
      signal,
      timeoutMs: this.timeoutMs,
      command: this.#options.command,
      ...(spawned !== undefined ? { spawned } : {}),
      onEvent: (event) => this.#emit({ type: "subagent_event", agent_id: agentId, agent_run_id: agentRunId, event }),
    });
    const exiting = child.exited.then(() => {
      if (this.#exiting.get(agentId) === exiting) this.#exiting.delete(agentId);
    });
    this.#exiting.set(agentId, exiting);
    const result = await child.result;
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

  /** Cancels every run, retires the spare, and waits for the runs and finishing children, at most `graceMs`. */
  async close(graceMs: number = SHUTDOWN_GRACE_MS): Promise<void> {
    const runs = [...this.#running.values()];
    for (const run of runs) run.abort.abort();
    clearTimeout(this.#spareTimer);
    this.#spareTimer = undefined;
    const spare = this.#spare?.close();
    const waits = [...runs.map((run) => run.done), ...this.#exiting.values()];
    if (waits.length > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      // Runs return and answered children exit; what is left past the grace, the process-tree guard ends.
      await Promise.race([Promise.all(waits).then(() => Promise.all([...this.#exiting.values()])), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    }
    await spare;
  }
}
