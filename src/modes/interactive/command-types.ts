/**
 * The shape of a built-in slash command and what commands get from the app
 * (CommandHost). A command module exports one or more BuiltinCommand values;
 * commands.ts lists them in catalog order. `run` gets the host, the text
 * after the name, and a signal that aborts it (Ctrl+C, exit); it reports
 * through the chat and never throws (a throw is printed as `/name: …`).
 */
import type { PermissionGate } from "../../agent/permissions.ts";
import type { Catalog } from "../../providers/index.ts";
import type { Message } from "../../providers/types.ts";
import type { HeadlessRuntime } from "../setup.ts";
import type { Editor, Overlay, Theme } from "../../tui/index.ts";
import type { Chat } from "./chat.ts";
import type { ExtensionProblems } from "./ext-problems.ts";
import type { PanelContent } from "./panel-host.ts";
import type { ThemeState } from "./theme-state.ts";
import type { SubagentTracker } from "./subagents.ts";

export interface BuiltinCommand {
  readonly name: string;
  readonly usage: string;
  readonly description: string;
  /** Runs at once even while a turn runs (others wait in the queue). */
  readonly immediate: boolean;
  /** Other names that run it (`/quit` for `/exit`). */
  readonly aliases?: readonly string[];
  /** Left out of the popup and /help (still runs). */
  readonly hidden?: boolean;
  /** A zot addition the original lacks: an extension command of the same name wins (extensions written for the original keep it). */
  readonly yieldsToExtension?: boolean;
  run(host: CommandHost, args: string, signal: AbortSignal): Promise<void> | void;
}

/** What the commands need from the app. */
/** How a model prompt is run: already announced to extensions (queued), shown as coming from `via`, with messages recorded right after its user message (a tool_prompt's call + result). */
export interface PromptRunOptions {
  readonly announced?: boolean;
  readonly via?: string;
  readonly afterUserMessage?: readonly Message[];
}

export interface CommandHost {
  readonly runtime: HeadlessRuntime;
  readonly chat: Chat;
  readonly editor: Editor;
  readonly gate: PermissionGate;
  catalog(): Promise<Catalog>;
  /** Runs a model prompt to its end (announced to extensions unless `announced`), then prints the status line. */
  agentPrompt(text: string, signal: AbortSignal, options?: PromptRunOptions): Promise<void>;
  openPanel(panel: PanelContent): void;
  /** Shows lines in the help overlay above the editor (Esc closes it). */
  showHelp(lines: readonly string[]): void;
  readonly theme: Theme;
  /** The theme in use and the ones to choose from (/theme). */
  readonly themes: ThemeState;
  /** Opens an overlay (dialog, picker, viewer) on top; it owns the keyboard until it closes. */
  openOverlay(overlay: Overlay): void;
  /** Closes an overlay if it is still open. */
  closeOverlay(overlay: Overlay): void;
  /** Asks for a redraw (after something changed outside a key press). */
  frame(): void;
  clearConversation(): void;
  /** This session's subagents (/agents); undefined without the `agent` tool. */
  readonly subagents?: SubagentTracker;
  /** Extension load failures shown in the chat and the /reload-ext status. */
  readonly extensionProblems: ExtensionProblems;
  /** Drops every extension note (the next prompt, Esc, /clear, a session switch). */
  dismissNotes(): void;
  /** The transcript was replaced (a session switch): notes, overlays, screen, scrollback and the context figure start over. */
  conversationReplaced(): void;
  exit(): void;
}

