/**
 * The interactive session's controller: turns keys into editing, prompts,
 * commands and panel input, runs one operation at a time (a model prompt, an
 * extension command, /compact, /reload-ext) and queues what is submitted
 * meanwhile, and is the extension host's UI (notes, submit, panels). It
 * composes the live region (streaming tail, panel, notes, queue, busy line or
 * confirmation question, editor) for the Screen.
 *
 * Keys: Enter submits; Ctrl+C closes a panel, else aborts the running
 * operation (dropping the queue), else clears the line, and exits when
 * pressed twice within 2 s; Ctrl+D on an empty line exits; Esc closes a
 * panel or dismisses notes; Ctrl+L redraws. `closed` resolves with the exit
 * code once the user (or a signal) asked to leave; the caller then calls
 * shutdown() and restores the terminal.
 */
import type { ConfirmAnswer, ConfirmRequest, PermissionGate } from "../../agent/permissions.ts";
import { errorMessage } from "../../common/errors.ts";
import type { ExtensionUI, NoteLevel } from "../../ext/host.ts";
import type { Catalog } from "../../providers/index.ts";
import { parseSlashCommand } from "../commands.ts";
import type { HeadlessRuntime } from "../setup.ts";
import { builtinCommand, commandCompletions, runBuiltin, runExtensionCommand, type CommandHost } from "./commands.ts";
import { answerWords, ConfirmQuestion } from "./confirm.ts";
import { LineEditor } from "./editor.ts";
import { NoteBoard } from "./ext-ui.ts";
import { KeyDecoder, type KeyEvent } from "./keys.ts";
import { composeLiveView, SPINNER_INTERVAL_MS } from "./live-view.ts";
import { panelKey, type OpenPanel } from "./panel.ts";
import type { LiveView, Screen } from "./screen.ts";
import type { Style } from "./style.ts";
import type { Transcript } from "./transcript.ts";

export const EXIT_PRESS_WINDOW_MS = 2_000;
/** How long shutdown waits for an aborted operation to wind down. */
const SHUTDOWN_WAIT_MS = 3_000;

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
  readonly controller: AbortController;
  done: Promise<void>;
}

export interface AppOptions {
  readonly runtime: HeadlessRuntime;
  readonly screen: Screen;
  readonly transcript: Transcript;
  readonly style: Style;
  readonly gate: PermissionGate;
  readonly catalog: () => Promise<Catalog>;
}

export class InteractiveApp implements CommandHost, ExtensionUI {
  readonly runtime: HeadlessRuntime;
  readonly transcript: Transcript;
  readonly gate: PermissionGate;
  readonly editor = new LineEditor();
  readonly confirmer: ConfirmQuestion;
  readonly closed: Promise<number>;
  readonly #screen: Screen;
  readonly #style: Style;
  readonly #catalog: () => Promise<Catalog>;
  readonly #notes = new NoteBoard();
  readonly #decoder = new KeyDecoder();
  readonly #queue: QueuedInput[] = [];
  #panel: OpenPanel | undefined;
  #active: Operation | undefined;
  #lastInterrupt = Number.NEGATIVE_INFINITY;
  #hint: string | undefined;
  #hintTimer: Timer | undefined;
  #spinnerFrame = 0;
  #spinnerTimer: Timer | undefined;
  #exiting = false;
  #resolveClosed: (code: number) => void = () => {};

