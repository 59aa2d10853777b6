/**
 * `/agents`: a picker (ListDialog, filter by typing) of this session's
 * running and recently finished subagents (the app's SubagentTracker) and
 * the recent runs recorded in $ZOT_HOME/agents/runs (src/agents/runs.ts:
 * this directory's, newest first, at most MAX_LISTED; reading them replays
 * no event), each with its status. Enter opens a run's details (ids,
 * status, times, the current tool, the error, the prompt, the session file)
 * in a viewer on top (Esc goes back to the list). With `"agents": false`
 * and no records: one line saying subagents are off and where. An extension's
 * own `/agents` command wins over this one (yieldsToExtension).
 */
import { join } from "node:path";
import { zotPaths } from "../../../common/home.ts";
import { ListDialog, formatElapsed } from "../../../tui/index.ts";
import type { BuiltinCommand, CommandHost } from "../command-types.ts";
import { ReadingView } from "../reading-view.ts";
import { currentTool, type TrackedSubagent } from "../subagents.ts";

export const MAX_LISTED = 50;

/** One row of the list: a live run of this session or a record from disk. */
interface AgentRow {
  readonly key: string;
  readonly label: string;
  readonly description: string;
  readonly details: () => string;
}

function liveRow(run: TrackedSubagent, record: Readonly<Record<string, unknown>> | undefined): AgentRow {
  const tool = currentTool(run);
  const now = Date.now();
  const elapsed = formatElapsed((run.ended ?? now) - run.started);
  const status = run.status === "running" ? `running ${elapsed}${tool !== undefined ? ` · ${tool}` : ""}` : `${run.status} after ${elapsed}`;
  return {
    key: run.agentRunId,
    label: run.agent ?? run.agentId,
    description: `${status} · ${run.description}`,
    details: () =>
      [
        `agent_id: ${run.agentId}`,
        `agent_run_id: ${run.agentRunId}`,
        ...(run.agent !== undefined ? [`definition: ${run.agent}`] : []),
        `status: ${run.status}`,
        `elapsed: ${formatElapsed((run.ended ?? Date.now()) - run.started)}`,
        ...(tool !== undefined ? [`current tool: ${tool}`] : []),
        ...(run.error !== undefined ? [`error: ${run.error}`] : []),
        `description: ${run.description}`,
        ...(record !== undefined ? recordLines(record, ["agent_id", "agent_run_id", "agent", "status", "description", "error"]) : []),
      ].join("\n"),
  };
}

function recordLines(record: Readonly<Record<string, unknown>>, skip: readonly string[] = []): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (skip.includes(key) || key === "prompt") continue;
    lines.push(`${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
  }
  if (typeof record.prompt === "string") lines.push("", "prompt:", record.prompt);
  return lines;
}

async function agentsCommand(host: CommandHost, live: readonly TrackedSubagent[]): Promise<void> {
  const { listRunRecords } = await import("../../../agents/runs.ts");
  const { records } = listRunRecords(join(zotPaths().home, "agents", "runs"));
  const mine = records.filter((record) => record.cwd === host.runtime.cwd);
  const byAgentRun = new Map(mine.map((record) => [record.agent_run_id, { ...record } as Readonly<Record<string, unknown>>]));
  const rows: AgentRow[] = live.map((run) => liveRow(run, byAgentRun.get(run.agentRunId)));
  const shown = new Set(live.map((run) => run.agentRunId));
  for (const record of mine) {
    if (shown.has(record.agent_run_id) || rows.length >= MAX_LISTED) continue;
    rows.push({
      key: record.agent_run_id,
      label: record.agent ?? record.agent_id,
      description: `${record.status} · ${record.started} · ${record.description}`,
      details: () => recordLines({ ...record }).join("\n"),
    });
  }
  if (rows.length === 0) {
    host.chat.info(
      host.runtime.swarm === undefined
        ? 'no subagents (they are off: "agents": false in $ZOT_HOME/config.json)'
        : "no subagents ran in this directory yet",
    );
    return;
  }
  const byKey = new Map(rows.map((row) => [row.key, row]));
  host.openOverlay(
    new ListDialog({
      theme: host.theme,
      title: "agents",
      items: rows.map((row) => ({ value: row.key, label: row.label, description: row.description.replace(/\s+/g, " ") })),
      hint: "Enter details · Esc close",
      onChoose: (item) => {
        const row = item === undefined ? undefined : byKey.get(item.value);
        if (row !== undefined) host.openOverlay(new ReadingView({ theme: host.theme, title: `agent ${row.label}`, text: row.details() }));
        return "handled";
      },
    }),
  );
}

export const AGENTS_COMMAND: BuiltinCommand = {
  name: "agents",
  usage: "/agents",
  description: "list running and recent subagents; Enter shows one",
  immediate: true,
  yieldsToExtension: true,
  run: (host) => agentsCommand(host, host.subagents?.all ?? []),
};
