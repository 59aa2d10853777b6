/**
 * The chat model: agent events (and the app's own lines) become display
 * items in order: user messages, assistant text (markdown while it streams,
 * MarkdownStream), thinking (dimmed), tool-call cards (tool-card.ts), and
 * lines (info, warnings, errors, extension display). Finished content is
 * handed to `commit` exactly once, in order: only a prefix of finished items
 * is committed, so a line never overtakes a running item above it; a
 * streaming text item at the head commits the blocks MarkdownStream says can
 * no longer change as they complete, so a long answer reaches scrollback
 * while it streams. renderLive() draws what still runs (text tail, tool
 * cards not finished, and anything queued behind them). A tool card is
 * queued from its tool_call and runs from its tool_start (the loop announces
 * every call of a step before the first one runs).
 *
 * Assistant text is held (neither committed nor shown live) while
 * `holdText()` says an extension intercepts assistant messages: a guard may
 * still hide or replace it; the delivered text (assistant_message) is what
 * is shown and committed.
 * Text streamed but never delivered (a hidden message) is dropped at
 * turn_end; an aborted stream's partial text is committed as it stands.
 * Text an extension supplies (a display, a command's error, a guard's reason
 * for hiding a message) is laid out up to MAX_EXTENSION_TEXT_CHARS. A short
 * display (at most MAX_RETRACTABLE_DISPLAY_ROWS rows) stays live while it is
 * the last item, so the extension's clear_notes can still take it back
 * (retract); anything added after it, settle() or the end commits it. A
 * longer one is an answer to read whole: it goes to scrollback at once.
 * No I/O; time comes from `now()`.
 */
import { argumentsRewrittenText, assistantHiddenText, type AgentEvent } from "../../agent/events.ts";
import { displayText, MarkdownStream, padToWidth, wrapText, type Theme } from "../../tui/index.ts";
import { ToolCard } from "./tool-card.ts";

/**
 * The most of one extension-supplied text (a display, a command's error, a
 * guard's reason) the chat lays out: wrapping costs far more than the text
 * (a 3 MB line took a second and 375 MB), and an extension may send 4 MiB
 * frames at will.
 */
export const MAX_EXTENSION_TEXT_CHARS = 256 * 1024;

/** A display this many rows or fewer is a status line its extension may still withdraw (clear_notes). */
export const MAX_RETRACTABLE_DISPLAY_ROWS = 4;

/** `text` cut to MAX_EXTENSION_TEXT_CHARS (at a code point), with a line saying how much was left out. */
export function boundedExtensionText(text: string): string {
  if (text.length <= MAX_EXTENSION_TEXT_CHARS) return text;
  let cut = MAX_EXTENSION_TEXT_CHARS;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return `${text.slice(0, cut)}\n[… ${(text.length - cut).toLocaleString("en-US")} more characters from the extension not shown]`;
}

export interface ChatOptions {
  readonly theme: Theme;
  readonly commit: (lines: readonly string[]) => void;
  readonly width: () => number;
  readonly now: () => number;
  /** True while an extension may still hide or replace an assistant message. */
  readonly holdText?: () => boolean;
}

type TextKind = "text" | "thinking";

interface TextItem {
  readonly kind: TextKind;
  readonly stream: MarkdownStream;
  /** Raw text received, to compare with what is delivered. */
  raw: string;
  finished: boolean;
  committedAny: boolean;
}

interface ToolItem {
  readonly kind: "tool";
  readonly card: ToolCard;
}

interface LinesItem {
  readonly kind: "lines";
  readonly lines: (width: number) => string[];
  /** A display its extension may still withdraw while it is the last item (cleared on commit). */
  retractableBy?: string;
}

type Item = TextItem | ToolItem | LinesItem;

export type Activity =
  | { readonly kind: "waiting" }
  | { readonly kind: "thinking" }
  | { readonly kind: "streaming" }
  /** Tools run (`since`: when the first of them started); `queued` calls of the step have not started yet. */
  | { readonly kind: "tools"; readonly names: readonly string[]; readonly since: number; readonly queued: number }
  /** Calls wait for their guards (extension interceptors or the confirmation). */
  | { readonly kind: "guard"; readonly names: readonly string[] }
  /** Calls are made but none runs or is being checked (one is about to start). */
  | { readonly kind: "queued"; readonly names: readonly string[] }
  /** A slash command waits for its extension's answer (`label`: `nodeall (/todo)`). */
  | { readonly kind: "extension"; readonly label: string };

