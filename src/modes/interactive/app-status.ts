/**
 * The status bar's inputs from the app's state, now: model, cwd, what the
 * running operation is doing (the chat's activity for a model prompt:
 * waiting for the model, thinking, streaming, running a tool, waiting for
 * the extensions that guard tool calls; a question
 * waiting for the user; auto-compaction; else the command's label),
 * session tokens and cost with the streaming estimate, context use, tags.
 */
import type { InteractiveApp } from "./app.ts";
import type { StatusState } from "./status-bar.ts";

function activity(app: InteractiveApp, active: NonNullable<InteractiveApp["active"]>): string {
  if (app.confirmer.open) return "waiting for your answer";
  if (app.autoCompacting) return "compacting";
  if (!active.prompt) return active.label;
  const now = app.chat.activity();
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
    case "tools":
      return now.names.length === 1 ? `running ${now.names[0]}` : `running ${now.names.length} tools`;
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
    busy: active === undefined ? undefined : { since: active.since, activity: activity(app, active) },
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
