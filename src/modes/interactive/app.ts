/**
 * The interactive session's controller, composed of its parts: the chat
 * model (chat.ts), the editor and popup, the operation runner (operations.ts:
 * one operation at a time, the rest queued; what input becomes is
 * dispatch.ts), overlays, extension panels and notes, subagent lines. It is
 * the extension host's UI (notes, submit, panels) and the commands' host.
 * Keys are routed by keymap.ts, the live region composed by live.ts; what is
 * finished goes to scrollback through the Chat's commit (Screen.commit,
 * once). It keeps the context figure for the status bar (last usage, or an
 * estimate after a compaction or a session switch). `closed` resolves with
 * the exit code once the user (or a signal) asked to leave; the caller then
 * calls shutdown() and stops the renderer.
 */
import type { ConfirmAnswer, ConfirmRequest, PermissionGate } from "../../agent/permissions.ts";
import type { ExtensionUI, NoteLevel } from "../../ext/host.ts";
import type { Catalog } from "../../providers/index.ts";
import { OverlayStack } from "./overlays.ts";
import { Editor, KeyClock, type LiveSource, type Overlay, type LiveView, type TerminalSize, TextViewer, type Theme } from "../../tui/index.ts";
import type { HeadlessRuntime } from "../setup.ts";
import { Chat } from "./chat.ts";
import { ContextGauge } from "./context-gauge.ts";
import type { PromptRunOptions } from "./command-types.ts";
import { commandEntries, commandSuggestion, type CommandHost } from "./commands.ts";
import { answerWords, ConfirmQuestion } from "./confirm.ts";
import { NoteBoard } from "./ext-ui.ts";
import { ExtensionProblems } from "./ext-problems.ts";
import { FileIndex } from "./file-index.ts";
import type { PromptHistory } from "./history.ts";
import { dispatchInput, runPrompt, submitInput } from "./dispatch.ts";
import { composeLive } from "./live.ts";
import { type ActiveOperation, OperationRunner, type QueuedInput } from "./operations.ts";
import type { OpenPanel } from "./panel.ts";
import { PanelHost, type PanelContent } from "./panel-host.ts";
import { Popup } from "./popup.ts";
import type { ThemeState } from "./theme-state.ts";
import { startFreshSessionFile } from "./session-switch.ts";
import { SubagentTracker } from "./subagents.ts";
import { interceptsAssistantMessages } from "../held-text.ts";

export const EXIT_PRESS_WINDOW_MS = 2_000;
/** How long shutdown waits for an aborted operation to wind down. */
const SHUTDOWN_WAIT_MS = 3_000;
/** An extension's `submit`s that may wait in the prompt queue at once (each is a model call). */
export const MAX_QUEUED_SUBMITS = 8;

/** What the app needs of the renderer. */
export interface Screen {
  commit(lines: readonly string[]): void;
  requestFrame(): void;
  clearScreen(options: { scrollback: boolean }): void;
}

export interface AppOptions {
  readonly runtime: HeadlessRuntime;
  readonly theme: Theme;
  /** The theme the widgets draw with and the ones /theme offers. */
  readonly themes: ThemeState;
  readonly gate: PermissionGate;
  readonly noYolo: boolean;
  readonly jailed: boolean;
  readonly home: string | undefined;
  readonly history: PromptHistory;
  readonly catalog: () => Promise<Catalog>;
  /** The terminal's size now (lines are laid out at its width). */
  readonly size: () => TerminalSize;
  /** Ctrl+Z: give the terminal to the shell until `fg` (index.ts); resolves with whether zot was stopped. */
  readonly suspend?: () => Promise<boolean>;
}

