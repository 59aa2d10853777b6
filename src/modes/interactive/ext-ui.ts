/**
 * The extension host's UI in interactive mode. The host exists before the
 * app (setup starts extensions first), so `DeferredExtensionUI` queues every
 * call until the app attaches, then replays them in order and forwards the
 * rest. `NoteBoard` holds the `[ext] message` notes shown above the editor:
 * notify adds one, clear_notes drops one extension's, the next prompt and
 * /clear drop all.
 */
import type { ExtensionUI, NoteLevel } from "../../ext/host.ts";

type UICall = (target: ExtensionUI) => void;

export class DeferredExtensionUI implements ExtensionUI {
  #target: ExtensionUI | undefined;
  readonly #queued: UICall[] = [];

  attach(target: ExtensionUI): void {
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
}

export interface Note {
  readonly extension: string;
  readonly level: NoteLevel;
  readonly message: string;
}

/** At most this many notes are kept (the oldest go first). */
const MAX_NOTES = 8;

export class NoteBoard {
  #notes: Note[] = [];

  get notes(): readonly Note[] {
    return this.#notes;
  }

  add(note: Note): void {
    this.#notes.push(note);
    if (this.#notes.length > MAX_NOTES) this.#notes.splice(0, this.#notes.length - MAX_NOTES);
  }

  /** Drops one extension's notes, or every note; true when something was dropped. */
  clear(extension?: string): boolean {
    const before = this.#notes.length;
    this.#notes = extension === undefined ? [] : this.#notes.filter((note) => note.extension !== extension);
    return this.#notes.length !== before;
  }
}
