/**
 * The status bar under the editor, always two lines:
 *   1. what is happening: while busy a spinner, elapsed time and the
 *      activity (`waiting for the model`, `thinking`, `streaming`, `running
 *      bash`, `compacting`, `/reload-ext`…), else a transient hint or the key
 *      hints; then live ↑input ↓output tokens (the output of the response
 *      still streaming estimated at 4 characters a token, marked `~`), the
 *      session cost, and context use as % of the model's window (`(auto)`
 *      while auto-compaction runs);
 *   2. provider/model, the short cwd (home as ~, long paths keep their last
 *      segments) and tags: jailed, no-yolo, extensions loading / failed.
 * Pure: time comes in as `now`; every line fits the width (fitWidth).
 */
import { fitWidth, formatElapsed, spinnerFrame, visibleWidth, type Theme } from "../../tui/index.ts";

export interface StatusState {
  readonly provider: string;
  readonly model: string;
  readonly cwd: string;
  readonly home: string | undefined;
  /** Set while an operation runs. */
  readonly busy?: { readonly since: number; readonly activity: string };
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Output tokens of the response still streaming (an estimate, not in outputTokens yet). */
  readonly streamingTokens: number;
  readonly costUsd: number;
  /** Tokens the conversation takes in the model's window; undefined when unknown. */
  readonly contextTokens: number | undefined;
  readonly contextWindow: number;
  readonly autoCompacting: boolean;
  readonly jailed: boolean;
  readonly noYolo: boolean;
  readonly extensionsLoading: readonly string[];
  readonly extensionsFailed: readonly string[];
  readonly hint?: string;
}

export function formatTokens(count: number): string {
  if (count < 1000) return String(Math.max(0, Math.round(count)));
  if (count < 100_000) return `${(count / 1000).toFixed(1)}k`;
  if (count < 1_000_000) return `${Math.round(count / 1000)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** `~/src/zot`, or the last segments of a long path behind `…/`. */
export function shortCwd(cwd: string, home: string | undefined, maxColumns = 40): string {
  let path = cwd;
  if (home !== undefined && home !== "/" && (cwd === home || cwd.startsWith(`${home}/`))) path = `~${cwd.slice(home.length)}`;
  if (visibleWidth(path) <= maxColumns) return path;
  const parts = path.split("/");
  let tail = parts.pop() ?? path;
  while (parts.length > 0 && visibleWidth(`…/${parts.at(-1)}/${tail}`) <= maxColumns) tail = `${parts.pop()}/${tail}`;
  return `…/${tail}`;
}

export function contextPercent(tokens: number | undefined, window: number): number | undefined {
  if (tokens === undefined || !(window > 0)) return undefined;
  return Math.min(999, Math.round((tokens / window) * 100));
}

function names(list: readonly string[]): string {
  return list.length <= 2 ? list.join(", ") : `${list.slice(0, 2).join(", ")} +${list.length - 2}`;
}

export function renderStatusBar(state: StatusState, width: number, now: number, theme: Theme): string[] {
  const sep = theme.muted(" · ");
  const left = state.busy
    ? `${theme.spinner(spinnerFrame(now))} ${theme.accent(`${state.busy.activity} ${formatElapsed(now - state.busy.since)}`)}`
    : theme.muted(state.hint ?? "/ commands · @ files · Ctrl+O tool output");
  const streaming = state.streamingTokens > 0 ? `~${formatTokens(state.outputTokens + state.streamingTokens)}` : formatTokens(state.outputTokens);
  const numbers = [`↑${formatTokens(state.inputTokens)} ↓${streaming}`, `$${state.costUsd.toFixed(4)}`];
  const percent = contextPercent(state.contextTokens, state.contextWindow);
  if (percent !== undefined || state.autoCompacting) {
    const text = `ctx ${percent ?? "?"}%${state.autoCompacting ? " (auto)" : ""}`;
    numbers.push(state.autoCompacting ? theme.warning(text) : percent !== undefined && percent >= 80 ? theme.warning(text) : text);
  }
  const first = `${left}${sep}${numbers.join(sep)}`;
  const tags: string[] = [];
  if (state.jailed) tags.push(theme.warning("jailed"));
  if (state.noYolo) tags.push(theme.warning("no-yolo"));
  if (state.extensionsLoading.length > 0) tags.push(theme.muted(`extensions loading: ${names(state.extensionsLoading)}`));
  if (state.extensionsFailed.length > 0) tags.push(theme.error(`extension failed: ${names(state.extensionsFailed)}`));
  const second = [theme.bold(`${state.provider}/${state.model}`), theme.muted(shortCwd(state.cwd, state.home)), ...tags].join(sep);
  return [fitWidth(first, width), fitWidth(second, width)];
}