  constructor(options: AppOptions) {
    this.runtime = options.runtime;
    this.transcript = options.transcript;
    this.gate = options.gate;
    this.#screen = options.screen;
    this.#style = options.style;
    this.#catalog = options.catalog;
    this.confirmer = new ConfirmQuestion(
      () => this.#screen.refresh(),
      (request, choice) => this.#confirmed(request, choice),
    );
    this.closed = new Promise<number>((resolve) => (this.#resolveClosed = resolve));
  }

  get busy(): boolean {
    return this.#active !== undefined;
  }

  catalog(): Promise<Catalog> {
    return this.#catalog();
  }

  /** Raw terminal input. */
  input(chunk: string): void {
    for (const key of this.#decoder.push(chunk)) {
      if (this.#exiting) return;
      try {
        this.#key(key);
      } catch (err) {
        this.transcript.error(`zot: ${errorMessage(err)}`);
      }
    }
    this.#screen.refresh();
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
    this.#queue.length = 0;
    clearInterval(this.#spinnerTimer);
    clearTimeout(this.#hintTimer);
    const active = this.#active;
    if (active === undefined) return;
    active.controller.abort();
    let timer: Timer | undefined;
    await Promise.race([active.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /** Text the user submitted: a command or a prompt; queued while an operation runs. */
  submitInput(text: string): void {
    if (text.trim() === "") return;
    this.editor.remember(text);
    const command = parseSlashCommand(text);
    const builtin = command === undefined ? undefined : builtinCommand(command.name);
    if (command !== undefined && builtin?.immediate === true) {
      if (builtin.name !== "exit") this.transcript.info(`› ${text}`);
      void runBuiltin(this, builtin, command.args, new AbortController().signal);
      return;
    }
    if (this.busy) {
      const isCommand = command !== undefined && (builtin !== undefined || this.#extensionCommand(command.name));
      if (!isCommand) this.runtime.extensions?.bridge.userPromptSubmit(text, 0, true);
      this.#queue.push({ text, promptOnly: false, announced: !isCommand });
      return;
    }
    this.#start({ text, promptOnly: false, announced: false });
  }

  agentPrompt(text: string, signal: AbortSignal, options: { readonly announced?: boolean; readonly via?: string } = {}): Promise<void> {
    const { agent, extensions } = this.runtime;
    this.#notes.clear();
    this.transcript.user(text, options.via);
    if (options.announced !== true) extensions?.bridge.userPromptSubmit(text, 0);
    return agent.prompt(text, { signal }).then((outcome) => {
      if (outcome.status === "error") this.transcript.error(`error: ${outcome.error.message}`);
      else if (outcome.status === "blocked") this.transcript.warn(`blocked: ${outcome.reason}`);
      else if (outcome.status === "aborted") this.transcript.warn("aborted");
      this.transcript.status(agent.model.provider, agent.model.id, agent.cumulativeUsage);
    });
  }

  openPanel(panel: OpenPanel): void {
    this.#panel = { ...panel };
    this.#screen.refresh();
  }

  clearConversation(): void {
    const refused = this.runtime.agent.clearMessages();
    if (refused !== undefined) {
      this.transcript.error(refused.message);
      return;
    }
    this.#notes.clear();
    this.#screen.clearScreen();
    this.transcript.success("conversation cleared");
  }

  // ExtensionUI

  notify(extension: string, level: NoteLevel, message: string): void {
    this.#notes.add({ extension, level, message });
    this.#screen.refresh();
  }

  clearNotes(extension: string): void {
    if (this.#notes.clear(extension)) this.#screen.refresh();
  }

  /** An extension's `submit`: a model prompt now, or queued behind the running operation. */
  submit(extension: string, text: string): void {
    if (this.#exiting) return;
    const via = extension;
    if (this.busy) {
      this.runtime.extensions?.bridge.userPromptSubmit(text, 0, true);
      this.#queue.push({ text, promptOnly: true, announced: true, via });
      this.#screen.refresh();
      return;
    }
    this.#start({ text, promptOnly: true, announced: false, via });
  }

  panelRender(extension: string, frame: Parameters<ExtensionUI["panelRender"]>[1]): void {
    const panel = this.#panel;
    if (panel === undefined || panel.extension !== extension || panel.id !== frame.panel_id) return;
    if (frame.title) panel.title = frame.title;
    panel.lines = frame.lines;
    panel.footer = frame.footer ?? panel.footer;
    this.#screen.refresh();
  }

  panelClose(extension: string, panelId: string): void {
    if (this.#panel?.extension !== extension || this.#panel.id !== panelId) return;
    this.#panel = undefined;
    this.#screen.refresh();
  }

  extensionFailed(extension: string, message: string): void {
    this.transcript.error(`zot: extension ${extension}: ${message}`);
  }

  hostWarning(extension: string, message: string): void {
    this.transcript.warn(`zot: warning: extension ${extension}: ${message}`);
  }

  /** The live region under the transcript. */
  view(): LiveView {
    const active = this.#active;
    return composeLiveView({
      width: this.#screen.width,
      height: this.#screen.height,
      style: this.#style,
      stream: (width, maxRows) => this.transcript.streamLines(width, maxRows),
      panel: this.#panel,
      notes: this.#notes.notes,
      queued: this.#queue.map((queued) => queued.text),
      question: this.confirmer.line(this.#style),
      busy: active === undefined ? undefined : { label: active.label, frame: this.#spinnerFrame },
      hint: this.#hint,
      editor: this.editor.layout(this.#screen.width),
    });
  }

  #key(key: KeyEvent): void {
    if (key.kind === "key" && key.name === "ctrl+c") return this.#interrupt();
    if (this.confirmer.handleKey(key)) return;
    if (this.#panel !== undefined) return this.#panelKey(this.#panel, key);
    if (key.kind === "key") {
      switch (key.name) {
        case "ctrl+d":
          if (this.editor.isEmpty) return this.exit(0);
          break;
        case "escape":
          if (this.#notes.clear()) this.#screen.refresh();
          return;
        case "ctrl+l":
          return this.#screen.clearScreen();
        case "tab":
          return this.#complete();
        default:
      }
    }
    const result = this.editor.handle(key);
    if (result.kind === "submit") this.submitInput(result.text);
  }

  #interrupt(): void {
    const now = Date.now();
    if (now - this.#lastInterrupt < EXIT_PRESS_WINDOW_MS) return this.exit(0);
    this.#lastInterrupt = now;
    if (this.#panel !== undefined) this.#closePanel(this.#panel);
    else if (this.#active !== undefined) {
      this.#active.controller.abort();
      if (this.#queue.length > 0) this.transcript.warn(`dropped ${this.#queue.length} queued prompt(s)`);
      this.#queue.length = 0;
    } else this.editor.clear();
    this.#showHint("press Ctrl+C again to exit");
  }

  #showHint(text: string): void {
    clearTimeout(this.#hintTimer);
    this.#hint = text;
    this.#hintTimer = setTimeout(() => {
      this.#hint = undefined;
      this.#screen.refresh();
    }, EXIT_PRESS_WINDOW_MS);
  }

  #panelKey(panel: OpenPanel, key: KeyEvent): void {
    if (key.kind === "key" && key.name === "escape") return this.#closePanel(panel);
    const connection = this.runtime.extensions?.manager.connection(panel.extension);
    if (connection === undefined) {
      this.#panel = undefined;
      return;
    }
    for (const sent of panelKey(key)) connection.send({ type: "panel_key", panel_id: panel.id, ...sent });
  }

  #closePanel(panel: OpenPanel): void {
    this.#panel = undefined;
    this.runtime.extensions?.manager.connection(panel.extension)?.send({ type: "panel_close", panel_id: panel.id });
    this.#screen.refresh();
  }

  /** Tab after `/prefix`: completes a unique command name, or lists the candidates. */
  #complete(): void {
    const names = commandCompletions(this.editor.text, this.runtime);
    if (names.length === 1) this.editor.set(`/${names[0]} `);
    else if (names.length > 1) this.transcript.info(names.map((name) => `/${name}`).join("  "));
  }

  #extensionCommand(name: string): boolean {
    return this.runtime.extensions?.manager.registry.command(name) !== undefined;
  }

  #start(input: QueuedInput): void {
    const command = input.promptOnly ? undefined : parseSlashCommand(input.text);
    if (command === undefined) {
      this.#run("working", (signal) => this.agentPrompt(input.text, signal, { announced: input.announced, via: input.via }));
      return;
    }
    const builtin = builtinCommand(command.name);
    if (builtin !== undefined) {
      this.transcript.info(`› ${input.text}`);
      this.#run(`/${builtin.name}`, (signal) => runBuiltin(this, builtin, command.args, signal));
      return;
    }
    if (this.#extensionCommand(command.name)) {
      this.transcript.info(`› ${input.text}`);
      this.#run(`/${command.name}`, (signal) => runExtensionCommand(this, command, signal));
      return;
    }
    const starting = this.runtime.extensions?.manager.starting().map((connection) => connection.name) ?? [];
    const hint = starting.length > 0 ? ` (still starting: ${starting.join(", ")}; try again once they are ready)` : " — type /help for the list";
    this.transcript.error(`unknown command /${command.name}${hint}`);
    this.#next();
  }

  #run(label: string, task: (signal: AbortSignal) => Promise<void>): void {
    const operation: Operation = { label, controller: new AbortController(), done: Promise.resolve() };
    this.#active = operation;
    this.#spinnerTimer ??= setInterval(() => {
      this.#spinnerFrame += 1;
      this.#screen.refresh();
    }, SPINNER_INTERVAL_MS);
    this.#screen.refresh();
    operation.done = (async () => {
      try {
        await task(operation.controller.signal);
      } catch (err) {
        this.transcript.error(`zot: ${errorMessage(err)}`);
      } finally {
        if (this.#active === operation) this.#active = undefined;
        if (this.#active === undefined) {
          clearInterval(this.#spinnerTimer);
          this.#spinnerTimer = undefined;
        }
        this.#screen.refresh();
        this.#next();
      }
    })();
  }

  #next(): void {
    if (this.#exiting || this.#active !== undefined) return;
    const queued = this.#queue.shift();
    if (queued !== undefined) this.#start(queued);
  }

  #confirmed(request: ConfirmRequest, choice: ConfirmAnswer): void {
    const words = answerWords(choice);
    const line = `${request.toolName}: ${words}`;
    if (choice === "deny" || choice === "cancel") this.transcript.warn(line);
    else this.transcript.info(line);
  }
}
