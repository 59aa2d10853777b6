/**
 * The interactive mode's extension panels: at most one is shown and focused
 * (`current`); while it is, every key goes to its extension as panel_key
 * (panel.ts), except Esc (and Ctrl+C, through keymap.ts), which dismiss it,
 * and Shift+↑/↓/PgUp/PgDn, which scroll its view.
 *
 * How a panel opens:
 *  - a command's `open_panel` (`open`);
 *  - a `panel_render` with a panel_id that is not open, from an extension
 *    that has an interactive tool call pending (extensions.md does not say
 *    how a tool opens its panel; this is zot's reading): the panel belongs
 *    to that call (the oldest of the extension's pending calls without a
 *    panel, else its oldest). Any other unknown panel_id is ignored.
 * One at a time: a panel that belongs to a pending call is never displaced;
 * panels that arrive meanwhile wait behind it (and take their renders) and
 * are shown, oldest first, when it closes. Otherwise the newest panel
 * replaces the open one, which gets panel_close.
 *
 * How it closes: the extension's panel_close (nothing is sent back); the
 * user's Esc or Ctrl+C (`dismiss`: the call it belongs to ends as
 * cancelled, with tool_cancel to extensions that advertised it, and
 * panel_close follows once the call has ended); the call it belongs to ending (`callEnded`: answered,
 * nothing is sent; abandoned some other way, panel_close is sent); the
 * extension stopping (`extensionGone`).
 */
import type { InteractiveCall, InteractiveCallEnd, InteractiveCalls } from "../../ext/interactive-calls.ts";
import type { Key } from "../../tui/index.ts";
import { MAX_KEYS_PER_INPUT, panelKeys, replaceLines, scrollKey, scrollPanel, type OpenPanel, type PanelKey } from "./panel.ts";

export type PanelFrame =
  | ({ readonly type: "panel_key"; readonly panel_id: string } & PanelKey)
  | { readonly type: "panel_close"; readonly panel_id: string };

export interface PanelHostDeps {
  /** Sends a frame to an extension; false when it is not running. */
  send(extension: string, frame: PanelFrame): boolean;
  /** The interactive tool calls pending (none without extensions). */
  calls(): InteractiveCalls | undefined;
  /** Something changed on screen. */
  frame(): void;
  /** A short-lived status line. */
  hint(text: string): void;
}

export interface PanelContent {
  readonly extension: string;
  readonly id: string;
  readonly title: string;
  readonly lines: readonly string[];
  readonly footer: string;
}

export interface PanelUpdate {
  readonly panel_id: string;
  readonly title?: string;
  readonly lines: readonly string[];
  readonly footer?: string;
}

function newPanel(content: PanelContent, callId?: string): OpenPanel {
  return { ...content, ...(callId === undefined ? {} : { callId }), offset: 0, rows: Number.POSITIVE_INFINITY };
}

export class PanelHost {
  readonly #deps: PanelHostDeps;
  #open: OpenPanel | undefined;
  readonly #waiting: OpenPanel[] = [];
  /** Dismissed panels whose call has not ended yet: their panel_close follows the call's tool_cancel. */
  readonly #closingWithCall: OpenPanel[] = [];

  constructor(deps: PanelHostDeps) {
    this.#deps = deps;
  }

  /** The panel shown and focused. */
  get current(): OpenPanel | undefined {
    return this.#open;
  }