export class InteractiveApp implements CommandHost, ExtensionUI, LiveSource {
  readonly runtime: HeadlessRuntime;
  readonly gate: PermissionGate;
  readonly theme: Theme;
  readonly chat: Chat;
  readonly editor: Editor;
  readonly popup: Popup;
  readonly confirmer: ConfirmQuestion;
  readonly notes = new NoteBoard();
  /** Load failures kept in the chat, the reload status, the failed extensions (ext-problems.ts). */
  readonly extensionProblems = new ExtensionProblems(() => this.frame());
  readonly closed: Promise<number>;
  /** The running operation and the queue behind it (operations.ts). */
  readonly operations: OperationRunner;
  readonly history: PromptHistory;
  readonly options: AppOptions;
  readonly panels: PanelHost;
  readonly overlays = new OverlayStack();
  /** When keys arrive (keymap.ts stamps each): questions that open by themselves ignore answers typed in a burst. */
  readonly keyClock = new KeyClock();
  /** This session's subagents (the supervisor's events): live lines and /agents. */
  readonly subagents: SubagentTracker | undefined;
  readonly #unsubscribeSubagents: () => void;
  hint: string | undefined;
  lastInterrupt = Number.NEGATIVE_INFINITY;
  #screen: Screen | undefined;
  readonly #pending: string[][] = [];
  readonly #files: FileIndex;
  /** How many rows the chat part of the live region holds while a turn runs (live.ts: it does not shrink mid-turn). */
  #liveRowsHeld = 0;
  /** Extensions whose `submit`s are being dropped (the queue holds MAX_QUEUED_SUBMITS of theirs): said once. */
  readonly #submitsDropping = new Set<string>();
  readonly #context: ContextGauge;
  #hintTimer: Timer | undefined;
  #exiting = false;
  #resolveClosed: (code: number) => void = () => {};

