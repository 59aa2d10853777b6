/**
 * The host side of what extensions ask for that is not the agent's business:
 * notes (`notify`, `clear_notes`), `submit`, panels, crash reports, and the
 * routing of a `command_response` to its action (tool_prompt tool_args: a
 * JSON object nested at most MAX_VALUE_DEPTH levels). Modes supply an
 * ExtensionUI and a CommandActionHandler; headless modes use
 * `headlessExtensionUI`, which prints notes to stderr as `[name] level: message`.
 */
import { MAX_VALUE_DEPTH, valueTooDeep } from "../common/json.ts";
import type { CommandResponseFrame, InboundOf } from "./frames.ts";

export type NoteLevel = "info" | "success" | "warn" | "error";

export function normaliseNoteLevel(level: string): NoteLevel {
  const lower = level.toLowerCase();
  if (lower === "warning") return "warn";
  return lower === "success" || lower === "warn" || lower === "error" ? lower : "info";
}

export interface PanelContent {
  readonly id: string;
  readonly title: string;
  readonly lines: readonly string[];
  readonly footer: string;
}

export interface ExtensionUI {
  notify(extension: string, level: NoteLevel, message: string): void;
  clearNotes(extension: string): void;
  /** Interactive only; headless hosts ignore it (extensions.md `submit`). */
  submit(extension: string, text: string): void;
  panelRender(extension: string, frame: InboundOf<"panel_render">): void;
  panelClose(extension: string, panelId: string): void;
  /** An extension failed to load, crashed or was disconnected. */
  extensionFailed(extension: string, message: string): void;
  /** A host-side warning about an extension (e.g. an ignored system prompt replacement). */
  hostWarning?(extension: string, message: string): void;
}

export function headlessExtensionUI(write: (text: string) => void = (text) => process.stderr.write(text)): ExtensionUI {
  return {
    notify: (extension, level, message) => write(`[${extension}] ${level}: ${message}\n`),
    clearNotes: () => {},
    submit: () => {},
    panelRender: () => {},
    panelClose: () => {},
    extensionFailed: (extension, message) => write(`zot: extension ${extension}: ${message}\n`),
    hostWarning: (extension, message) => write(`zot: warning: extension ${extension}: ${message}\n`),
  };
}

/** What a mode does with each command action. Actions a mode cannot perform report an error. */
export interface CommandActionHandler {
  prompt(text: string): Promise<void> | void;
  toolPrompt(request: { readonly prompt: string; readonly toolName: string; readonly toolArgs: Readonly<Record<string, unknown>> }): Promise<void> | void;
  insert(text: string): Promise<void> | void;
  display(text: string): Promise<void> | void;
  openPanel(panel: PanelContent): Promise<void> | void;
  noop(): Promise<void> | void;
  error(message: string): Promise<void> | void;
}

/** Routes a command_response to the handler. A non-empty `error` is always shown as an error first. */
export async function dispatchCommandResponse(
  extension: string,
  command: string,
  response: CommandResponseFrame,
  handler: CommandActionHandler,
): Promise<void> {
  if (response.error) {
    await handler.error(`extension /${command}: ${response.error}`);
    return;
  }
  switch (response.action) {
    case "prompt":
      if (response.prompt?.trim()) await handler.prompt(response.prompt);
      else await handler.noop();
      return;
    case "tool_prompt": {
      const args = response.tool_args ?? {};
      if (!response.tool_name) return handler.error(`extension /${command}: tool_prompt without tool_name`);
      if (typeof args !== "object" || args === null || Array.isArray(args)) {
        return handler.error(`extension /${command}: tool_prompt tool_args must be a JSON object`);
      }
      if (valueTooDeep(args, MAX_VALUE_DEPTH)) {
        return handler.error(`extension /${command}: tool_prompt tool_args nested deeper than ${MAX_VALUE_DEPTH} levels`);
      }
      await handler.toolPrompt({ prompt: response.prompt ?? "", toolName: response.tool_name, toolArgs: args as Record<string, unknown> });
      return;
    }
    case "insert":
      await handler.insert(response.insert ?? "");
      return;
    case "display":
      await handler.display(response.display ?? "");
      return;
    case "open_panel": {
      const panel = response.open_panel;
      if (!panel) return handler.error(`extension /${command}: open_panel without panel content`);
      await handler.openPanel({ id: panel.id, title: panel.title || extension, lines: panel.lines, footer: panel.footer ?? "" });
      return;
    }
    case "noop":
    case "":
      await handler.noop();
      return;
    default:
      await handler.error(`extension /${command}: unknown action "${response.action}"`);
  }
}
