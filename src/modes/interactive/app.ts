/**
 * The interactive session's controller: runs one operation at a time (a
 * model prompt, an extension command, /compact, /reload-ext) and queues
 * what is submitted meanwhile (shown as chips; dropped when the turn is
 * cancelled), and is the extension host's UI (notes, submit, panels) and the
 * commands' host. Keys are routed by keymap.ts, the live region composed by
 * live.ts; what is finished goes to scrollback through the Chat's commit
 * (Screen.commit, once). `closed` resolves with the exit code once the user
 * (or a signal) asked to leave; the caller then calls shutdown() and stops
 * the renderer.
 */
import { estimateTokens } from "../../agent/compaction-text.ts";
import type { ConfirmAnswer, ConfirmRequest, PermissionGate } from "../../agent/permissions.ts";
import { errorMessage } from "../../common/errors.ts";
import type { ExtensionUI, NoteLevel } from "../../ext/host.ts";
import type { Catalog } from "../../providers/index.ts";
import { OverlayStack } from "./overlays.ts";
import { Editor, type LiveSource, type Overlay, type LiveView, type TerminalSize, TextViewer, type Theme } from "../../tui/index.ts";
import { parseSlashCommand } from "../commands.ts";
import type { HeadlessRuntime } from "../setup.ts";
import { Chat } from "./chat.ts";
import { builtinCommand, commandEntries, runBuiltin, runExtensionCommand, unknownCommandHint, type CommandHost } from "./commands.ts";
import { answerWords, ConfirmQuestion } from "./confirm.ts";
import { NoteBoard } from "./ext-ui.ts";
import { ExtensionProblems } from "./ext-problems.ts";
import { FileIndex } from "./file-index.ts";
import type { PromptHistory } from "./history.ts";
import { composeLive } from "./live.ts";
import type { OpenPanel } from "./panel.ts";
import { PanelHost, type PanelContent } from "./panel-host.ts";
import { Popup } from "./popup.ts";
import type { ThemeState } from "./theme-state.ts";
import { offerRescue } from "./rescue.ts";
import { startFreshSessionFile } from "./session-switch.ts";
import { SubagentTracker } from "./subagents.ts";

export const EXIT_PRESS_WINDOW_MS = 2_000;
/** How long shutdown waits for an aborted operation to wind down. */
const SHUTDOWN_WAIT_MS = 3_000;
const TICK_MS = 100;

/** What the app needs of the renderer. */
export interface Screen {
  commit(lines: readonly string[]): void;
  requestFrame(): void;
  clearScreen(options: { scrollback: boolean }): void;
}

interface QueuedInput {
  readonly text: string;
  /** A model prompt as is (extension `submit`), never parsed as a command. */
  readonly promptOnly: boolean;
  /** user_prompt_submit (queued) was already sent. */
  readonly announced: boolean;
  readonly via?: string;
}

