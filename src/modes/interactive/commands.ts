/**
 * Slash commands of the interactive mode. The built-ins are listed here in
 * catalog order (each lives in its own module under commands/ and is a
 * BuiltinCommand: command-types.ts); /help opens an overlay. Any other
 * `/name` an extension registered is sent to it and its command_response is
 * carried out here: prompt and tool_prompt run the agent (tool_prompt first
 * records the tool call/result pair, as in print mode), insert pre-fills
 * the editor, display prints `[ext] text`, open_panel opens the panel, noop
 * does nothing, error is printed in red. An unknown /name is reported with
 * a "did you mean" when a command is close (unknownCommandHint), else a
 * pointer to /help. Every failure is printed; nothing here throws.
 */
import { didYouMean } from "../../common/did-you-mean.ts";
import { errorMessage } from "../../common/errors.ts";
import type { CommandActionHandler } from "../../ext/host.ts";
import { runToolPromptCall, type SlashCommand } from "../commands.ts";
import type { HeadlessRuntime } from "../setup.ts";
import type { Chat } from "./chat.ts";
import type { BuiltinCommand, CommandHost } from "./command-types.ts";
import { CLEAR_COMMAND, COMPACT_COMMAND, EXIT_COMMAND, helpLines, SETTINGS_COMMAND, STUDY_COMMAND, YOLO_COMMAND } from "./commands/core.ts";
import { BTW_COMMAND } from "./commands/btw.ts";
import { JAIL_COMMAND, UNJAIL_COMMAND } from "./commands/jail.ts";
import { LOGIN_COMMAND, LOGOUT_COMMAND } from "./commands/login.ts";
import { MODEL_COMMAND } from "./commands/model.ts";
import { RELOAD_COMMAND } from "./commands/reload.ts";
import { SKILLS_COMMAND } from "./commands/skills.ts";
import { AGENTS_COMMAND } from "./commands/agents.ts";
import { THEME_COMMAND } from "./commands/theme.ts";
import { SESSION_COMMAND, SESSIONS_COMMAND } from "./commands/sessions.ts";
import type { CommandEntry } from "./popup.ts";

export type { BuiltinCommand, CommandHost } from "./command-types.ts";

const HELP_COMMAND: BuiltinCommand = {
  name: "help",
  usage: "/help",
  description: "commands and keys",
  immediate: true,
  run: (host) => host.showHelp(helpLines(host, BUILTIN_COMMANDS)),
};

/**
 * The built-ins in catalog order (the original's: help, login, logout,
 * model, sessions, session, compact, study, btw, jail, unjail, skills, theme,
 * reload-ext, yolo, clear, exit; zot's /agents after skills; not here: the
 * original's /jump, /telegram, docs/compat.md; hidden: /settings). One line per command module.
 */
export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [
  HELP_COMMAND,
  LOGIN_COMMAND,
  LOGOUT_COMMAND,
  MODEL_COMMAND,
  SESSIONS_COMMAND,
  SESSION_COMMAND,
  COMPACT_COMMAND,
  STUDY_COMMAND,
  BTW_COMMAND,
  JAIL_COMMAND,
  UNJAIL_COMMAND,
  SKILLS_COMMAND,
  AGENTS_COMMAND,
  THEME_COMMAND,
  RELOAD_COMMAND,
  YOLO_COMMAND,
  CLEAR_COMMAND,
  EXIT_COMMAND,
  SETTINGS_COMMAND,
];

/** The built-in `name` runs; one that yields to extensions does not when an extension of `runtime` holds the name. */
export function builtinCommand(name: string, runtime?: HeadlessRuntime): BuiltinCommand | undefined {
  const lower = name.toLowerCase();
  const found = BUILTIN_COMMANDS.find((command) => command.name === lower || (command.aliases ?? []).includes(lower));
  return found === undefined || yields(found, runtime) ? undefined : found;
}

/** A built-in that yields to extensions, when an extension of `runtime` holds its name. */
function yields(command: BuiltinCommand, runtime: HeadlessRuntime | undefined): boolean {
  return command.yieldsToExtension === true && runtime?.extensions?.manager.registry.command(command.name) !== undefined;
}

