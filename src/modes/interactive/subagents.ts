/**
 * What the TUI knows of this session's subagents, from the supervisor's
 * event stream (HeadlessRuntime.swarm.supervisor.subscribe(): the
 * subagent_start / subagent_event / subagent_stop agent events): the
 * running ones (name, description, since when, the tool a child is
 * running now: from its tool_call until the tool_result of that id) and the
 * last MAX_FINISHED that stopped (status, error, when). rows() draws one
 * live line per running subagent (`⠋ agent <agent_id> · <description> ·
 * <elapsed> · <tool>`), at most MAX_LIVE_ROWS and a `+N more` line.
 * `onChange` asks for a redraw. Nothing here reads the disk.
 */
import type { AgentEvent } from "../../agent/events.ts";
import { displayText, fitWidth, formatElapsed, spinnerFrame, type Theme } from "../../tui/index.ts";

export const MAX_FINISHED = 32;
export const MAX_LIVE_ROWS = 6;

export interface TrackedSubagent {
  readonly agentId: string;
  readonly agentRunId: string;
  readonly description: string;
  readonly agent: string | undefined;
  readonly started: number;
  /** The child's tool calls running now (id → name, oldest first; currentTool: the newest). */
  readonly tools: Map<string, string>;
  status: "running" | "completed" | "failed" | "cancelled" | "timed_out";
  error: string | undefined;
  ended: number | undefined;
}

/** The tool the subagent is running now (its newest running call), if any. */
export function currentTool(run: TrackedSubagent): string | undefined {
  let newest: string | undefined;
  for (const name of run.tools.values()) newest = name;
  return newest;
}

export class SubagentTracker {
  readonly #running = new Map<string, TrackedSubagent>();
  readonly #finished: TrackedSubagent[] = [];
  readonly #onChange: () => void;
  readonly #now: () => number;

  constructor(onChange: () => void, now: () => number = Date.now) {
    this.#onChange = onChange;
    this.#now = now;
  }

  /** Running first (oldest first), then the finished ones (newest first). */
  get all(): readonly TrackedSubagent[] {
    return [...this.#running.values(), ...this.#finished];
  }

  get running(): readonly TrackedSubagent[] {
    return [...this.#running.values()];
  }

  event(event: AgentEvent): void {
    if (event.type === "subagent_start") {
      this.#running.set(event.agent_run_id, {
        agentId: event.agent_id,
        agentRunId: event.agent_run_id,
        description: event.description,
        agent: event.agent,
        started: this.#now(),
        tools: new Map(),
        status: "running",
        error: undefined,
        ended: undefined,
      });
    } else if (event.type === "subagent_event") {
      const run = this.#running.get(event.agent_run_id);
      if (run === undefined) return;
      const inner = event.event;
      if (inner.type === "tool_call" && typeof inner.name === "string") run.tools.set(String(inner.id), inner.name);
      else if (inner.type === "tool_result") run.tools.delete(String(inner.id));
      else return;
    } else if (event.type === "subagent_stop") {
      const run = this.#running.get(event.agent_run_id);
      if (run === undefined) return;
      this.#running.delete(event.agent_run_id);
      run.status = event.status;
      run.error = event.error;
      run.ended = this.#now();
      run.tools.clear();
      this.#finished.unshift(run);
      this.#finished.length = Math.min(this.#finished.length, MAX_FINISHED);
    } else return;
    this.#onChange();
  }

  /** One line per running subagent (the newest MAX_LIVE_ROWS), then `+N more`. */
  rows(width: number, theme: Theme, now: number): string[] {
    const running = this.running;
    if (running.length === 0) return [];
    const shown = running.slice(-MAX_LIVE_ROWS);
    const lines = shown.map((run) => {
      const tool = currentTool(run);
      const parts = [
        `agent ${run.agent ?? run.agentId}`,
        displayText(run.description).replace(/\s+/g, " "),
        formatElapsed(now - run.started),
        ...(tool !== undefined ? [displayText(tool)] : []),
      ];
      return fitWidth(`${theme.spinner(spinnerFrame(now))} ${theme.muted(parts.join(" · "))}`, width);
    });
    if (running.length > shown.length) lines.unshift(fitWidth(theme.muted(`  +${running.length - shown.length} more subagents`), width));
    return lines;
  }
}
