/**
 * Slash commands of the interactive mode. Built-ins: /help, /exit (/quit),
 * /clear, /compact, /model [id], /reload-ext, /yolo. Any other `/name` an
 * extension registered is sent to it and its command_response is carried
 * out here: prompt and tool_prompt run the agent (tool_prompt first records
 * the tool call/result pair, as in print mode), insert pre-fills the editor,
 * display prints `[ext] text`, open_panel opens the panel, noop does
 * nothing, error is printed in red. An unknown /name is reported with a
 * pointer to /help. /help opens an overlay above the editor (Esc closes it)
 * instead of printing into the transcript. Every failure is printed;
 * nothing here throws.
 */
import type { PermissionGate } from "../../agent/permissions.ts";
import { errorMessage } from "../../common/errors.ts";
import type { CommandActionHandler } from "../../ext/host.ts";
import { findModel, syntheticModel, type Catalog, type ModelInfo } from "../../providers/index.ts";
import { recordToolPrompt, type SlashCommand } from "../commands.ts";
import type { HeadlessRuntime } from "../setup.ts";
import type { Editor } from "../../tui/index.ts";
import type { Chat } from "./chat.ts";
import type { OpenPanel } from "./panel.ts";
import type { CommandEntry } from "./popup.ts";

export interface BuiltinCommand {
  readonly name: string;
  readonly usage: string;
  readonly description: string;
  /** Runs at once even while a turn runs (others wait in the queue). */
  readonly immediate: boolean;
}

export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [
  { name: "help", usage: "/help", description: "commands and keys", immediate: true },
  { name: "model", usage: "/model [id]", description: "list the provider's models, or switch to one", immediate: false },
  { name: "compact", usage: "/compact", description: "summarise the older part of the conversation", immediate: false },
  { name: "clear", usage: "/clear", description: "clear the conversation, the screen and its scrollback", immediate: false },
  { name: "reload-ext", usage: "/reload-ext", description: "restart every extension and re-read their manifests", immediate: false },
  { name: "yolo", usage: "/yolo", description: "stop asking before tool calls (with --no-yolo)", immediate: true },
  { name: "exit", usage: "/exit", description: "quit zot (also /quit, Ctrl+D, Ctrl+C twice)", immediate: true },
];

const ALIASES: Readonly<Record<string, string>> = { quit: "exit" };

const KEY_HELP = [
  ["Enter", "send (Tab/Enter complete in a popup)"],
  ["Alt+Enter, Shift+Enter, \\ at the end", "new line"],
  ["←/→ Home/End Ctrl+A/E Alt+←/→", "move"],
  ["Ctrl+U / Ctrl+K / Ctrl+W", "delete to start / to end / word"],
  ["↑/↓", "prompt history (this project, across runs)"],
  ["/  @", "command popup / file picker (→ enters a directory)"],
  ["Esc", "close popup, notes or help; else stop the turn; else clear"],
  ["Ctrl+C", "stop the turn / clear; twice within 2 s: exit"],
  ["Ctrl+D", "exit (on an empty line)"],
  ["Ctrl+O", "full output of the tool calls (Esc closes)"],
  ["Ctrl+L", "redraw the screen"],
] as const;

export function builtinCommand(name: string): BuiltinCommand | undefined {
  const lower = name.toLowerCase();
  const canonical = ALIASES[lower] ?? lower;
  return BUILTIN_COMMANDS.find((command) => command.name === canonical);
}

/** Every command for the slash popup: built-ins in catalog order, then the extensions' commands. */
export function commandEntries(runtime: HeadlessRuntime): CommandEntry[] {
  const extensionCommands = runtime.extensions?.manager.registry.commands() ?? [];
  return [
    ...BUILTIN_COMMANDS.map((command) => ({ name: command.name, description: command.description })),
    ...extensionCommands.map((command) => ({ name: command.name, description: command.description, extension: command.extension })),
  ];
}

/** What the commands need from the app. */
export interface CommandHost {
  readonly runtime: HeadlessRuntime;
  readonly chat: Chat;
  readonly editor: Editor;
  readonly gate: PermissionGate;
  catalog(): Promise<Catalog>;
  /** Runs a model prompt to its end (announced to extensions unless `announced`), then prints the status line. */
  agentPrompt(text: string, signal: AbortSignal, options?: { readonly announced?: boolean; readonly via?: string }): Promise<void>;
  openPanel(panel: OpenPanel): void;
  /** Shows lines in the help overlay above the editor (Esc closes it). */
  showHelp(lines: readonly string[]): void;
  clearConversation(): void;
  exit(): void;
}

function helpLines(host: CommandHost): string[] {
  const rows = BUILTIN_COMMANDS.map((command) => `  ${command.usage.padEnd(14)} ${command.description}`);
  const extensionCommands = host.runtime.extensions?.manager.registry.commands() ?? [];
  if (extensionCommands.length > 0) {
    rows.push("extension commands:");
    for (const command of extensionCommands) rows.push(`  /${command.name.padEnd(13)} ${command.description} [${command.extension}]`);
  }
  rows.push("keys:");
  for (const [keys, what] of KEY_HELP) rows.push(`  ${keys.padEnd(38)} ${what}`);
  return ["commands:", ...rows];
}

