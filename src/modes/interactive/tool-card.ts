/**
 * One tool call as the chat screen shows it: a box titled with the tool name
 * and its key argument (toolPreview), with its state on the right:
 * `preparing` while the call streams in; `queued` once the model made it
 * (tool_call) until its tool starts (tool_start: it may wait behind other
 * calls of the step, or for a confirmation), `checking` while its guards are
 * consulted; running (spinner, elapsed since its tool started); done
 * (how long it ran, tenths under 10 s), error, cancelled, timed out, or
 * blocked (by which extension, when the guard said); a call whose
 * arguments an extension's guard rewrote shows the rewritten key argument
 * and "arguments rewritten by <ext>" once it starts. A call that never
 * started (blocked, unknown tool, bad arguments) shows no time. The body is a preview of the
 * last lines of output: bash's live output from tool_progress while it runs,
 * the result afterwards (the `$ command` echo line dropped, the
 * `[exit N]` trailer kept). The card appears as soon as the call starts to
 * stream in (name only, then the key argument once the arguments parse).
 *
 * Output kept per call is bounded: the last MAX_KEPT_CHARS characters of
 * live output and of the result (what Ctrl+O shows); older text is dropped
 * with a "[… earlier output not kept …]" line. fullOutput (Ctrl+O) heads
 * each call with its name, its state in words (preparing, queued, running…,
 * finished, failed, cancelled, timed out, blocked) and its key argument,
 * and is cached until the call changes (each change is reported to the
 * constructor's onChange). Text is sanitized on arrival
 * (displayText: only SGR and "\n" survive). Pure state + rendering; time
 * comes in as a parameter.
 */
import { toolPreview } from "../../agent/permissions.ts";
import type { ToolStatus } from "../../tools/types.ts";
import { box, displayText, formatElapsed, spinnerFrame, type Theme } from "../../tui/index.ts";
import { KeyArgumentScanner } from "./key-argument.ts";

export const MAX_KEPT_CHARS = 256 * 1024;
const RUNNING_PREVIEW_LINES = 6;
const DONE_PREVIEW_LINES = 4;
const DROPPED_LINE = "[… earlier output not kept …]";

/** streaming: its arguments stream in; queued: made, its tool not started yet; running: its tool runs; done: it has its result. */
export type ToolPhase = "streaming" | "queued" | "running" | "done";