export class Chat {
  readonly #options: ChatOptions;
  #awaitedExtension: string | undefined;
  readonly #items: Item[] = [];
  readonly #tools = new Map<string, ToolCard>();
  /** Every tool card of the conversation shown so far (bounded), for Ctrl+O. */
  readonly #history: ToolCard[] = [];
  #text: TextItem | undefined;
  #thinking: TextItem | undefined;
  #inTurn = false;
  /** Bumped when a card is added or reports a change, and on reset (the Ctrl+O view re-reads toolOutputs on change). */
  #toolChanges = 0;
  readonly #toolChanged = (): void => {
    this.#toolChanges += 1;
  };
  /** Characters streamed in the current model response (text, thinking, arguments): the live output estimate. */
  streamedChars = 0;

  constructor(options: ChatOptions) {
    this.#options = options;
  }

  get theme(): Theme {
    return this.#options.theme;
  }

  event(event: AgentEvent): void {
    switch (event.type) {
      case "turn_start":
        this.#inTurn = true;
        break;
      case "assistant_start":
      case "usage":
        // The response's real usage arrived (or a new one starts): the estimate is spent.
        this.streamedChars = 0;
        break;
      case "thinking_delta":
        this.streamedChars += event.delta.length;
        this.#thinking ??= this.#openText("thinking");
        this.#append(this.#thinking, event.delta);
        break;
      case "text_delta":
        this.streamedChars += event.delta.length;
        this.#closeThinking();
        this.#text ??= this.#openText("text");
        this.#append(this.#text, event.delta);
        break;
      case "tool_use_start":
        this.#closeThinking();
        this.#tool(event.id, event.name);
        break;
      case "tool_use_args":
        this.streamedChars += event.delta.length;
        this.#tools.get(event.id)?.argsDelta(event.delta);
        break;
      case "assistant_message":
        this.#closeThinking();
        this.#deliver(event.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n"));
        break;
      case "tool_call":
        this.#tool(event.id, event.name).called(event.args);
        break;
      case "tool_start": {
        const card = this.#tools.get(event.id);
        if (event.rewritten !== undefined) this.info(argumentsRewrittenText(card?.name ?? "a tool", event.rewritten));
        card?.started(this.#options.now(), event.rewritten);
        break;
      }
      case "tool_guard": {
        const card = this.#tools.get(event.id);
        if (card !== undefined) card.guarding = event.waiting;
        break;
      }
      case "tool_progress":
        this.#tools.get(event.id)?.progress(event.text);
        break;
      case "tool_result": {
        const text = event.content.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n");
        this.#tools.get(event.id)?.finish({ text, isError: event.is_error, status: event.status, details: event.details }, this.#options.now());
        this.#tools.delete(event.id);
        break;
      }
      case "retry":
        this.warn(event.message);
        break;
      case "assistant_hidden":
        this.info(assistantHiddenText({ ...event, reason: boundedExtensionText(event.reason) }));
        break;
      case "turn_end":
        this.#endTurn(event.stop === "aborted");
        break;
      default:
    }
    this.flush();
  }

  /** The user's prompt (or an extension's, `via`). */
  user(text: string, via?: string): void {
    const { theme } = this.#options;
    const tag = via === undefined ? "" : theme.muted(`  [${via}]`);
    // The message's rows carry the user-message colours across the whole width.
    this.#push((width) => ["", ...wrapText(`${theme.accent("›")} ${theme.bold(displayText(text).replace(/\n/g, "\n  "))}${tag}`, width).map((row) => theme.userMessage(padToWidth(row, width)))]);
  }

  plain(text: string): void {
    this.#push((width) => wrapText(displayText(text), width).map(this.#options.theme.foreground));
  }

  info(text: string): void {
    this.#styled(text, this.#options.theme.muted);
  }

  success(text: string): void {
    this.#styled(text, this.#options.theme.success);
  }

  warn(text: string): void {
    this.#styled(text, this.#options.theme.warning);
  }

  error(text: string): void {
    this.#styled(text, this.#options.theme.error);
  }

  /** An extension's one-shot text (the `display` action), at most MAX_EXTENSION_TEXT_CHARS of it. */
  display(extension: string, text: string): void {
    const { theme } = this.#options;
    const shown = boundedExtensionText(text);
    const lines = (width: number): string[] => wrapText(`${theme.accent(`[${displayText(extension)}]`)} ${displayText(shown)}`, width);
    const short = shown.length <= MAX_RETRACTABLE_DISPLAY_ROWS * this.#options.width() && lines(this.#options.width()).length <= MAX_RETRACTABLE_DISPLAY_ROWS;
    this.#items.push({ kind: "lines", lines, ...(short ? { retractableBy: extension } : {}) });
    this.flush();
  }

  /** Withdraws `extension`'s displays not yet in scrollback (its clear_notes); true when one was. */
  retract(extension: string): boolean {
    const before = this.#items.length;
    const kept = this.#items.filter((item) => !(item.kind === "lines" && item.retractableBy === extension));
    if (kept.length === before) return false;
    this.#items.splice(0, before, ...kept);
    this.flush();
    return true;
  }

  /** Lines already laid out (replayed history, the banner). */
  lines(render: (width: number) => string[]): void {
    this.#push(render);
  }

  /** What is happening now, for the status bar; undefined between model responses and tools. */
  activity(): Activity | undefined {
    const cards = [...this.#tools.values()];
    const running = cards.filter((card) => card.phase === "running");
    const queued = cards.filter((card) => card.phase === "queued");
    if (running.length > 0) {
      const since = Math.min(...running.map((card) => card.startedAt ?? this.#options.now()));
      return { kind: "tools", names: running.map((card) => card.name), since, queued: queued.length };
    }
    const guarded = queued.filter((card) => card.guarding);
    if (guarded.length > 0) return { kind: "guard", names: guarded.map((card) => card.name) };
    if (queued.length > 0) return { kind: "queued", names: queued.map((card) => card.name) };
    if (this.#thinking !== undefined) return { kind: "thinking" };
    if (this.#text !== undefined || this.#tools.size > 0) return { kind: "streaming" };
    if (this.#inTurn) return { kind: "waiting" };
    return this.#awaitedExtension === undefined ? undefined : { kind: "extension", label: this.#awaitedExtension };
  }

  /** An extension command's answer is awaited (`label`, e.g. `nodeall (/todo)`), or no longer (undefined). */
  awaitExtension(label: string | undefined): void {
    this.#awaitedExtension = label;
  }

  /** The full output of the conversation's tool calls (oldest first), for the Ctrl+O view. */
  toolOutputs(): string[] {
    return this.#history.flatMap((card) => card.fullOutput());
  }

  /** Changes on every change of what toolOutputs returns. */
  get toolRevision(): number {
    return this.#toolChanges;
  }

  /** The names of the calls that have not finished yet (preparing, queued or running). */
  unfinishedTools(): string[] {
    return [...this.#tools.values()].map((card) => card.name);
  }

  /** The names of the calls whose tools run now (started, not finished). */
  runningTools(): string[] {
    return [...this.#tools.values()].filter((card) => card.phase === "running").map((card) => card.name);
  }

  /** The operation ended: whatever is still open is finished as it stands (a tool that never reported is cancelled). */
  settle(): void {
    this.#endTurn(true);
    for (const card of this.#tools.values()) card.finish({ text: "", isError: true, status: "cancelled" }, this.#options.now());
    this.#tools.clear();
    for (const item of this.#items) if (item.kind === "lines") delete item.retractableBy;
    this.flush();
  }

  /** Drops everything not yet committed (/clear). */
  reset(): void {
    this.#items.length = 0;
    this.#tools.clear();
    this.#history.length = 0;
    this.#toolChanges += 1;
    this.#text = undefined;
    this.#thinking = undefined;
    this.#inTurn = false;
  }

  /** The still-running items, top to bottom, at `width`. */
  renderLive(width: number): string[] {
    const { theme, now } = this.#options;
    const rows: string[] = [];
    for (const item of this.#items) {
      if (item.kind === "tool") rows.push(...item.card.render(width, now(), theme));
      else if (item.kind === "lines") rows.push(...item.lines(width));
      // Text a guard may still hide or replace is not shown until it is delivered.
      else if (!(item.kind === "text" && !item.finished && this.#options.holdText?.() === true)) rows.push(...this.#paintText(item, item.stream.render(width)));
    }
    return rows;
  }

  /** Commits every finished item at the head (and the stable part of a streaming one). */
  flush(): void {
    const width = this.#options.width();
    const out: string[] = [];
    while (this.#items.length > 0) {
      const head = this.#items[0] as Item;
      if (head.kind === "lines") {
        // A display its extension may still withdraw waits while nothing follows it.
        if (head.retractableBy !== undefined && this.#items.length === 1) break;
        out.push(...head.lines(width));
      }
      else if (head.kind === "tool") {
        if (!head.card.finished) break;
        out.push(...head.card.render(width, this.#options.now(), this.#options.theme));
      } else {
        if (head.kind === "text" && !head.finished && this.#options.holdText?.() === true) break;
        const lines = head.stream.takeCommitted(width);
        if (lines.length > 0) head.committedAny = true;
        out.push(...this.#paintText(head, lines));
        if (!head.finished) break;
      }
      this.#items.shift();
    }
    if (out.length > 0) this.#options.commit(out);
  }

  /** Assistant text in the assistant colour (thinking keeps its dim look). */
  #paintText(item: TextItem, lines: readonly string[]): readonly string[] {
    return item.kind === "text" ? lines.map(this.#options.theme.assistant) : lines;
  }

  #styled(text: string, paint: (text: string) => string): void {
    this.#push((width) => wrapText(displayText(text), width).map(paint));
  }

  #push(lines: (width: number) => string[]): void {
    this.#items.push({ kind: "lines", lines });
    this.flush();
  }

  #newText(kind: TextKind): TextItem {
    return { kind, stream: new MarkdownStream({ theme: this.#options.theme, dim: kind === "thinking" }), raw: "", finished: false, committedAny: false };
  }

  #openText(kind: TextKind): TextItem {
    const item = this.#newText(kind);
    this.#items.push(item);
    return item;
  }

  #append(item: TextItem, delta: string): void {
    item.raw += delta;
    item.stream.append(delta);
  }

  #finishText(item: TextItem): void {
    item.finished = true;
    item.stream.finish();
  }

  #closeThinking(): void {
    if (this.#thinking === undefined) return;
    this.#finishText(this.#thinking);
    this.#thinking = undefined;
    this.#items.push({ kind: "lines", lines: () => [""] });
  }

  #tool(id: string, name: string): ToolCard {
    const known = this.#tools.get(id);
    if (known !== undefined) return known;
    const card = new ToolCard(id, name, this.#toolChanged);
    this.#toolChanges += 1;
    this.#tools.set(id, card);
    this.#history.push(card);
    if (this.#history.length > 200) this.#history.shift();
    this.#items.push({ kind: "tool", card });
    return card;
  }

  /** The assistant message as delivered (after any guard): replaces what streamed when it differs and nothing was committed yet. */
  #deliver(text: string): void {
    const streamed = this.#text;
    this.#text = undefined;
    if (streamed !== undefined && (streamed.raw === text || streamed.committedAny)) {
      this.#finishText(streamed);
      return;
    }
    // The delivered text goes where the streamed text was, or before this message's tool cards.
    let at = this.#firstToolIndex();
    if (streamed !== undefined) {
      at = this.#items.indexOf(streamed);
      this.#items.splice(at, 1);
    }
    if (text.trim() === "") return;
    const item = this.#newText("text");
    this.#items.splice(at, 0, item);
    this.#append(item, text);
    this.#finishText(item);
  }

  #firstToolIndex(): number {
    const index = this.#items.findIndex((item) => item.kind === "tool" && !item.card.finished);
    return index < 0 ? this.#items.length : index;
  }

  #endTurn(aborted: boolean): void {
    this.#closeThinking();
    // A call that streamed in but was never made (aborted, or the response ended otherwise) will not run.
    for (const card of this.#tools.values()) {
      if (card.phase !== "streaming") continue;
      card.finish({ text: "", isError: true, status: "cancelled" }, this.#options.now());
      this.#tools.delete(card.id);
    }
    const streamed = this.#text;
    this.#text = undefined;
    this.#inTurn = false;
    if (streamed === undefined) return;
    // Streamed but never delivered: a hidden message (dropped), or an aborted stream (kept as it stands).
    if (aborted || streamed.committedAny) this.#finishText(streamed);
    else this.#items.splice(this.#items.indexOf(streamed), 1);
  }
}
