/**
 * The status bar's inputs from the app's state, now: model, cwd, what the
 * running operation is doing (the chat's activity for a model prompt:
 * waiting for the model, thinking, streaming, running a tool (with how many
 * calls of the step are still queued), starting one, waiting for the
 * extensions that guard tool calls or for the extension a slash command
 * waits on; a question
 * waiting for the user; auto-compaction; else the command's label) and
 * since when (the operation's start; while tools run, when the first
 * running one started, so the bar's clock is its box's), session tokens and
 * cost with the streaming estimate, context use, tags.
 */
import type { InteractiveApp } from "./app.ts";
import type { Activity } from "./chat.ts";
import type { StatusState } from "./status-bar.ts";

type Operation = NonNullable<InteractiveApp["active"]>;

function busyOf(app: InteractiveApp, active: Operation): { readonly since: number; readonly activity: string } {
  if (app.confirmer.open) return { since: active.since, activity: "waiting for your answer" };
  if (app.autoCompacting) return { since: active.since, activity: "compacting" };
  if (!active.prompt) return { since: active.since, activity: active.label };
  const now = app.chat.activity();
  return { since: now?.kind === "tools" ? now.since : active.since, activity: promptActivity(app, now) };
}

function promptActivity(app: InteractiveApp, now: Activity | undefined): string {
  switch (now?.kind) {
    case "thinking":
      return "thinking";
    case "streaming":
      return "streaming";
    case "guard": {
      const manager = app.runtime.extensions?.manager;
      const guards = manager === undefined ? [] : manager.connections().filter((connection) => !connection.closed && manager.subscriptions.get(connection.name)?.intercept.has("tool_call") === true).map((connection) => connection.name);
      return guards.length === 0 ? `checking ${now.names[0]}` : `waiting for extension ${guards.join(", ")}`;
    }
    case "tools": {
      const running = now.names.length === 1 ? `running ${now.names[0]}` : `running ${now.names.length} tools`;
      return now.queued === 0 ? running : `${running} (+${now.queued} queued)`;
    }
    case "queued":
      return now.names.length === 1 ? `starting ${now.names[0]}` : `starting ${now.names.length} tools`;
    case "extension":
      return `waiting for extension ${now.label}`;
    default:
      return "waiting for the model";
  }
}

export function statusOf(app: InteractiveApp): StatusState {
  const { agent, extensions, cwd } = app.runtime;
  const usage = agent.cumulativeUsage;
  const active = app.active;
  return {
    provider: agent.model.provider,
    model: agent.model.id,
    cwd,
    home: app.options.home,
    busy: active === undefined ? undefined : busyOf(app, active),
    inputTokens: usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens,
    outputTokens: usage.output_tokens,
    streamingTokens: active?.prompt === true ? Math.round(app.operations.streamedCharsShown / 4) : 0,
    costUsd: usage.cost_usd,
    contextTokens: app.contextTokens,
    contextWindow: agent.model.contextWindow,
    autoCompacting: app.autoCompacting,
    jailed: app.runtime.agent.jailRoot !== undefined,
    noYolo: app.options.noYolo && !app.gate.yolo && !app.gate.allowAll,
    extensionsLoading: extensions?.manager.starting().map((connection) => connection.name) ?? [],
    extensionsFailed: app.failedExtensions,
    hint: app.hint,
  };
}