function argsRecord(args: unknown): Readonly<Record<string, unknown>> {
  return typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function bounded(text: string): string {
  if (text.length <= MAX_KEPT_CHARS) return text;
  const cut = text.slice(text.length - MAX_KEPT_CHARS);
  const newline = cut.indexOf("\n");
  return `${DROPPED_LINE}\n${newline >= 0 ? cut.slice(newline + 1) : cut}`;
}

export class ToolCard {
  readonly id: string;
  readonly name: string;
  phase: ToolPhase = "streaming";
  status: ToolStatus | undefined;
  /** Extension that blocked the call (details.blocked_by), when it said. */
  blockedBy: string | undefined;
  /** Extensions whose guards rewrote its arguments (tool_start `rewritten`): the title then shows what runs. */
  rewrittenBy: readonly string[] = [];
  /** Its guards (extension tool_call interceptors, the confirmation) are being consulted (before it starts). */
  guarding = false;
  #rawArgs = "";
  readonly #keyArgument = new KeyArgumentScanner();
  #preview = "";
  #live = "";
  #result = "";
  #startedAt: number | undefined;
  #endedAt: number | undefined;
  #full: string[] | undefined;

  readonly #onChange: () => void;

  /** `onChange` is called whenever fullOutput's answer changes (the Ctrl+O view re-reads on it). */
  constructor(id: string, name: string, onChange: () => void = () => {}) {
    this.id = id;
    this.name = name;
    this.#onChange = onChange;
  }

  get finished(): boolean {
    return this.phase === "done";
  }

  argsDelta(delta: string): void {
    this.#rawArgs += delta;
    const preview = this.#keyArgument.update(this.#rawArgs) ?? this.#preview;
    if (preview !== this.#preview) this.#changed();
    this.#preview = preview;
  }

  /** When its tool started (tool_start); undefined before, and for a call that never ran. */
  get startedAt(): number | undefined {
    return this.#startedAt;
  }

  /** The complete call (args parsed, or the raw text when malformed): it waits to run. */
  called(args: unknown): void {
    this.#preview = typeof args === "string" ? args : toolPreview(argsRecord(args));
    if (this.phase === "streaming") this.phase = "queued";
    this.#changed();
  }

  /** Its tool starts executing now: the clock runs from here. `rewritten`: the arguments it really runs with. */
  started(now: number, rewritten?: { readonly args: Readonly<Record<string, unknown>>; readonly by: readonly string[] }): void {
    if (this.phase === "done") return;
    if (rewritten !== undefined) {
      this.#preview = toolPreview(rewritten.args);
      this.rewrittenBy = rewritten.by;
    }
    this.phase = "running";
    this.guarding = false;
    this.#startedAt = now;
    this.#changed();
  }

  progress(text: string): void {
    this.#live = bounded(this.#live + displayText(text));
    this.#changed();
  }

  finish(result: { readonly text: string; readonly isError: boolean; readonly status?: ToolStatus; readonly details?: Readonly<Record<string, unknown>> }, now: number): void {
    this.phase = "done";
    this.#endedAt = now;
    this.status = result.status ?? (result.isError ? "failed" : "completed");
    const by = result.details?.blocked_by;
    this.blockedBy = typeof by === "string" && by !== "" ? by : undefined;
    this.#result = bounded(displayText(result.text));
    this.#changed();
  }

  /** Everything kept of this call, for the full-output view (Ctrl+O): a header with its state, the output, a blank line. */
  fullOutput(): readonly string[] {
    if (this.#full !== undefined) return this.#full;
    const header = `● ${this.name} · ${this.#rewrittenWords()}${this.#stateWords()}  ${displayText(this.#preview).replace(/\n/g, " ⏎ ")}`;
    const body = this.phase === "done" ? this.#result : this.#live;
    const empty = this.phase === "done" ? "(no output)" : this.phase === "running" ? "(no output yet)" : "(not started yet)";
    this.#full = [header, ...(body === "" ? [empty] : body.replace(/\n$/, "").split("\n")), ""];
    return this.#full;
  }

  /** "arguments rewritten by x · " when a guard rewrote them, else "". */
  #rewrittenWords(): string {
    return this.rewrittenBy.length === 0 ? "" : `arguments rewritten by ${displayText(this.rewrittenBy.join(", "))} · `;
  }

  #changed(): void {
    this.#full = undefined;
    this.#onChange();
  }

  /** How long it ran, as shown once done: "" under a second or when it never started (or was replayed: unknown). */
  #took(): string {
    if (this.#startedAt === undefined || this.#endedAt === undefined) return "";
    const ms = this.#endedAt - this.#startedAt;
    return ms < 1000 ? "" : formatElapsed(ms, { tenths: true });
  }

  /** The state in words, without a running clock (the viewer re-reads only on change). */
  #stateWords(): string {
    if (this.phase === "streaming") return "preparing";
    if (this.phase === "queued") return "queued";
    if (this.phase === "running") return "running…";
    const ran = this.#took();
    const took = ran === "" ? "" : ` after ${ran}`;
    switch (this.status) {
      case "completed":
        return `finished${took}`;
      case "blocked":
        return this.blockedBy === undefined ? "blocked" : `blocked by ${this.blockedBy}`;
      case "cancelled":
        return `cancelled${took}`;
      case "timed_out":
        return `timed out${took}`;
      default:
        return `failed${took}`;
    }
  }

  #stateText(now: number, theme: Theme): { text: string; tone: "running" | "success" | "error" | "warning" | "normal" } {
    if (this.phase === "streaming") return { text: theme.muted(`${spinnerFrame(now)} preparing`), tone: "running" };
    if (this.phase === "queued" && this.guarding) return { text: theme.muted(`${spinnerFrame(now)} checking`), tone: "running" };
    // Not started: no spinner, no clock.
    if (this.phase === "queued") return { text: theme.muted("queued"), tone: "normal" };
    if (this.phase === "running") return { text: `${theme.spinner(spinnerFrame(now))} ${formatElapsed(now - (this.#startedAt ?? now))}`, tone: "running" };
    const elapsed = this.#took();
    switch (this.status) {
      case "completed":
        return { text: theme.success(`✓ ${elapsed}`.trim()), tone: "success" };
      case "blocked":
        return { text: theme.warning(this.blockedBy === undefined ? "blocked" : `blocked by ${this.blockedBy}`), tone: "warning" };
      case "cancelled":
        return { text: theme.warning("cancelled"), tone: "warning" };
      case "timed_out":
        return { text: theme.error(`timed out ${elapsed}`.trim()), tone: "error" };
      default:
        return { text: theme.error(`✗ error ${elapsed}`.trim()), tone: "error" };
    }
  }

  #previewLines(): string[] {
    const source = this.phase === "done" ? this.#result : this.#live;
    // Blank lines carry nothing in a few-line preview.
    const lines = source.split("\n").map((line) => line.trimEnd()).filter((line) => line !== "");
    if (lines[0]?.startsWith("$ ") === true && this.name === "bash") lines.shift();
    const room = this.phase === "done" ? DONE_PREVIEW_LINES : RUNNING_PREVIEW_LINES;
    if (lines.length <= room) return lines;
    return [`… ${lines.length - room + 1} more line(s) above (Ctrl+O shows all)`, ...lines.slice(lines.length - room + 1)];
  }

  render(width: number, now: number, theme: Theme): string[] {
    const state = this.#stateText(now, theme);
    const preview = displayText(this.#preview).replace(/\n/g, " ⏎ ");
    const name = theme.tool(theme.bold(this.name));
    const title = preview === "" ? name : `${name} ${preview}`;
    const body = this.#previewLines().map(theme.toolOutput);
    const titleRight = this.rewrittenBy.length === 0 ? state.text : `${theme.warning(this.#rewrittenWords())}${state.text}`;
    return box({ theme, title, titleRight, body, width, tone: state.tone });
  }
}
