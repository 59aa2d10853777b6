/**
 * The MCP servers of a run (src/mcp, docs/mcp.md), wired into setup.ts.
 * `mayHaveMcpServers` is the cheap gate (existsSync of $ZOT_HOME/mcp.json
 * and ./.zot/mcp.json, or an --mcp file given): without it nothing of the
 * MCP client is imported. `startRunMcp` waits for the project-trust decision
 * (./.zot/mcp.json counts only in a trusted project), loads the
 * configuration, reports its problems, and starts every server in the
 * background: `started` resolves once each is ready, failed or past its
 * start bound (never rejects; the headless modes wait for it like they wait
 * for extensions, interactive mode never does). `joinMcpTools` puts the tools of ready servers in the
 * agent's registry and keeps it current as servers become ready and
 * list_changed re-lists: MCP tools are ordinary registry entries, so every
 * call goes through the tool choke point (tool_call interception,
 * --no-yolo, permission_decision, tool_result) like built-ins. Shutdown is
 * registered with the run's Cleanup at once.
 */
import { errorMessage } from "../common/errors.ts";
import type { ZotPaths } from "../common/home.ts";
import { ZOT_VERSION } from "../common/version.ts";
import type { MainFlags } from "../cli/flags.ts";
import { hasAnyMcpConfig } from "../mcp/config-paths.ts";
import type { McpManager } from "../mcp/index.ts";
import type { Tool, ToolRegistry } from "../tools/index.ts";
import type { Cleanup } from "./cleanup.ts";

export interface RunMcp {
  readonly manager: McpManager;
  /** Resolves once every server is ready, failed or past its start bound. */
  readonly started: Promise<void>;
}

/** Cheap (existsSync only; config-paths.ts imports nothing of the MCP client): true when an MCP config file exists or --mcp was given. */
export function mayHaveMcpServers(flags: MainFlags, cwd: string, paths: ZotPaths): boolean {
  return hasAnyMcpConfig({ home: paths.home, cwd, flagFiles: flags.mcp, includeProject: true });
}

export interface RunMcpInput {
  readonly flags: MainFlags;
  readonly cwd: string;
  readonly paths: ZotPaths;
  readonly warn: (text: string) => void;
  /** The project-trust decision for ./.zot/mcp.json (interactive: may wait for the dialog). */
  readonly includeProject: () => Promise<boolean>;
}

/**
 * Loads the configuration once the trust decision is in, then starts the
 * servers. Resolves undefined when no server is enabled, or when zot began
 * leaving before they were started. The cleanup step is registered at once,
 * so a run that ends while the trust dialog is open starts nothing.
 */
export function startRunMcp(input: RunMcpInput, cleanup: Cleanup): Promise<RunMcp | undefined> {
  let leaving = false;
  let run: RunMcp | undefined;
  cleanup.add(async () => {
    leaving = true;
    await run?.manager.shutdown();
    await run?.started;
  });
  return (async () => {
    const [{ McpManager, loadMcpServers }, includeProject] = await Promise.all([import("../mcp/index.ts"), input.includeProject()]);
    if (leaving) return undefined;
    const { servers, problems } = await loadMcpServers({ home: input.paths.home, cwd: input.cwd, flagFiles: input.flags.mcp, includeProject });
    for (const problem of problems) input.warn(`zot: warning: ${problem.message}\n`);
    if (leaving || servers.every((server) => server.disabled === true)) return undefined;
    const manager = new McpManager({ servers, logsDir: input.paths.logs, cwd: input.cwd, clientVersion: ZOT_VERSION.split(" ")[0] ?? ZOT_VERSION, warn: input.warn });
    const started = manager.start().catch((err: unknown) => input.warn(`zot: warning: mcp servers could not start: ${errorMessage(err)}\n`));
    run = { manager, started };
    return run;
  })();
}

/**
 * Registers the MCP tools known now and keeps the registry current. A name
 * already taken (a built-in, an extension tool, another server's tool) stays
 * its holder's, with one warning per server and name; a server's change
 * removes only that server's own entries. Call with no await
 * between it and the agent's creation.
 */
export function joinMcpTools(mcp: RunMcp, tools: ToolRegistry, warn: (text: string) => void): void {
  /** The tools registered here: name → the tool and its server. */
  const mine = new Map<string, { readonly tool: Tool; readonly server: string }>();
  /** `server tool` pairs already warned about: a re-list does not repeat the warning. */
  const refused = new Set<string>();
  const add = (tool: Tool, server: string): void => {
    if (tools.register(tool)) mine.set(tool.name, { tool, server });
    else if (!refused.has(`${server} ${tool.name}`)) {
      refused.add(`${server} ${tool.name}`);
      warn(`zot: warning: mcp tool ${tool.name} of server ${server} was not added: the name is taken by another tool\n`);
    }
  };
  for (const { server, tool } of mcp.manager.toolsByServer()) add(tool, server);
  mcp.manager.listeners.add((change) => {
    for (const name of change.removed) {
      const held = mine.get(name);
      // Only the leaving server's own entry: a tool of that name from elsewhere stays.
      if (held === undefined || held.server !== change.server) continue;
      if (tools.get(name) === held.tool) tools.unregister(name);
      mine.delete(name);
    }
    for (const tool of change.added) add(tool, change.server);
  });
}
