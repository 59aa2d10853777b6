/**
 * Extension failures on the chat screen (extensions.md "Hot reload"):
 *  - load failures (manifest errors and extensions that failed to start, at
 *    startup or on /reload-ext) are kept at the bottom of the chat, in red,
 *    each message with its own line breaks, until a reload without errors
 *    or /clear (clearChat). They are UI only: never sent to the model, never
 *    written to the session.
 *  - a /reload-ext with errors also shows a temporary status above the
 *    editor: the summary, then each error in red; it dismisses itself after
 *    RELOAD_STATUS_MS (5 s). While it shows, the same errors are not drawn
 *    a second time at the bottom of the chat.
 *  - `failed`: the extensions the status bar names as failed: those that
 *    failed to load plus those that crashed after loading (crashed());
 *    a reload starts the list afresh.
 * Both blocks are bounded (MAX_STATUS_ROWS, MAX_CHAT_ROWS; the rest is
 * counted in a last row); every line is sanitized and cut to the width.
 */
import { displayText, fitWidth, type Theme } from "../../tui/index.ts";

export const RELOAD_STATUS_MS = 5_000;
/** Rows of the temporary reload status, the summary included. */
export const MAX_STATUS_ROWS = 10;
/** Rows of the failures kept in the chat, the heading included. */
export const MAX_CHAT_ROWS = 12;

/** What the screen needs of a load error (ZotError: ExtensionLoadError, ManifestError). */
export interface LoadProblem {
  readonly message: string;
  readonly context?: Readonly<Record<string, unknown>>;
}

function messageLines(problems: readonly LoadProblem[]): string[] {
  return problems.flatMap((problem) => displayText(problem.message).split("\n"));
}

function bounded(lines: readonly string[], max: number, width: number, style: (text: string) => string, more: (text: string) => string): string[] {
  const shown = lines.length > max ? lines.slice(0, max - 1) : lines;
  const rows = shown.map((line) => fitWidth(style(line), width));
  if (shown.length < lines.length) rows.push(fitWidth(more(`… ${lines.length - shown.length} more line(s): zot ext doctor lists them all`), width));
  return rows;
}

export class ExtensionProblems {
  readonly #changed: () => void;
  #chatLines: string[] = [];
  #status: { readonly summary: string; readonly lines: readonly string[] } | undefined;
  #statusTimer: Timer | undefined;
  readonly #loadFailed = new Set<string>();
  readonly #crashed = new Set<string>();

  constructor(changed: () => void) {
    this.#changed = changed;
  }

  /** Extensions that failed to load or crashed (the status bar's tag). */
  get failed(): readonly string[] {
    return [...new Set([...this.#loadFailed, ...this.#crashed])];
  }

  /** Whether load failures are kept in the chat now. */
  get pinned(): boolean {
    return this.#chatLines.length > 0;
  }

  /** Whether the temporary reload status shows now. */
  get statusShown(): boolean {
    return this.#status !== undefined;
  }

  /** The load failures of startup: kept in the chat. */
  startup(problems: readonly LoadProblem[]): void {
    for (const problem of problems) this.#markFailed(problem);
    this.#chatLines = [...this.#chatLines, ...messageLines(problems)];
    this.#changed();
  }

  /** A reload finished: the failures are replaced by its own (none: cleared); with errors the status shows for 5 s. */
  reloaded(summary: string, problems: readonly LoadProblem[]): void {
    this.#loadFailed.clear();
    this.#crashed.clear();
    for (const problem of problems) this.#markFailed(problem);
    const lines = messageLines(problems);
    this.#chatLines = lines;
    clearTimeout(this.#statusTimer);
    this.#status = undefined;
    if (problems.length > 0) this.#showStatus(summary, lines);
    this.#changed();
  }

  #showStatus(summary: string, lines: readonly string[]): void {
    this.#status = { summary, lines };
    this.#statusTimer = setTimeout(() => {
      this.#status = undefined;
      this.#changed();
    }, RELOAD_STATUS_MS);
    this.#statusTimer.unref?.();
  }

  crashed(extension: string): void {
    this.#crashed.add(extension);
  }

  /** /clear: the failures leave the chat (and the status goes); the status bar still names failed extensions. */
  clearChat(): void {
    this.#chatLines = [];
    this.dispose();
    this.#changed();
  }

  /** Stops the status timer (exit). */
  dispose(): void {
    clearTimeout(this.#statusTimer);
    this.#statusTimer = undefined;
    this.#status = undefined;
  }

  /** The temporary status rows (above the editor), or none. */
  statusRows(width: number, theme: Theme): string[] {
    const status = this.#status;
    if (status === undefined) return [];
    const head = fitWidth(theme.warning(status.summary), width);
    return [head, ...bounded(status.lines, MAX_STATUS_ROWS - 1, width, theme.error, theme.muted)];
  }

  /** The failures at the bottom of the chat, or none (also none while the status shows them). */
  chatRows(width: number, theme: Theme): string[] {
    if (this.#chatLines.length === 0 || this.#status !== undefined) return [];
    const head = fitWidth(theme.warning("extension load errors (fix them, then /reload-ext; /clear hides this):"), width);
    return [head, ...bounded(this.#chatLines, MAX_CHAT_ROWS - 1, width, theme.error, theme.muted)];
  }

  #markFailed(problem: LoadProblem): void {
    const extension = problem.context?.extension;
    if (typeof extension === "string") this.#loadFailed.add(extension);
  }
}