  /** A command's open_panel. */
  open(content: PanelContent): void {
    const known = this.#find(content.extension, content.id);
    if (known === undefined) return this.#show(newPanel(content));
    known.title = content.title;
    known.footer = content.footer;
    replaceLines(known, content.lines);
    if (known === this.#open) this.#deps.frame();
  }

  /** An extension's panel_render: updates its panel, or opens one for its pending interactive call. */
  render(extension: string, update: PanelUpdate): void {
    const known = this.#find(extension, update.panel_id);
    if (known !== undefined) {
      if (update.title) known.title = update.title;
      if (update.footer !== undefined) known.footer = update.footer;
      replaceLines(known, update.lines);
      if (known === this.#open) this.#deps.frame();
      return;
    }
    const pending = this.#deps.calls()?.pending(extension) ?? [];
    const call = pending.find((candidate) => !this.#panels().some((panel) => panel.callId === candidate.requestId)) ?? pending[0];
    if (call === undefined) return;
    const content = { extension, id: update.panel_id, title: update.title || extension, lines: update.lines, footer: update.footer ?? "" };
    const replaced = this.#panels().find((panel) => panel.callId === call.requestId);
    if (replaced !== undefined) {
      // The call's UI moves on to a new panel id: the new one takes the old one's place.
      const panel = newPanel(content, call.requestId);
      if (replaced === this.#open) this.#open = panel;
      else this.#waiting.splice(this.#waiting.indexOf(replaced), 1, panel);
      this.#deps.frame();
      return;
    }
    this.#show(newPanel(content, call.requestId));
  }

  /** The extension's panel_close. */
  closeFromExtension(extension: string, panelId: string): void {
    const panel = this.#find(extension, panelId);
    if (panel !== undefined) this.#remove(panel);
  }

  /** The user closed the focused panel (Esc, Ctrl+C). False when none is open. */
  dismiss(): boolean {
    const panel = this.#open;
    if (panel === undefined) return false;
    this.#remove(panel);
    if (panel.callId !== undefined && this.#deps.calls()?.dismiss(panel.callId) === true) {
      // Its call ends first (tool_cancel to the extension), then callEnded sends panel_close: a handler
      // that ends when its panel closes has seen the cancellation (else it would ignore the late tool_cancel).
      this.#closingWithCall.push(panel);
    } else this.#deps.send(panel.extension, { type: "panel_close", panel_id: panel.id });
    return true;
  }

  /** An interactive call is over: its panels close. */
  callEnded(call: InteractiveCall, end: InteractiveCallEnd): void {
    for (const panel of this.#closingWithCall.filter((candidate) => candidate.callId === call.requestId)) {
      this.#closingWithCall.splice(this.#closingWithCall.indexOf(panel), 1);
      this.#deps.send(panel.extension, { type: "panel_close", panel_id: panel.id });
    }
    for (const panel of this.#panels().filter((candidate) => candidate.callId === call.requestId)) {
      this.#remove(panel);
      if (end === "abandoned") this.#deps.send(panel.extension, { type: "panel_close", panel_id: panel.id });
    }
  }

  /** The extension stopped: its panels are gone. */
  extensionGone(extension: string): void {
    for (const panel of this.#closingWithCall.filter((candidate) => candidate.extension === extension)) this.#closingWithCall.splice(this.#closingWithCall.indexOf(panel), 1);
    for (const panel of this.#panels().filter((candidate) => candidate.extension === extension)) this.#remove(panel);
  }

  /** A key while a panel is focused; false when none is. */
  handleKey(key: Key): boolean {
    const panel = this.#open;
    if (panel === undefined) return false;
    const scroll = scrollKey(key, panel.rows);
    if (scroll !== undefined) {
      if (scrollPanel(panel, scroll)) this.#deps.frame();
      return true;
    }
    if (key.kind === "key" && key.name === "escape" && !key.ctrl && !key.alt) {
      this.dismiss();
      return true;
    }
    const { keys, dropped } = panelKeys(key);
    for (const sent of keys) {
      if (!this.#deps.send(panel.extension, { type: "panel_key", panel_id: panel.id, ...sent })) {
        this.extensionGone(panel.extension);
        return true;
      }
    }
    if (dropped > 0) this.#deps.hint(`panel: ${dropped} more key(s) not sent (at most ${MAX_KEYS_PER_INPUT} from one input)`);
    return true;
  }

  #panels(): OpenPanel[] {
    return this.#open === undefined ? [...this.#waiting] : [this.#open, ...this.#waiting];
  }

  #find(extension: string, id: string): OpenPanel | undefined {
    return this.#panels().find((panel) => panel.extension === extension && panel.id === id);
  }

  #show(panel: OpenPanel): void {
    const open = this.#open;
    if (open?.callId !== undefined && this.#deps.calls()?.get(open.callId) !== undefined) {
      this.#waiting.push(panel);
      return;
    }
    this.#open = panel;
    if (open !== undefined) this.#deps.send(open.extension, { type: "panel_close", panel_id: open.id });
    this.#deps.frame();
  }

  #remove(panel: OpenPanel): void {
    if (panel === this.#open) {
      this.#open = this.#waiting.shift();
      this.#deps.frame();
    } else {
      const index = this.#waiting.indexOf(panel);
      if (index !== -1) this.#waiting.splice(index, 1);
    }
  }
}
