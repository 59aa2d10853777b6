/**
 * Slash commands of the interactive mode. Built-ins: /help, /exit (/quit),
 * /clear, /compact, /model [id], /reload-ext, /yolo. Any other `/name` an
 * extension registered is sent to it and its command_response is carried
 * out here: prompt and tool_prompt run the agent (tool_prompt first records
 * the tool call/result pair, as in print mode), insert pre-fills the editor,
 * display prints `[ext] text`, open_panel opens the panel, noop does
 * nothing, error is printed in red. An unknown /name is reported with a
 * pointer to /help. Every failure is printed; nothing here throws.
 */
import type { PermissionGate } from "../../agent/permissions.ts";
import { errorMessage } from "../../common/errors.ts";
import type { CommandActionHandler } from "../../ext/host.ts";
import { findModel, syntheticModel, type Catalog, type ModelInfo } from "../../providers/index.ts";
import { recordToolPrompt, type SlashCommand } from "../commands.ts";
import type { HeadlessRuntime } from "../setup.ts";
import type { LineEditor } from "./editor.ts";
import type { OpenPanel } from "./panel.ts";
import type { Transcript } from "./transcript.ts";

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
  { name: "clear", usage: "/clear", description: "clear the conversation and the notes", immediate: false },
  { name: "reload-ext", usage: "/reload-ext", description: "restart every extension and re-read their manifests", immediate: false },
  { name: "yolo", usage: "/yolo", description: "stop asking before tool calls (with --no-yolo)", immediate: true },
  { name: "exit", usage: "/exit", description: "quit zot (also /quit, Ctrl+D, Ctrl+C twice)", immediate: true },
];

const ALIASES: Readonly<Record<string, string>> = { quit: "exit" };

const KEY_HELP = [
  ["Enter", "send"],
  ["Alt+Enter, or \\ at the end", "new line"],
  ["←/→ Home/End Ctrl+A/E", "move"],
  ["Ctrl+U / Ctrl+K / Ctrl+W", "delete to start / to end / word"],
  ["↑/↓", "prompt history"],
  ["Ctrl+C", "clear the line / stop the turn; twice: exit"],
  ["Ctrl+D", "exit (on an empty line)"],
  ["Esc", "dismiss notes; close a panel"],
] as const;

export function builtinCommand(name: string): BuiltinCommand | undefined {
  const lower = name.toLowerCase();
  const canonical = ALIASES[lower] ?? lower;
  return BUILTIN_COMMANDS.find((command) => command.name === canonical);
}

/** Command names (built-in and extension) that complete `/prefix`; [] when text is not a bare `/prefix`. */
export function commandCompletions(text: string, runtime: HeadlessRuntime): string[] {
  if (!/^\/[A-Za-z0-9_-]*$/.test(text)) return [];
  const prefix = text.slice(1).toLowerCase();
  const extensionNames = runtime.extensions?.manager.registry.commands().map((command) => command.name) ?? [];
  return [...BUILTIN_COMMANDS.map((command) => command.name), ...extensionNames].filter((name) => name.toLowerCase().startsWith(prefix));
}

/** What the commands need from the app. */
export interface CommandHost {
  readonly runtime: HeadlessRuntime;
  readonly transcript: Transcript;
  readonly editor: LineEditor;
  readonly gate: PermissionGate;
  catalog(): Promise<Catalog>;
  /** Runs a model prompt to its end (announced to extensions unless `announced`), then prints the status line. */
  agentPrompt(text: string, signal: AbortSignal, options?: { readonly announced?: boolean; readonly via?: string }): Promise<void>;
  openPanel(panel: OpenPanel): void;
  clearConversation(): void;
  exit(): void;
}

function helpText(host: CommandHost): string {
  const rows = BUILTIN_COMMANDS.map((command) => `  ${command.usage.padEnd(14)} ${command.description}`);
  const extensionCommands = host.runtime.extensions?.manager.registry.commands() ?? [];
  if (extensionCommands.length > 0) {
    rows.push("extension commands:");
    for (const command of extensionCommands) rows.push(`  /${command.name.padEnd(13)} ${command.description} [${command.extension}]`);
  }
  rows.push("keys:");
  for (const [keys, what] of KEY_HELP) rows.push(`  ${keys.padEnd(28)} ${what}`);
  return `commands:\n${rows.join("\n")}`;
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
    host.transcript.plain(`models of ${current.provider} (/model <id> to switch):\n${rows.join("\n")}`);
    return;
  }
  const model = modelFor(catalog, current, id);
  if (model === undefined) {
    host.transcript.error(`unknown model "${id}" for provider ${current.provider}; /model lists them`);
    return;
  }
  agent.setModel(model);
  extensions?.bridge.setModel(model.provider, model.id);
  try {
    session.writer?.appendMeta({ provider: model.provider, model: model.id });
  } catch (err) {
    host.transcript.warn(`zot: warning: the session did not record the model change: ${errorMessage(err)}`);
  }
  host.transcript.success(`model: ${model.provider}/${model.id}`);
}

