/**
 * Project trust for `zot mcp doctor`, as for `zot ext doctor`: the servers
 * of ./.zot/mcp.json are started only when the project is trusted as it is
 * now (`zot trust`), or with --trust / ZOT_TRUST=1. Otherwise
 * `projectServersBlocked` returns the reason they are not started (the
 * project's state and how to allow it); undefined means they may start.
 * When they are blocked, `withRunFallbacks` puts after each blocked project
 * entry the entry of the same name a run would start instead (a run skips
 * ./.zot/mcp.json whole, so a global entry it shadowed is used), so that
 * doctor checks what the run will start. Reading only: the store is read and
 * the project fingerprinted, nothing is spawned or written.
 */
import type { ZotPaths } from "../common/home.ts";
import type { McpServerConfig } from "../mcp/config.ts";

export async function projectServersBlocked(
  servers: readonly McpServerConfig[],
  options: { readonly cwd: string; readonly paths: ZotPaths; readonly trustFlag: boolean },
): Promise<string | undefined> {
  if (options.trustFlag || !servers.some((server) => server.scope === "project")) return undefined;
  const [{ trustedByEnv }, { currentProjectTrust }] = await Promise.all([import("../trust/state.ts"), import("../ext/project-trust.ts")]);
  if (trustedByEnv(process.env)) return undefined;
  const { status } = await currentProjectTrust(options.cwd, options.paths);
  if (status.state === "trusted") return undefined;
  return `project ${status.state === "empty" ? "untrusted" : status.state}; allow with 'zot mcp doctor --trust' (this run) or 'zot trust ${status.dir}' (record it)`;
}

/**
 * `chosen` with, right after each project entry, the entry of the same name in
 * `runnable` (the servers loaded without the project's file), if any; and the
 * names that got one.
 */
export function withRunFallbacks(
  chosen: readonly McpServerConfig[],
  runnable: readonly McpServerConfig[],
): { readonly servers: McpServerConfig[]; readonly fallbackFor: ReadonlySet<string> } {
  const servers: McpServerConfig[] = [];
  const fallbackFor = new Set<string>();
  for (const server of chosen) {
    servers.push(server);
    if (server.scope !== "project") continue;
    const fallback = runnable.find((candidate) => candidate.name === server.name);
    if (fallback === undefined) continue;
    servers.push(fallback);
    fallbackFor.add(server.name);
  }
  return { servers, fallbackFor };
}
