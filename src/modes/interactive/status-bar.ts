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
 * When a line is wider than the terminal its parts give way one step at a
 * time, in a fixed order, until it fits (giveWay; the steps in firstLine, secondLine):
 *   1. key hints drop whole from the right; then the tokens, the cost, the
 *      context % drop; last the busy activity text is cut (its elapsed time
 *      kept) — the activity or transient hint is never dropped;
 *   2. the cwd keeps fewer last segments (down to `…/last`); the extension
 *      tags use short words (`ext loading: …`); the cwd goes; the model id is
 *      cut from the right (at least 8 columns, else it goes); then the tags:
 *      extensions loading, the failed extensions' names, extension failed,
 *      no-yolo; jailed stays. Columns left over at the end go back to the
 *      model id, then to the cwd (regrow).
 * Widths are columns (visibleWidth: CJK and emoji count two). Pure: time
 * comes in as `now`; every line fits the width (a last fitWidth cuts what
 * still does not, e.g. the activity or `jailed` at a few columns).
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

const KEY_HINTS = ["/ commands", "@ files", "Ctrl+O tool output"];
/** A cut model id keeps at least this many columns (`anthrop…`), else it goes. */
const MIN_MODEL_COLUMNS = 8;
/** A cut activity keeps at least this many columns (`wa…`) before its elapsed time. */
const MIN_ACTIVITY_COLUMNS = 3;

/** One line's parts in display order; "" is a part that gave way. */
type Parts = Record<string, string>;
/** One give-way step: a part's new text, given the columns it may take with the others as they are. */
interface Step {
  readonly part: string;
  readonly shorten: (room: number) => string;
}

function joined(parts: Parts, sep: string): string {
  return Object.values(parts)
    .filter((text) => text !== "")
    .join(sep);
}

/** Columns part `name` may take beside the other parts (and a separator when there are any). */
function roomFor(parts: Parts, name: string, width: number, sep: string): number {
  const others = joined({ ...parts, [name]: "" }, sep);
  return width - visibleWidth(others) - (others === "" ? 0 : visibleWidth(sep));
}

/**
 * The parts joined, after as many steps (in order) as it takes to fit; then
 * each `regrow` step once more, to take the room that later steps freed.
 */
function giveWay(parts: Parts, steps: readonly Step[], width: number, sep: string, regrow: readonly Step[] = []): string {
  for (const step of steps) {
    if (visibleWidth(joined(parts, sep)) <= width) break;
    parts[step.part] = step.shorten(roomFor(parts, step.part, width, sep));
  }
  for (const step of regrow) parts[step.part] = step.shorten(roomFor(parts, step.part, width, sep));
  return fitWidth(joined(parts, sep), width);
}

const drop = (part: string): Step => ({ part, shorten: () => "" });
const set = (part: string, text: string): Step => ({ part, shorten: () => text });

function firstLine(state: StatusState, width: number, now: number, theme: Theme, sep: string): string {
  const parts: Parts = {};
  const hintSteps: Step[] = [];
  const activitySteps: Step[] = [];
  if (state.busy) {
    const { activity } = state.busy;
    const spinner = `${theme.spinner(spinnerFrame(now))} `;
    const elapsed = ` ${formatElapsed(now - state.busy.since)}`;
    const whole = `${spinner}${theme.accent(`${activity}${elapsed}`)}`;
    parts.left = whole;
    const cutActivity = (room: number): string => {
      const columns = room - visibleWidth(spinner) - visibleWidth(elapsed);
      return columns >= MIN_ACTIVITY_COLUMNS ? `${spinner}${theme.accent(`${fitWidth(activity, columns)}${elapsed}`)}` : whole;
    };
    activitySteps.push({ part: "left", shorten: cutActivity });
  } else if (state.hint !== undefined) {
    parts.left = theme.muted(state.hint);
  } else {
    const hints = (count: number): string => KEY_HINTS.slice(0, count).map((hint) => theme.muted(hint)).join(sep);
    parts.left = hints(KEY_HINTS.length);
    for (let count = KEY_HINTS.length - 1; count >= 0; count--) hintSteps.push(set("left", hints(count)));
  }
  const streaming = state.streamingTokens > 0 ? `~${formatTokens(state.outputTokens + state.streamingTokens)}` : formatTokens(state.outputTokens);
  parts.tokens = `↑${formatTokens(state.inputTokens)} ↓${streaming}`;
  parts.cost = `$${state.costUsd.toFixed(4)}`;
  const percent = contextPercent(state.contextTokens, state.contextWindow);
  if (percent !== undefined || state.autoCompacting) {
    const text = `ctx ${percent ?? "?"}%${state.autoCompacting ? " (auto)" : ""}`;
    parts.ctx = state.autoCompacting || (percent !== undefined && percent >= 80) ? theme.warning(text) : text;
  }
  return giveWay(parts, [...hintSteps, drop("tokens"), drop("cost"), drop("ctx"), ...activitySteps], width, sep);
}

/** The short cwd in at most `room` columns (and at most 40), "" when not even `…/last` fits. */
function cwdWithin(state: StatusState, room: number, theme: Theme): string {
  const path = shortCwd(state.cwd, state.home, Math.max(0, Math.min(40, room)));
  return visibleWidth(path) <= room ? theme.muted(path) : "";
}

function secondLine(state: StatusState, width: number, theme: Theme, sep: string): string {
  const model = theme.bold(`${state.provider}/${state.model}`);
  const parts: Parts = { model, cwd: theme.muted(shortCwd(state.cwd, state.home)) };
  if (state.jailed) parts.jailed = theme.warning("jailed");
  if (state.noYolo) parts.noYolo = theme.warning("no-yolo");
  // The extension tags are one part, so that their words shorten together.
  const loading = names(state.extensionsLoading);
  const failed = names(state.extensionsFailed);
  const extensions = (loadingWords: string | undefined, failedWords: string | undefined, withNames = true): string =>
    [
      loadingWords === undefined || loading === "" ? "" : theme.muted(`${loadingWords}: ${loading}`),
      failedWords === undefined || failed === "" ? "" : theme.error(withNames ? `${failedWords}: ${failed}` : failedWords),
    ]
      .filter((tag) => tag !== "")
      .join(sep);
  parts.extensions = extensions("extensions loading", "extension failed");
  const fitCwd: Step = { part: "cwd", shorten: (room) => cwdWithin(state, room, theme) };
  const cutModel: Step = { part: "model", shorten: (room) => (visibleWidth(model) <= room ? model : room >= MIN_MODEL_COLUMNS ? fitWidth(model, room) : "") };
  const steps: Step[] = [
    { part: "cwd", shorten: (room) => cwdWithin(state, room, theme) || theme.muted(shortCwd(state.cwd, state.home, 0)) },
    set("extensions", extensions("ext loading", "ext failed")),
    fitCwd,
    cutModel,
    set("extensions", extensions(undefined, "ext failed")),
    set("extensions", extensions(undefined, "ext failed", false)),
    drop("extensions"),
    drop("noYolo"),
  ];
  return giveWay(parts, steps, width, sep, [cutModel, fitCwd]);
}

export function renderStatusBar(state: StatusState, width: number, now: number, theme: Theme): string[] {
  const sep = theme.muted(" · ");
  const columns = Math.max(1, Math.floor(Number.isFinite(width) ? width : 1));
  return [firstLine(state, columns, now, theme, sep), secondLine(state, columns, theme, sep)];
}