async function compactCommand(host: CommandHost, signal: AbortSignal): Promise<void> {
  host.transcript.info("compacting…");
  const result = await host.runtime.agent.compact({ signal });
  if (result.status === "completed") {
    host.transcript.success(`compacted: ${result.messageCountBefore} → ${result.messageCountAfter} messages (~${result.tokenEstimateBefore} → ~${result.tokenEstimateAfter} tokens)`);
  } else if (result.status === "cancelled") host.transcript.warn("compaction cancelled");
  else host.transcript.error(`compaction ${result.status}: ${result.error?.message ?? "no summary"}`);
}

/** Restarts the extensions, then gives the agent the new tool set and a fresh system prompt hook run. */
async function reloadCommand(host: CommandHost): Promise<void> {
  const { extensions, agent, tools } = host.runtime;
  if (extensions === undefined) {
    host.transcript.warn("no extension host in this run");
    return;
  }
  host.transcript.info("reloading extensions…");
  const stats = await extensions.manager.reload();
  const names = new Set(tools.all().flatMap((tool) => (tool.extension === undefined ? [] : [tool.extension])));
  for (const name of names) tools.unregisterExtension(name);
  for (const tool of extensions.manager.tools({ allowInteractive: true })) tools.register(tool);
  agent.setTools(tools);
  agent.resetSystemPrompt();
  const summary = `reloaded: ${stats.stopped} stopped, ${stats.loaded} loaded (${stats.ready} ready)`;
  if (stats.errors.length === 0) host.transcript.success(summary);
  else host.transcript.warn(`${summary}, ${stats.errors.length} error(s)`);
  for (const error of stats.errors) host.transcript.error(`  ${error.message}`);
}

function yoloCommand(host: CommandHost): void {
  if (host.gate.yolo) {
    host.transcript.info("yolo is already on: tool calls run without asking");
    return;
  }
  host.gate.enableYolo();
  host.transcript.success("yolo on: tool calls run without asking for the rest of this session");
}

/** Runs a built-in command; `signal` aborts the long ones. */
export async function runBuiltin(host: CommandHost, command: BuiltinCommand, args: string, signal: AbortSignal): Promise<void> {
  try {
    switch (command.name) {
      case "help":
        return host.transcript.plain(helpText(host));
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
    host.transcript.error(`/${command.name}: ${errorMessage(err)}`);
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
    host.transcript.error(signal.aborted ? `/${command.name}: cancelled` : errorMessage(err));
    return;
  }
  const extension = invoked.command.extension;
  const via = `/${invoked.command.name}`;
  const { transcript } = host;
  const handler: CommandActionHandler = {
    prompt: (text) => host.agentPrompt(text, signal, { via }),
    toolPrompt: async (request) => {
      const driver = { runtime: host.runtime, signal, showEvent: (event: Parameters<Transcript["event"]>[0]) => transcript.event(event) };
      await recordToolPrompt(driver, extension, request.toolName, request.toolArgs);
      if (signal.aborted) transcript.warn("aborted");
      else if (request.prompt.trim() !== "") await host.agentPrompt(request.prompt, signal, { via });
    },
    insert: (text) => host.editor.insert(text),
    display: (text) => transcript.display(extension, text),
    openPanel: (panel) => host.openPanel({ extension, id: panel.id, title: panel.title, lines: panel.lines, footer: panel.footer }),
    noop: () => {},
    error: (message) => transcript.error(message),
  };
  try {
    const { dispatchCommandResponse } = await import("../../ext/host.ts");
    await dispatchCommandResponse(extension, invoked.command.name, invoked.response, handler);
  } catch (err) {
    transcript.error(`${via}: ${errorMessage(err)}`);
  }
}