interface Operation {
  readonly label: string;
  readonly prompt: boolean;
  readonly since: number;
  readonly controller: AbortController;
  done: Promise<void>;
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
  readonly queue: QueuedInput[] = [];
  readonly history: PromptHistory;
  readonly options: AppOptions;
  readonly panels: PanelHost;
  readonly overlays = new OverlayStack();
  /** This session's subagents (the supervisor's events): live lines and /agents. */
  readonly subagents: SubagentTracker | undefined;
  readonly #unsubscribeSubagents: () => void;
  hint: string | undefined;
  lastInterrupt = Number.NEGATIVE_INFINITY;
  /** How many rows the chat part of the live region holds while a turn runs (live.ts: it does not shrink mid-turn). */
  liveRowsHeld = 0;
  /** The streamed characters the status bar's estimate shows, sampled at the spinner's tick so the bar is not redrawn per delta. */
  streamedCharsShown = 0;
  #screen: Screen | undefined;
  readonly #pending: string[][] = [];
  readonly #files: FileIndex;
  #active: Operation | undefined;
  #autoCompacting = false;
  #contextTokens: number | undefined;
  #hintTimer: Timer | undefined;
  #ticker: Timer | undefined;
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
      holdText: () => {
        const manager = this.runtime.extensions?.manager;
        if (manager === undefined) return false;
        return manager.connections().some((connection) => !connection.closed && manager.subscriptions.get(connection.name)?.intercept.has("assistant_message") === true);
      },
    });
    this.editor = new Editor({ theme: options.theme, maxRows: 10 });
    this.editor.setHistory(options.history.entries);
    this.#files = new FileIndex(this.runtime.cwd, () => {
      this.popup.refresh();
      this.frame();
    });
    this.popup = new Popup({ theme: options.theme, editor: this.editor, commands: () => commandEntries(this.runtime), files: () => this.#files });
    this.confirmer = new ConfirmQuestion(
      options.theme,
      () => this.frame(),
      (request, choice) => this.#confirmed(request, choice),
    );
    this.panels = new PanelHost({
      send: (extension, frame) => this.runtime.extensions?.manager.connection(extension)?.send(frame) ?? false,
      calls: () => this.runtime.extensions?.manager.interactiveCalls,
      frame: () => this.frame(),
      hint: (text) => this.showHint(text),
    });
    this.runtime.extensions?.manager.interactiveCalls.endListeners.add((call, end) => this.panels.callEnded(call, end));
    this.runtime.extensions?.manager.closeListeners.add((extension) => this.panels.extensionGone(extension));
    const messages = this.runtime.agent.messages;
    this.#contextTokens = messages.length > 0 ? estimateTokens(messages) : undefined;
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
    return this.#active !== undefined;
  }

  /** The running operation: what it is and since when. */
  get active(): { readonly label: string; readonly prompt: boolean; readonly since: number } | undefined {
    return this.#active;
  }

  get autoCompacting(): boolean {
    return this.#autoCompacting;
  }

  /** Tokens the conversation takes in the model's window (last usage, or an estimate); undefined when unknown. */
  get contextTokens(): number | undefined {
    return this.#contextTokens;
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

  clearScreen(scrollback: boolean): void {
    this.#screen?.clearScreen({ scrollback });
  }

  renderLive(width: number, height: number): LiveView {
    return composeLive(this, width, height);
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
    this.queue.length = 0;
    clearInterval(this.#ticker);
    clearTimeout(this.#hintTimer);
    this.#unsubscribeSubagents();
    this.extensionProblems.dispose();
    const active = this.#active;
    if (active !== undefined) {
      active.controller.abort();
      let timer: Timer | undefined;
      await Promise.race([active.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)))]);
      clearTimeout(timer);
    }
    this.chat.settle();
    await this.history.flush();
  }

  /** Stops the running operation (Esc, Ctrl+C); queued prompts are dropped. */
  cancel(): boolean {
    if (this.#active === undefined) return false;
    this.#active.controller.abort();
    if (this.queue.length > 0) this.chat.warn(`dropped ${this.queue.length} queued prompt(s)`);
    this.queue.length = 0;
    return true;
  }

  showHint(text: string): void {
    clearTimeout(this.#hintTimer);
    this.hint = text;
    this.#hintTimer = setTimeout(() => {
      this.hint = undefined;
      this.frame();
    }, EXIT_PRESS_WINDOW_MS);
  }

  /** Text the user submitted: a command or a prompt; queued while an operation runs. */
  submitInput(text: string): void {
    if (text.trim() === "") return;
    void this.history.add(text);
    this.editor.setHistory(this.history.entries);
    const command = parseSlashCommand(text);
    // Sending a prompt dismisses the notes (a /command leaves them).
    if (command === undefined) this.dismissNotes();
    const builtin = command === undefined ? undefined : builtinCommand(command.name, this.runtime);
    if (command !== undefined && builtin?.immediate === true) {
      if (builtin.name !== "exit" && builtin.name !== "help") this.chat.info(`› ${text}`);
      void runBuiltin(this, builtin, command.args, new AbortController().signal);
      return;
    }
    if (this.busy) {
      const isCommand = command !== undefined && (builtin !== undefined || this.#extensionCommand(command.name));
      if (!isCommand) this.runtime.extensions?.bridge.userPromptSubmit(text, 0, true);
      this.queue.push({ text, promptOnly: false, announced: !isCommand });
      return;
    }
    this.#start({ text, promptOnly: false, announced: false });
  }

  agentPrompt(text: string, signal: AbortSignal, options: { readonly announced?: boolean; readonly via?: string } = {}): Promise<void> {
    const { agent, extensions } = this.runtime;
    this.chat.user(text, options.via);
    if (options.announced !== true) extensions?.bridge.userPromptSubmit(text, 0);
    return agent.prompt(text, { signal }).then((outcome) => {
      this.chat.settle();
      if (outcome.status === "error") {
        this.chat.error(`error: ${outcome.error.message}`);
        void offerRescue(this, text, outcome.error);
      }
      else if (outcome.status === "blocked") this.chat.warn(`blocked: ${outcome.reason}`);
      else if (outcome.status === "aborted") this.chat.warn("aborted");
    });
  }

  /** Prompts waiting in the queue. */
  get queued(): number {
    return this.queue.length;
  }

  /** Runs `text` as a model prompt, now or behind the running operation (the rescue offer's retry). */
  retryPrompt(text: string): void {
    if (this.busy) this.queue.push({ text, promptOnly: true, announced: false });
    else this.#start({ text, promptOnly: true, announced: false });
    this.frame();
  }

  /** Every agent event (the chat model, plus what the status bar tracks). */
  agentEvent(event: Parameters<Chat["event"]>[0]): void {
    if (event.type === "usage") this.#contextTokens = event.input + event.cache_read + event.cache_write + event.output;
    this.chat.event(event);
    this.frame();
  }

  compactionStarted(): void {
    this.#autoCompacting = this.#active?.label !== "/compact";
    this.frame();
  }

  compactionEnded(): void {
    this.#autoCompacting = false;
    const messages = this.runtime.agent.messages;
    this.#contextTokens = messages.length > 0 ? estimateTokens(messages) : undefined;
    this.frame();
  }

  openPanel(panel: PanelContent): void {
    this.panels.open(panel);
  }

  showHelp(lines: readonly string[]): void {
    this.openOverlay(new TextViewer({ theme: this.theme, title: "help", lines }));
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
    this.#contextTokens = undefined;
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
    const messages = this.runtime.agent.messages;
    this.#contextTokens = messages.length > 0 ? estimateTokens(messages) : undefined;
    this.clearScreen(true);
  }

  // ExtensionUI

  notify(extension: string, level: NoteLevel, message: string): void {
    this.notes.add({ extension, level, message });
    this.frame();
  }

  clearNotes(extension: string): void {
    if (this.notes.clear(extension)) this.frame();
  }

  /** An extension's `submit`: a model prompt now, or queued behind the running operation. */
  submit(extension: string, text: string): void {
    if (this.#exiting) return;
    if (this.busy) {
      this.runtime.extensions?.bridge.userPromptSubmit(text, 0, true);
      this.queue.push({ text, promptOnly: true, announced: true, via: extension });
      this.frame();
      return;
    }
    this.#start({ text, promptOnly: true, announced: false, via: extension });
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

  #extensionCommand(name: string): boolean {
    return this.runtime.extensions?.manager.registry.command(name) !== undefined;
  }

  #start(input: QueuedInput): void {
    const command = input.promptOnly ? undefined : parseSlashCommand(input.text);
    if (command === undefined) {
      this.#run("working", true, (signal) => this.agentPrompt(input.text, signal, { announced: input.announced, via: input.via }));
      return;
    }
    const builtin = builtinCommand(command.name, this.runtime);
    if (builtin !== undefined) {
      this.chat.info(`› ${input.text}`);
      this.#run(`/${builtin.name}`, false, (signal) => runBuiltin(this, builtin, command.args, signal));
      return;
    }
    if (this.#extensionCommand(command.name)) {
      this.chat.info(`› ${input.text}`);
      this.#run(`/${command.name}`, true, (signal) => runExtensionCommand(this, command, signal));
      return;
    }
    const starting = this.runtime.extensions?.manager.starting().map((connection) => connection.name) ?? [];
    const close = unknownCommandHint(command.name, this.runtime);
    const hint = starting.length > 0 ? `${close} (still starting: ${starting.join(", ")}; try again once they are ready)` : `${close} — type /help for the list`;
    this.chat.error(`unknown command /${command.name}${hint}`);
    this.#next();
  }

  #run(label: string, prompt: boolean, task: (signal: AbortSignal) => Promise<void>): void {
    const operation: Operation = { label, prompt, since: Date.now(), controller: new AbortController(), done: Promise.resolve() };
    this.#active = operation;
    this.#ticker ??= setInterval(() => {
      this.streamedCharsShown = this.chat.streamedChars;
      this.frame();
    }, TICK_MS);
    this.streamedCharsShown = 0;
    this.frame();
    operation.done = (async () => {
      try {
        await task(operation.controller.signal);
      } catch (err) {
        this.chat.error(`zot: ${errorMessage(err)}`);
      } finally {
        if (this.#active === operation) this.#active = undefined;
        if (this.#active === undefined) {
          clearInterval(this.#ticker);
          this.#ticker = undefined;
        }
        this.frame();
        this.#next();
      }
    })();
  }

  #next(): void {
    if (this.#exiting || this.#active !== undefined) return;
    const queued = this.queue.shift();
    if (queued !== undefined) this.#start(queued);
  }

  #confirmed(request: ConfirmRequest, choice: ConfirmAnswer): void {
    const line = `${request.toolName}: ${answerWords(choice)}`;
    if (choice === "deny" || choice === "cancel") this.chat.warn(line);
    else this.chat.info(line);
  }
}
