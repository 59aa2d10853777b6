/**
 * What submitted text becomes. submitInput: an `immediate` built-in
 * (/help, /exit, /theme, …) runs at once even while a turn runs; anything
 * else starts now or waits in the runner's queue (a queued prompt is
 * announced to extensions as queued right away; a queued command is not a
 * prompt). dispatchInput starts one input: a model prompt (promptOnly input
 * is never parsed as a command), a built-in, an extension command, or an
 * unknown `/name` reported with its did-you-mean hint (then the next queued
 * input starts). While extensions are still starting, an unknown `/name`
 * and a model prompt first wait for them (at most 3 s,
 * waitForExtensionsBriefly), as the original zot waited for its extensions
 * before taking input. runPrompt runs one model prompt to its end and prints how
 * it ended (error, with the rescue offer; blocked; aborted).
 */
import { parseSlashCommand } from "../commands.ts";
import { waitForExtensionsBriefly } from "../extension-wait.ts";
import type { InteractiveApp } from "./app.ts";
import type { PromptRunOptions } from "./command-types.ts";
import { builtinCommand, runBuiltin, runExtensionCommand, unknownCommandHint } from "./commands.ts";
import type { QueuedInput } from "./operations.ts";
import { offerRescue } from "./rescue.ts";

function isExtensionCommand(app: InteractiveApp, name: string): boolean {
  return app.runtime.extensions?.manager.registry.command(name) !== undefined;
}

/** Text the user submitted: a command or a prompt; queued while an operation runs. */
export function submitInput(app: InteractiveApp, text: string): void {
  if (text.trim() === "") return;
  void app.history.add(text);
  app.editor.setHistory(app.history.entries);
  const command = parseSlashCommand(text);
  // Sending a prompt dismisses the notes (a /command leaves them).
  if (command === undefined) app.dismissNotes();
  const builtin = command === undefined ? undefined : builtinCommand(command.name, app.runtime);
  if (command !== undefined && builtin?.immediate === true) {
    if (builtin.name !== "exit" && builtin.name !== "help") app.chat.info(`› ${text}`);
    void runBuiltin(app, builtin, command.args, new AbortController().signal);
    return;
  }
  const isCommand = command !== undefined && (builtin !== undefined || isExtensionCommand(app, command.name));
  if (app.operations.busy && !isCommand) app.runtime.extensions?.bridge.userPromptSubmit(text, 0, true);
  app.operations.submit({ text, promptOnly: false, announced: app.operations.busy && !isCommand });
}

/** Starts one input (the runner's dispatch). */
export function dispatchInput(app: InteractiveApp, input: QueuedInput): void {
  const { operations } = app;
  const command = input.promptOnly ? undefined : parseSlashCommand(input.text);
  if (command === undefined) {
    operations.run("working", true, (signal) => runPrompt(app, input.text, signal, { announced: input.announced, via: input.via }));
    return;
  }
  const builtin = builtinCommand(command.name, app.runtime);
  if (builtin !== undefined) {
    app.chat.info(`› ${input.text}`);
    operations.run(`/${builtin.name}`, false, (signal) => runBuiltin(app, builtin, command.args, signal));
    return;
  }
  if (isExtensionCommand(app, command.name)) {
    app.chat.info(`› ${input.text}`);
    operations.run(`/${command.name}`, true, (signal) => runExtensionCommand(app, command, signal));
    return;
  }
  if (input.waited !== true && (app.runtime.extensions?.manager.starting() ?? []).length > 0) {
    // Its extension may still be starting: wait a little (bounded), then look the name up again.
    operations.run(`/${command.name}`, false, async (signal) => {
      await waitForExtensionsBriefly(app.runtime, signal);
      if (!signal.aborted) operations.queue.unshift({ ...input, waited: true });
    });
    return;
  }
  const starting = app.runtime.extensions?.manager.starting().map((connection) => connection.name) ?? [];
  const close = unknownCommandHint(command.name, app.runtime);
  const hint = starting.length > 0 ? `${close} (still starting: ${starting.join(", ")}; try again once they are ready)` : `${close} — type /help for the list`;
  app.chat.error(`unknown command /${command.name}${hint}`);
  operations.next();
}

/** Runs a model prompt to its end (announced to extensions unless `announced`), then prints how it ended. */
export async function runPrompt(app: InteractiveApp, text: string, signal: AbortSignal, options: PromptRunOptions = {}): Promise<void> {
  const { agent, extensions } = app.runtime;
  app.chat.user(text, options.via);
  // Extensions still starting (a guard) get a short while to join before the model is asked.
  await waitForExtensionsBriefly(app.runtime, signal);
  if (options.announced !== true) extensions?.bridge.userPromptSubmit(text, 0);
  return agent.prompt(text, { signal, afterUserMessage: options.afterUserMessage }).then((outcome) => {
    app.chat.settle();
    if (outcome.status === "error") {
      app.chat.error(`error: ${outcome.error.message}`);
      void offerRescue(app, text, outcome.error);
    } else if (outcome.status === "blocked") app.chat.warn(`blocked: ${outcome.reason}`);
    else if (outcome.status === "aborted") app.chat.warn("aborted");
  });
}
