/**
 * The wait for extensions that are still starting, done by the headless
 * modes (print, JSON, RPC) before their first model request or extension
 * slash command (interactive mode: see below). After WAIT_NOTICE_MS of
 * waiting it says so on stderr, once per extension still starting:
 * `zot: waiting for extension todo (go run .)…` (its exec and args as the
 * manifest gives them). Resolves when startup finished (every extension
 * ready, failed, or past the startup bound, which reports it) or when
 * `signal` aborts; it never throws. MCP servers still starting
 * (runtime.mcp) are waited for as well, within their own start
 * bound, with the same notice: `zot: waiting for mcp server srv (npx -y x)…`.
 * Interactive mode waits briefly instead (waitForExtensionsBriefly): at
 * most INTERACTIVE_WAIT_MS, the original zot's ready wait at startup, before
 * a model prompt or a slash command nobody has registered yet, so a guard
 * that starts in well under that intercepts even a prompt typed at once,
 * and a slower extension (past the bound) never holds the chat up longer.
 */
import { settledOrAborted } from "../common/abortable-wait.ts";
import type { ExtensionConnection } from "../ext/connection.ts";
import type { RunMcp } from "./mcp-setup.ts";
import type { HeadlessRuntime } from "./setup.ts";

export const WAIT_NOTICE_MS = 1_000;
export const INTERACTIVE_WAIT_MS = 3_000;

/** `exec args…` as written in the manifest; arguments with spaces (or empty) are quoted. */
export function describeCommandLine(connection: ExtensionConnection): string {
  return quotedWords([connection.exec, ...(connection.loaded.manifest.args ?? [])]);
}

function quotedWords(words: readonly string[]): string {
  const quote = (word: string): string => (word === "" || /\s|"/.test(word) ? JSON.stringify(word) : word);
  return words.map(quote).join(" ");
}

export async function waitForExtensions(runtime: HeadlessRuntime, warn: (text: string) => void, signal: AbortSignal): Promise<void> {
  const manager = runtime.extensions?.manager;
  let mcp: RunMcp | undefined;
  const mcpStarted = runtime.mcp.then(async (servers) => {
    mcp = servers;
    await servers?.started;
  });
  const notice = setTimeout(() => {
    for (const connection of manager?.starting() ?? []) warn(`zot: waiting for extension ${connection.name} (${describeCommandLine(connection)})…\n`);
    for (const server of mcp?.manager.starting() ?? []) warn(`zot: waiting for mcp server ${server.name} (${quotedWords([server.command ?? server.url ?? "", ...(server.args ?? [])])})…\n`);
  }, WAIT_NOTICE_MS);
  try {
    // MCP servers are waited for too, within their own start bound (they report their problems themselves).
    await settledOrAborted(Promise.all([runtime.extensionsStarted, mcpStarted]), signal);
  } finally {
    clearTimeout(notice);
  }
}

/** Resolves once extension startup finished, `ms` passed, or `signal` aborted; at once when nothing is starting. */
export async function waitForExtensionsBriefly(runtime: HeadlessRuntime, signal: AbortSignal, ms = INTERACTIVE_WAIT_MS): Promise<void> {
  if ((runtime.extensions?.manager.starting() ?? []).length === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await settledOrAborted(Promise.race([runtime.extensionsStarted, bound]), signal);
  } finally {
    clearTimeout(timer);
  }
}