  constructor(options: AppOptions) {
    this.options = options;
    this.runtime = options.runtime;
    this.gate = options.gate;
    this.theme = options.theme;
    this.history = options.history;
    const supervisor = this.runtime.swarm?.supervisor;
    this.subagents = supervisor === undefined ? undefined : new SubagentTracker(() => this.frame());
    this.#unsubscribeSubagents = supervisor?.subscribe((event) => this.subagents?.event(event)) ?? (() => {});
    this.chat = new Chat({
      theme: options.theme,
      commit: (lines) => this.#commit(lines),
      width: () => options.size().columns,
      now: () => Date.now(),
      holdText: () => interceptsAssistantMessages(this.runtime.extensions?.manager),
    });
    this.operations = new OperationRunner({
      dispatch: (input) => dispatchInput(this, input),
      frame: () => this.frame(),
      error: (text) => this.chat.error(text),
      warn: (text) => this.chat.warn(text),
      streamedChars: () => this.chat.streamedChars,
      stopped: () => this.#exiting,
    });
    this.editor = new Editor({ theme: options.theme, maxRows: 10 });
    this.editor.setHistory(options.history.entries);
    this.#files = new FileIndex(this.runtime.cwd, () => {
      this.popup.refresh();
      this.frame();
    });
    this.popup = new Popup({
      theme: options.theme,
      editor: this.editor,
      commands: () => commandEntries(this.runtime),
      files: () => this.#files,
      suggest: (word) => commandSuggestion(word, this.runtime),
    });
    this.confirmer = new ConfirmQuestion(
      options.theme,
      () => this.frame(),
      (request, choice) => this.#confirmed(request, choice),
      this.keyClock,
    );
    this.panels = new PanelHost({
      send: (extension, frame) => this.runtime.extensions?.manager.connection(extension)?.send(frame) ?? false,
      calls: () => this.runtime.extensions?.manager.interactiveCalls,
      frame: () => this.frame(),
      hint: (text) => this.showHint(text),
    });
    this.runtime.extensions?.manager.interactiveCalls.endListeners.add((call, end) => this.panels.callEnded(call, end));
    this.runtime.extensions?.manager.closeListeners.add((extension) => this.panels.extensionGone(extension));
    this.#context = new ContextGauge(this.runtime.agent.messages);
    this.closed = new Promise<number>((resolve) => (this.#resolveClosed = resolve));
  }

  /** From now on lines go to the screen (those committed before are written first). */
  attach(screen: Screen): void {
    this.#screen = screen;
    for (const lines of this.#pending.splice(0)) screen.commit(lines);
    screen.requestFrame();
  }

  /** The extension panel shown and focused (panel-host.ts). */
  get panel(): OpenPanel | undefined {
    return this.panels.current;
  }

  get themes(): ThemeState {
    return this.options.themes;
  }

  get busy(): boolean {
    return this.operations.busy;
  }

  /** The running operation: what it is and since when. */
  get active(): ActiveOperation | undefined {
    return this.operations.active;
  }

  /** The inputs waiting behind the running operation (shown as chips). */
  get queue(): readonly QueuedInput[] {
    return this.operations.queue;
  }

  get autoCompacting(): boolean {
    return this.#context.autoCompacting;
  }

  /** Tokens the conversation takes in the model's window (last usage, or an estimate); undefined when unknown. */
  get contextTokens(): number | undefined {
    return this.#context.tokens;
  }

  get failedExtensions(): readonly string[] {
    return this.extensionProblems.failed;
  }

  get exiting(): boolean {
    return this.#exiting;
  }

  catalog(): Promise<Catalog> {
    return this.options.catalog();
  }

  frame(): void {
    this.#screen?.requestFrame();
  }

  /** Ctrl+Z: suspended until `fg`, then the live region is drawn again; says so when there is no shell to return to. */
  suspend(): void {
    const suspend = this.options.suspend;
    if (suspend === undefined) return;
    void suspend().then((stopped) => {
      if (stopped) return;
      this.showHint(process.platform === "win32" ? "Ctrl+Z does not suspend on Windows" : "Ctrl+Z: no job-control shell to return to (zot was not started from one)");
      this.frame();
    });
  }

  clearScreen(scrollback: boolean): void {
    this.#screen?.clearScreen({ scrollback });
  }

  renderLive(width: number, height: number): LiveView {
    const { view, rowsHeld } = composeLive(this, width, height, this.#liveRowsHeld);
    this.#liveRowsHeld = rowsHeld;
    return view;
  }

  /** Asks to leave; `closed` resolves with the code. */
  exit(code = 0): void {
    if (this.#exiting) return;
    this.#exiting = true;
    this.#resolveClosed(code);
  }

  /** Aborts the running operation and waits (bounded) for it to wind down. */
  async shutdown(): Promise<void> {
    this.#exiting = true;
    clearTimeout(this.#hintTimer);
    this.#unsubscribeSubagents();
    this.extensionProblems.dispose();
    await this.operations.stop(SHUTDOWN_WAIT_MS);
    this.chat.settle();
    await this.history.flush();
  }

  /** Stops the running operation (Esc, Ctrl+C); queued prompts are dropped. */
  cancel(): boolean {
    return this.operations.cancel();
  }

  showHint(text: string): void {
    clearTimeout(this.#hintTimer);
    this.hint = text;
    this.#hintTimer = setTimeout(() => {
      this.hint = undefined;
      this.frame();
    }, EXIT_PRESS_WINDOW_MS);
  }

  /** Text the user submitted: a command or a prompt; queued while an operation runs (dispatch.ts). */
  submitInput(text: string): void {
    submitInput(this, text);
  }

  agentPrompt(text: string, signal: AbortSignal, options: PromptRunOptions = {}): Promise<void> {
    return runPrompt(this, text, signal, options);
  }

  /** Prompts waiting in the queue. */
  get queued(): number {
    return this.operations.queue.length;
  }

  /** Runs `text` as a model prompt, now or behind the running operation (the rescue offer's retry). */
  retryPrompt(text: string): void {
    this.operations.submit({ text, promptOnly: true, announced: false });
    this.frame();
  }

  /** Every agent event (the chat model, plus what the status bar tracks). */
  agentEvent(event: Parameters<Chat["event"]>[0]): void {
    if (event.type === "usage") this.#context.usage(event);
    this.chat.event(event);
    this.frame();
  }

  /** Messages before the compaction that runs, and whether it is the user's /compact (which reports itself). */
  #compacting: { readonly before: number; readonly manual: boolean } | undefined;

  compactionStarted(messageCount: number): void {
    const manual = this.operations.active?.label === "/compact";
    this.#compacting = { before: messageCount, manual };
    this.#context.compactionStarted(manual);
    this.frame();
  }

  compactionEnded(status: string, messageCount: number): void {
    this.#context.compactionEnded(this.runtime.agent.messages);
    const compacting = this.#compacting;
    this.#compacting = undefined;
    // An automatic compaction (near the window, or after a 413) says what it did, as /compact does.
    if (compacting !== undefined && !compacting.manual && status === "completed") {
      this.chat.info(`compacted automatically (the context was near the model's window): ${compacting.before} → ${messageCount} messages`);
    }
    this.frame();
  }

  openPanel(panel: PanelContent): void {
    this.panels.open(panel);
  }

  showHelp(lines: readonly string[]): void {
    this.openOverlay(new TextViewer({ theme: this.theme, title: "help", lines, typingCloses: true }));
  }

  openOverlay(overlay: Overlay): void {
    this.popup.close();
    this.overlays.open(overlay);
    this.frame();
  }

  closeOverlay(overlay: Overlay): void {
    this.overlays.close(overlay);
    this.frame();
  }

  clearConversation(): void {
    const refused = this.runtime.agent.clearMessages();
    if (refused !== undefined) {
      this.chat.error(refused.message);
      return;
    }
    this.notes.clear();
    this.extensionProblems.clearChat();
    this.overlays.closeAll();
    this.chat.reset();
    this.#context.reset([]);
    this.clearScreen(true);
    startFreshSessionFile(this);
    this.chat.success("conversation cleared");
  }

  /** Drops every extension's notes (a prompt sent, Esc, /clear, a session switch). */
  dismissNotes(): void {
    if (this.notes.clear()) this.frame();
  }

  conversationReplaced(): void {
    this.notes.clear();
    this.overlays.closeAll();
    this.chat.reset();
    this.#context.reset(this.runtime.agent.messages);
    this.clearScreen(true);
  }

  // ExtensionUI

  notify(extension: string, level: NoteLevel, message: string): void {
    this.notes.add({ extension, level, message });
    this.frame();
  }

  /** clear_notes: the extension's notes, and its short displays not yet in scrollback (chat.retract). */
  clearNotes(extension: string): void {
    const notes = this.notes.clear(extension);
    const displays = this.chat.retract(extension);
    if (notes || displays) this.frame();
  }

  /**
   * An extension's `submit`: a model prompt now, or queued behind the running operation. At most
   * MAX_QUEUED_SUBMITS of one extension's wait; more are dropped (each one a model call), said once
   * until one of its submits is taken again.
   */
  submit(extension: string, text: string): void {
    if (this.#exiting) return;
    if (this.busy) {
      if (this.operations.queuedSubmits(extension) >= MAX_QUEUED_SUBMITS) {
        if (!this.#submitsDropping.has(extension)) this.chat.warn(`submit from ${extension} dropped: ${MAX_QUEUED_SUBMITS} of its prompts are already queued (more are dropped until they run)`);
        this.#submitsDropping.add(extension);
        this.frame();
        return;
      }
      this.#submitsDropping.delete(extension);
      this.runtime.extensions?.bridge.userPromptSubmit(text, 0, true);
      this.operations.submit({ text, promptOnly: true, announced: true, via: extension });
      this.frame();
      return;
    }
    this.#submitsDropping.delete(extension);
    this.operations.submit({ text, promptOnly: true, announced: false, via: extension });
  }

  panelRender(extension: string, frame: Parameters<ExtensionUI["panelRender"]>[1]): void {
    this.panels.render(extension, frame);
  }

  panelClose(extension: string, panelId: string): void {
    this.panels.closeFromExtension(extension, panelId);
  }

  extensionFailed(extension: string, message: string): void {
    this.extensionProblems.crashed(extension);
    this.chat.error(`zot: extension ${extension}: ${message}`);
    this.frame();
  }

  hostWarning(extension: string, message: string): void {
    this.chat.warn(`zot: warning: extension ${extension}: ${message}`);
  }

  #commit(lines: readonly string[]): void {
    if (this.#screen === undefined) this.#pending.push([...lines]);
    else this.#screen.commit(lines);
  }

  #confirmed(request: ConfirmRequest, choice: ConfirmAnswer): void {
    const line = `${request.toolName}: ${answerWords(choice)}`;
    if (choice === "deny" || choice === "cancel") this.chat.warn(line);
    else this.chat.info(line);
  }
}
