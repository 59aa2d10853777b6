/**
 * Extension slash commands in the headless modes. A prompt `/name args` whose
 * name an extension registered (case-insensitive) is sent to that extension
 * and its command_response is carried out: `prompt` runs the agent;
 * `tool_prompt` runs the tool through the agent's choke point (guards apply),
 * then runs the agent with the prompt, recording the assistant tool_call
 * (tagged origin_extension) + tool result pair right after its user message; `display` shows the text;
 * `noop` does nothing; `insert` / `open_panel` need the interactive TUI and
 * fail; an `error` fails. Any other prompt (including an unregistered /word)
 * goes to the model unchanged; an unregistered /word close to a registered
 * command says so first, on stderr: `zot: note: /weathr is not a command of
 * any extension (did you mean /weather?); sent to the model as a prompt`.
 */
import type { AgentEvent } from "../agent/events.ts";
import { nowTimestamp } from "../agent/messages.ts";
import type { PromptOutcome } from "../agent/types.ts";
import type { Message } from "../providers/types.ts";
import { didYouMean } from "../common/did-you-mean.ts";
import { ZotError } from "../common/errors.ts";
import { queueStderr } from "../common/stderr.ts";
import type { CommandActionHandler } from "../ext/host.ts";
import type { HeadlessExtensions, HeadlessRuntime } from "./setup.ts";

/** `/name rest`: name is [A-Za-z0-9_-]+, rest is everything after the following whitespace. */
export interface SlashCommand {
  readonly name: string;
  readonly args: string;
}

export function parseSlashCommand(prompt: string): SlashCommand | undefined {
  // `/name` or `/<extension>:<name>` (extension names: manifest.ts NAME_PATTERN).
  const match = /^\/((?:[A-Za-z0-9_@+][A-Za-z0-9_.@+-]*:)?[A-Za-z0-9_-]+)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (!match?.[1]) return undefined;
  return { name: match[1], args: (match[2] ?? "").trim() };
}

/** How a headless run ended. */
export type HeadlessResult =
  | { readonly kind: "agent"; readonly outcome: PromptOutcome }
  | { readonly kind: "display"; readonly extension: string; readonly text: string }
  | { readonly kind: "noop" };

export interface HeadlessDriver {
  readonly runtime: HeadlessRuntime;
  readonly signal: AbortSignal;
  /** Events the mode shows that the agent did not emit (tool_prompt's call and result). */
  readonly showEvent: (event: AgentEvent) => void;
}

/** Runs one model prompt, announcing it to extensions first; `afterUserMessage` is recorded right after its user message. */
export async function runAgentPrompt(driver: HeadlessDriver, text: string, afterUserMessage: readonly Message[] = []): Promise<HeadlessResult> {
  const { agent, extensions } = driver.runtime;
  extensions?.bridge.userPromptSubmit(text, 0);
  const outcome = await agent.prompt(text, { signal: driver.signal, afterUserMessage });
  return { kind: "agent", outcome };
}

function interactiveOnly(command: string, action: string): ZotError {
  return new ZotError("mode.needs_tui", `extension /${command}: the ${action} action needs the interactive TUI`, { command, action });
}

/**
 * Runs the tool an extension asked for (tool_prompt) and returns the
 * assistant tool_call + tool result pair to record. The caller records it
 * right after the prompt's user message (runAgentPrompt's afterUserMessage),
 * so the model sees prompt, call, result (and the transcript never opens
 * with an assistant message, which the Anthropic API refuses); without a
 * prompt to send (empty, or cancelled), on its own (agent.appendMessages).
 */
export async function runToolPromptCall(
  driver: HeadlessDriver,
  extension: string,
  toolName: string,
  toolArgs: Readonly<Record<string, unknown>>,
): Promise<Message[]> {
  const { agent } = driver.runtime;
  const id = `ext_${crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`;
  const rawArgs = JSON.stringify(toolArgs);
  driver.showEvent({ type: "tool_call", id, name: toolName, args: toolArgs });
  const record = await agent.runTool(
    { id, name: toolName, arguments: rawArgs },
    {
      origin: { kind: "extension", extension },
      signal: driver.signal,
      // The UI learns when it runs, and with which arguments when a guard rewrote them.
      onStarted: (started, rewritten) => driver.showEvent(rewritten === undefined ? { type: "tool_start", id: started } : { type: "tool_start", id: started, rewritten }),
    },
  );
  driver.showEvent({ type: "tool_result", id, is_error: record.outcome.isError, content: record.outcome.content, status: record.status, details: record.outcome.details });
  return [
    {
      role: "assistant",
      content: [{ type: "tool_call", id, name: toolName, arguments: rawArgs, origin_extension: extension }],
      time: nowTimestamp(),
    },
    {
      role: "tool",
      content: [{ type: "tool_result", call_id: id, content: record.outcome.content, is_error: record.outcome.isError }],
      time: nowTimestamp(),
    },
  ];
}

/**
 * Carries out `/name args` for the extension that registered `name`; throws
 * a ZotError for failures (unknown action, error reply, TUI-only actions).
 */
export async function runSlashCommand(
  driver: HeadlessDriver,
  extensions: HeadlessExtensions,
  command: SlashCommand,
): Promise<HeadlessResult> {
  const { manager } = extensions;
  const invoked = await manager.invokeCommand(command.name, command.args, { signal: driver.signal });
  const extension = invoked.command.extension;
  const name = invoked.command.name;
  let result: HeadlessResult = { kind: "noop" };
  let failure: ZotError | undefined;
  const handler: CommandActionHandler = {
    prompt: async (text) => {
      result = await runAgentPrompt(driver, text);
    },
    toolPrompt: async (request) => {
      const pair = await runToolPromptCall(driver, extension, request.toolName, request.toolArgs);
      if (driver.signal.aborted || request.prompt.trim() === "") {
        driver.runtime.agent.appendMessages(pair);
        if (driver.signal.aborted) result = { kind: "agent", outcome: { status: "aborted" } };
        return;
      }
      result = await runAgentPrompt(driver, request.prompt, pair);
    },
    insert: () => {
      failure = interactiveOnly(name, "insert");
    },
    openPanel: () => {
      failure = interactiveOnly(name, "open_panel");
    },
    display: (text) => {
      result = { kind: "display", extension, text };
    },
    noop: () => {
      result = { kind: "noop" };
    },
    error: (message) => {
      failure = new ZotError("ext.command.error", message, { extension, command: name });
    },
  };
  const { dispatchCommandResponse } = await import("../ext/host.ts");
  await dispatchCommandResponse(extension, name, invoked.response, handler);
  if (failure !== undefined) throw failure;
  return result;
}

/** Runs the prompt: an extension command when it names one, else a model prompt. */
export async function runHeadlessPrompt(driver: HeadlessDriver, prompt: string): Promise<HeadlessResult> {
  const command = parseSlashCommand(prompt);
  const { extensions } = driver.runtime;
  if (command !== undefined && extensions !== undefined && extensions.manager.registry.command(command.name) !== undefined) {
    return runSlashCommand(driver, extensions, command);
  }
  if (command !== undefined && extensions !== undefined) {
    const registry = extensions.manager.registry;
    const names = [...registry.commands().map((entry) => entry.name), ...registry.qualifiedCommands().map((entry) => entry.invokeAs)];
    const hint = didYouMean(command.name, names, (name) => `/${name}`);
    if (hint !== "") queueStderr(`zot: note: /${command.name} is not a command of any extension${hint}; sent to the model as a prompt\n`);
  }
  return runAgentPrompt(driver, prompt);
}
