/**
 * The extension host's UI in interactive mode. The host exists before the
 * app (setup starts extensions first), so `DeferredExtensionUI` queues every
 * call until the app attaches, then replays them in order and forwards the
 * rest (startup's load errors included: loadProblems). `NoteBoard` holds
 * the `[ext] message` notes shown above the editor (at most MAX_NOTES, each
 * cut to MAX_NOTE_CHARS): notify adds one, clear_notes drops one
 * extension's, the next prompt, Esc, /clear and a session switch drop all
 * (InteractiveApp.dismissNotes).
 */
import type { ExtensionUI, NoteLevel } from "../../ext/host.ts";
import type { ExtensionProblems, LoadProblem } from "./ext-problems.ts";

/** The app as the extensions' UI: ExtensionUI plus where load failures go. */
export interface AppExtensionUI extends ExtensionUI {
  readonly extensionProblems: ExtensionProblems;
}

type UICall = (target: AppExtensionUI) => void;

export class DeferredExtensionUI implements ExtensionUI {
  #target: AppExtensionUI | undefined;
  readonly #queued: UICall[] = [];

  attach(target: AppExtensionUI): void {
    this.#target = target;
    for (const call of this.#queued.splice(0)) call(target);
  }

  #forward(call: UICall): void {
    if (this.#target !== undefined) call(this.#target);
    else this.#queued.push(call);
  }

  notify(extension: string, level: NoteLevel, message: string): void {
    this.#forward((target) => target.notify(extension, level, message));
  }

  clearNotes(extension: string): void {
    this.#forward((target) => target.clearNotes(extension));
  }

  submit(extension: string, text: string): void {
    this.#forward((target) => target.submit(extension, text));
  }

  panelRender(extension: string, frame: Parameters<ExtensionUI["panelRender"]>[1]): void {
    this.#forward((target) => target.panelRender(extension, frame));
  }

  panelClose(extension: string, panelId: string): void {
    this.#forward((target) => target.panelClose(extension, panelId));
  }

  extensionFailed(extension: string, message: string): void {
    this.#forward((target) => target.extensionFailed(extension, message));
  }

  hostWarning(extension: string, message: string): void {
    this.#forward((target) => target.hostWarning?.(extension, message));
  }

  /** Startup's load errors: kept at the bottom of the chat (ext-problems.ts). */
  loadProblems(problems: readonly LoadProblem[]): void {
    this.#forward((target) => target.extensionProblems.startup(problems));
  }
}

export interface Note {
  readonly extension: string;
  readonly level: NoteLevel;
  readonly message: string;
}

/** At most this many notes are kept (the oldest go first). */
export const MAX_NOTES = 8;
/** A note's message is cut to this many characters (it is drawn on one row anyway). */
export const MAX_NOTE_CHARS = 1_000;

export class NoteBoard {
  #notes: Note[] = [];

  get notes(): readonly Note[] {
    return this.#notes;
  }

  add(note: Note): void {
    const chars = Array.from(note.message.slice(0, MAX_NOTE_CHARS * 2));
    this.#notes.push(chars.length <= MAX_NOTE_CHARS ? note : { ...note, message: `${chars.slice(0, MAX_NOTE_CHARS - 1).join("")}…` });
    if (this.#notes.length > MAX_NOTES) this.#notes.splice(0, this.#notes.length - MAX_NOTES);
  }

  /** Drops one extension's notes, or every note; true when something was dropped. */
  clear(extension?: string): boolean {
    const before = this.#notes.length;
    this.#notes = extension === undefined ? [] : this.#notes.filter((note) => note.extension !== extension);
    return this.#notes.length !== before;
  }
}
