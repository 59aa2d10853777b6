/**
 * `/reload-ext`: stops every extension, re-reads the manifests, starts them
 * again, then gives the agent the new tool set and a fresh system prompt
 * hook run; prints `reloaded: N stopped, M loaded (K ready)` and each error.
 */
import type { BuiltinCommand, CommandHost } from "../command-types.ts";

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

export const RELOAD_COMMAND: BuiltinCommand = {
  name: "reload-ext",
  usage: "/reload-ext",
  description: "restart every extension and re-read their manifests",
  immediate: false,
  run: (host) => reloadCommand(host),
};