function modelFor(catalog: Catalog, current: ModelInfo, id: string): ModelInfo | undefined {
  if (id === current.id) return current;
  const listed = findModel(catalog, current.provider, id);
  if (listed !== undefined) return listed;
  return current.provider === "ollama" ? syntheticModel(current.provider, id) : undefined;
}

async function modelCommand(host: CommandHost, id: string): Promise<void> {
  const { agent, extensions, session } = host.runtime;
  const current = agent.model;
  const catalog = await host.catalog();
  if (id === "") {
    const listed = catalog.models.filter((model) => model.provider === current.provider);
    const all = listed.some((model) => model.id === current.id) ? listed : [current, ...listed];
    const rows = all.map((model) => `${model.id === current.id ? "*" : " "} ${model.id}`);
    host.chat.plain(`models of ${current.provider} (/model <id> to switch):\n${rows.join("\n")}`);
    return;
  }
  const model = modelFor(catalog, current, id);
  if (model === undefined) {
    host.chat.error(`unknown model "${id}" for provider ${current.provider}; /model lists them`);
    return;
  }
  agent.setModel(model);
  extensions?.bridge.setModel(model.provider, model.id);
  try {
    session.writer?.appendMeta({ provider: model.provider, model: model.id });
  } catch (err) {
    host.chat.warn(`zot: warning: the session did not record the model change: ${errorMessage(err)}`);
  }
  host.chat.success(`model: ${model.provider}/${model.id}`);
}

async function compactCommand(host: CommandHost, signal: AbortSignal): Promise<void> {
  host.chat.info("compacting…");
  const result = await host.runtime.agent.compact({ signal });
  if (result.status === "completed") {
    host.chat.success(`compacted: ${result.messageCountBefore} → ${result.messageCountAfter} messages (~${result.tokenEstimateBefore} → ~${result.tokenEstimateAfter} tokens)`);
  } else if (result.status === "cancelled") host.chat.warn("compaction cancelled");
  else host.chat.error(`compaction ${result.status}: ${result.error?.message ?? "no summary"}`);
}

/** Restarts the extensions, then gives the agent the new tool set and a fresh system prompt hook run. */
async function reloadCommand(host: CommandHost): Promise<void> {
  const { extensions, agent, tools } = host.runtime;
  if (extensions === undefined) {
    host.chat.warn("no extension host in this run");
    return;
  }
  host.chat.info("reloading extensions…");
  const stats = await extensions.manager.reload();
  const names = new Set(tools.all().flatMap((tool) => (tool.extension === undefined ? [] : [tool.extension])));
  for (const name of names) tools.unregisterExtension(name);
  for (const tool of extensions.manager.tools({ allowInteractive: true })) tools.register(tool);
  agent.setTools(tools);
  agent.resetSystemPrompt();
  const summary = `reloaded: ${stats.stopped} stopped, ${stats.loaded} loaded (${stats.ready} ready)`;
  if (stats.errors.length === 0) host.chat.success(summary);
  else host.chat.warn(`${summary}, ${stats.errors.length} error(s)`);
  for (const error of stats.errors) host.chat.error(`  ${error.message}`);
}

function yoloCommand(host: CommandHost): void {
  if (host.gate.yolo) {
    host.chat.info("yolo is already on: tool calls run without asking");
    return;
  }
  host.gate.enableYolo();
  host.chat.success("yolo on: tool calls run without asking for the rest of this session");
}

/** Runs a built-in command; `signal` aborts the long ones. */
export async function runBuiltin(host: CommandHost, command: BuiltinCommand, args: string, signal: AbortSignal): Promise<void> {
  try {
    switch (command.name) {
      case "help":
        return host.showHelp(helpLines(host));
      case "exit":
        return host.exit();
      case "clear":
        return host.clearConversation();
      case "compact":
        return await compactCommand(host, signal);
      case "model":
        return await modelCommand(host, args.trim());
      case "reload-ext":
        return await reloadCommand(host);
      case "yolo":
        return yoloCommand(host);
    }
  } catch (err) {
    host.chat.error(`/${command.name}: ${errorMessage(err)}`);
  }
}

/** Sends `/name args` to the extension that registered it and carries out its answer. */
export async function runExtensionCommand(host: CommandHost, command: SlashCommand, signal: AbortSignal): Promise<void> {
  const manager = host.runtime.extensions?.manager;
  if (manager === undefined) return;
  let invoked: Awaited<ReturnType<typeof manager.invokeCommand>>;
  try {
    invoked = await manager.invokeCommand(command.name, command.args, { signal });
  } catch (err) {
    host.chat.error(signal.aborted ? `/${command.name}: cancelled` : errorMessage(err));
    return;
  }
  const extension = invoked.command.extension;
  const via = `/${invoked.command.name}`;
  const { chat } = host;
  const handler: CommandActionHandler = {
    prompt: (text) => host.agentPrompt(text, signal, { via }),
    toolPrompt: async (request) => {
      const driver = { runtime: host.runtime, signal, showEvent: (event: Parameters<Chat["event"]>[0]) => chat.event(event) };
      await recordToolPrompt(driver, extension, request.toolName, request.toolArgs);
      if (signal.aborted) chat.warn("aborted");
      else if (request.prompt.trim() !== "") await host.agentPrompt(request.prompt, signal, { via });
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
