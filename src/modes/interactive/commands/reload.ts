/**
 * `/reload-ext`: stops every extension, re-reads the manifests, starts them
 * again (the same explicit --ext paths and --no-ext), then gives the agent
 * the new tool set and resets the system prompt so the before_agent_start
 * chain runs again before the next model call. The session stays open (no
 * session_end; nothing is replayed to the new processes, session_start
 * included: they get only what happens next). Prints `reloaded: N stopped, M loaded (K ready)[, E error(s)]` in
 * the chat; the errors go to the temporary status (5 s) and stay at the
 * bottom of the chat until a reload without errors or /clear
 * (ext-problems.ts), never to the model or the session.
 */
import type { BuiltinCommand, CommandHost } from "../command-types.ts";

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
  const summary = `reloaded: ${stats.stopped} stopped, ${stats.loaded} loaded (${stats.ready} ready)${stats.errors.length > 0 ? `, ${stats.errors.length} error(s)` : ""}`;
  if (stats.errors.length === 0) host.chat.success(summary);
  else host.chat.warn(summary);
  host.extensionProblems.reloaded(summary, stats.errors);
}

export const RELOAD_COMMAND: BuiltinCommand = {
  name: "reload-ext",
  usage: "/reload-ext",
  description: "restart every extension and re-read their manifests",
  immediate: false,
  run: (host) => reloadCommand(host),
};