/** Every command for the slash popup: built-ins in catalog order, then the extensions' commands. */
export function commandEntries(runtime: HeadlessRuntime): CommandEntry[] {
  const registry = runtime.extensions?.manager.registry;
  const extensionCommands = registry?.commands() ?? [];
  const shadowed = registry?.qualifiedCommands() ?? [];
  return [
    ...BUILTIN_COMMANDS.filter((command) => command.hidden !== true && !yields(command, runtime)).map((command) => ({ name: command.name, description: command.description })),
    ...extensionCommands.map((command) => ({ name: command.name, description: command.description, extension: command.extension })),
    ...shadowed.map(({ invokeAs, command }) => ({ name: invokeAs, description: command.description, extension: command.extension })),
  ];
}

/** " (did you mean /model?)" for a near miss of a command in the popup (built-ins, their aliases, extensions' commands), or "". */
export function unknownCommandHint(name: string, runtime: HeadlessRuntime): string {
  const names = [
    ...commandEntries(runtime).map((entry) => entry.name),
    ...BUILTIN_COMMANDS.filter((command) => command.hidden !== true).flatMap((command) => command.aliases ?? []),
  ];
  return didYouMean(name, names, (candidate) => `/${candidate}`);
}

/** "did you mean /model?" for a near miss (the slash popup's line when nothing matches), or undefined. */
export function commandSuggestion(name: string, runtime: HeadlessRuntime): string | undefined {
  const hint = unknownCommandHint(name, runtime);
  return hint === "" ? undefined : hint.replace(/^ \((.*)\)$/, "$1");
}

/** Runs a built-in command; `signal` aborts the long ones. */
export async function runBuiltin(host: CommandHost, command: BuiltinCommand, args: string, signal: AbortSignal): Promise<void> {
  try {
    await command.run(host, args, signal);
  } catch (err) {
    host.chat.error(`/${command.name}: ${errorMessage(err)}`);
  }
}

/** Sends `/name args` to the extension that registered it and carries out its answer. */
export async function runExtensionCommand(host: CommandHost, command: SlashCommand, signal: AbortSignal): Promise<void> {
  const manager = host.runtime.extensions?.manager;
  if (manager === undefined) return;
  let invoked: Awaited<ReturnType<typeof manager.invokeCommand>>;
  // The status bar says whom the command waits for (not "waiting for the model").
  const owner = manager.registry.command(command.name)?.extension;
  host.chat.awaitExtension(owner === undefined ? undefined : `${owner} (/${command.name})`);
  try {
    invoked = await manager.invokeCommand(command.name, command.args, { signal });
  } catch (err) {
    host.chat.error(signal.aborted ? `/${command.name}: cancelled` : errorMessage(err));
    return;
  } finally {
    host.chat.awaitExtension(undefined);
  }
  const extension = invoked.command.extension;
  const via = `/${invoked.command.name}`;
  const { chat } = host;
  const handler: CommandActionHandler = {
    prompt: (text) => host.agentPrompt(text, signal, { via }),
    toolPrompt: async (request) => {
      const driver = { runtime: host.runtime, signal, showEvent: (event: Parameters<Chat["event"]>[0]) => chat.event(event) };
      const pair = await runToolPromptCall(driver, extension, request.toolName, request.toolArgs);
      if (signal.aborted || request.prompt.trim() === "") host.runtime.agent.appendMessages(pair);
      if (signal.aborted) chat.warn("aborted");
      else if (request.prompt.trim() !== "") await host.agentPrompt(request.prompt, signal, { via, afterUserMessage: pair });
    },
    insert: (text) => host.editor.insert(text),
    display: (text) => chat.display(extension, text),
    openPanel: (panel) => host.openPanel({ extension, id: panel.id, title: panel.title, lines: panel.lines, footer: panel.footer }),
    noop: () => {},
    error: (message) => chat.error(message),
  };
  try {
    const { dispatchCommandResponse } = await import("../../ext/host.ts");
    await dispatchCommandResponse(extension, invoked.command.name, invoked.response, handler);
  } catch (err) {
    chat.error(`${via}: ${errorMessage(err)}`);
  }
}
