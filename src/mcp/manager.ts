/**
 * The MCP servers of one run. `start()` starts every enabled server at once
 * (spawn, initialize, tools/list) and resolves when each is ready, failed,
 * or past the start bound (ZOT_MCP_START_TIMEOUT_MS, default 10 s); it
 * never rejects. A server's problems (did not start, did not initialize in
 * time, skipped tools) go to `warn` naming the server (and the log file of
 * a stdio server).
 * Tools join as their server becomes ready: `tools()` is what is known now,
 * `listeners` hear every change (added Tools, removed names), so an
 * interactive run never waits. notifications/tools/list_changed re-lists
 * (one re-list at a time, repeated if another change arrived meanwhile).
 * A call runs through the server's session with the tool-call timeout
 * (ZOT_MCP_CALL_TIMEOUT_MS, default 60 s, restarted by each progress
 * notification), live progress as `[progress/total] message` lines
 * (progress.ts), and cancellation forwarded. A server that exits fails its pending calls at
 * once (its exit code in the error) and every later call of its tools
 * without sending it ("mcp server X is not running"); the others go on.
 * `shutdown()` closes every server (stdin closed, then SIGTERM/SIGKILL of
 * its process group; an HTTP session is deleted). A server with `command`
 * gets the stdio transport, one with `url` the Streamable HTTP transport
 * (http-transport.ts). `report(name)` is what `zot mcp doctor` prints: the
 * server's state, the initialize result, the tools loaded (zot names), the
 * tools skipped and why, the other problems warned about, the time it took
 * to become ready or fail, and its log file.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ZotError, errorMessage } from "../common/errors.ts";
import type { Tool, ToolContext, ToolOutcome, ToolStatus } from "../tools/types.ts";
import type { McpServerConfig } from "./config.ts";
import { ProgressLines } from "./progress.ts";
import { McpSession, type ListedTools } from "./session.ts";
import { createHttpTransport } from "./http-transport.ts";
import { StdioTransport } from "./stdio-transport.ts";
import { DefinitionBudget, defaultPrefix, mapCallResult, mcpTool, toolDefinitions, type McpToolDefinition, type SkippedTool } from "./tools.ts";
import type { McpTransport } from "./transport.ts";

export const DEFAULT_START_TIMEOUT_MS = 10_000;
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

export type ServerState = "starting" | "ready" | "failed" | "stopped";

export interface McpToolChange {
  readonly server: string;
  readonly added: readonly Tool[];
  readonly removed: readonly string[];
}

export interface McpManagerOptions {
  readonly servers: readonly McpServerConfig[];
  readonly logsDir: string;
  readonly cwd: string;
  readonly clientVersion: string;
  readonly warn: (text: string) => void;
  readonly startTimeoutMs?: number;
  readonly callTimeoutMs?: number;
}

/** One server as `zot mcp doctor` reports it (see the contract above). */
export interface McpServerReport {
  readonly state: ServerState;
  readonly protocolVersion?: string;
  readonly serverName?: string;
  readonly serverVersion?: string;
  /** The zot names of the tools loaded. */
  readonly tools: readonly string[];
  readonly skipped: readonly SkippedTool[];
  /** Other problems warned about (tools/list cut short, …), each naming the server. */
  readonly problems: readonly string[];
  /** Why it is not running (failed or stopped). */
  readonly reason?: string;
  /** Milliseconds from the start until it was ready or had failed (undefined while starting). */
  readonly elapsedMs?: number;
  /** stdio servers: the log file of its stderr. */
  readonly logPath?: string;
}

interface Server {
  readonly config: McpServerConfig;
  readonly logPath: string;
  state: ServerState;
  skipped: SkippedTool[];
  problems: string[];
  startedAt: number;
  elapsedMs: number | undefined;
  session: McpSession | undefined;
  transport: McpTransport | undefined;
  definitions: McpToolDefinition[];
  /** Why it is not running (failed or exited). */
  reason: string | undefined;
  relisting: Promise<void> | undefined;
  relistAgain: boolean;
}

function envMs(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

function failure(text: string, status: ToolStatus, server: string, tool: string): ToolOutcome {
  return { content: [{ type: "text", text }], isError: true, status, details: { mcp_server: server, mcp_tool: tool } };
}

export class McpManager {
  readonly listeners = new Set<(change: McpToolChange) => void>();
  readonly #options: McpManagerOptions;
  readonly #servers = new Map<string, Server>();
  readonly #budget = new DefinitionBudget();
  readonly #startAbort = new AbortController();
  #leaving = false;

  constructor(options: McpManagerOptions) {
    this.#options = options;
    for (const config of options.servers) {
      if (config.disabled === true) continue;
      const logPath = join(options.logsDir, `mcp-${config.name.replace(/[^A-Za-z0-9_.-]/g, "_")}.log`);
      this.#servers.set(config.name, { config, logPath, state: "starting", skipped: [], problems: [], startedAt: 0, elapsedMs: undefined, session: undefined, transport: undefined, definitions: [], reason: undefined, relisting: undefined, relistAgain: false });
    }
  }

  /** Every MCP tool known now (ready servers). */
  tools(): Tool[] {
    return this.toolsByServer().map((entry) => entry.tool);
  }

  /** The same, each with its server's name. */
  toolsByServer(): { readonly server: string; readonly tool: Tool }[] {
    return [...this.#servers.values()].flatMap((server) => server.definitions.map((definition) => ({ server: server.config.name, tool: this.#tool(server, definition) })));
  }

  state(name: string): ServerState | undefined {
    return this.#servers.get(name)?.state;
  }

  report(name: string): McpServerReport | undefined {
    const server = this.#servers.get(name);
    if (server === undefined) return undefined;
    const info = server.session?.info;
    return {
      state: server.state,
      ...(info !== undefined ? { protocolVersion: info.protocolVersion } : {}),
      ...(info?.serverInfo?.name !== undefined ? { serverName: info.serverInfo.name } : {}),
      ...(info?.serverInfo?.version !== undefined ? { serverVersion: info.serverInfo.version } : {}),
      tools: server.definitions.map((definition) => definition.zotName),
      skipped: server.skipped,
      problems: server.problems,
      ...(server.reason !== undefined ? { reason: server.reason } : {}),
      ...(server.elapsedMs !== undefined ? { elapsedMs: server.elapsedMs } : {}),
      ...(server.config.command !== undefined ? { logPath: server.logPath } : {}),
    };
  }

  /** Servers still starting (for the headless wait notice). */
  starting(): McpServerConfig[] {
    return [...this.#servers.values()].filter((server) => server.state === "starting").map((server) => server.config);
  }

  async start(): Promise<void> {
    const bound = this.#options.startTimeoutMs ?? envMs("ZOT_MCP_START_TIMEOUT_MS", DEFAULT_START_TIMEOUT_MS);
    await Promise.all([...this.#servers.values()].map((server) => this.#startOne(server, bound)));
  }

  async shutdown(): Promise<void> {
    this.#leaving = true;
    this.#startAbort.abort();
    await Promise.all([...this.#servers.values()].map((server) => (server.session ?? server.transport)?.close().catch(() => undefined)));
  }

  /** One warning line about a server: "mcp server <name>: <message>" (unless the message names it already), and its log file for stdio servers. */
  #warn(server: Server, message: string): void {
    const { name } = server.config;
    const named = message.startsWith(`mcp server "${name}"`) || message.startsWith(`mcp server ${name}`) ? message : `mcp server ${name}: ${message}`;
    this.#warnLine(server, named);
  }

  #transport(server: Server): McpTransport {
    const { config } = server;
    if (config.command !== undefined) {
      return new StdioTransport({
        name: config.name,
        command: config.command,
        args: config.args ?? [],
        env: config.env ?? {},
        cwd: config.cwd ?? this.#options.cwd,
        logPath: server.logPath,
      });
    }
    if (config.url === undefined) throw new ZotError("mcp_no_transport", `mcp server ${config.name} has neither command nor url`, { server: config.name });
    return createHttpTransport(config);
  }

  async #startOne(server: Server, boundMs: number): Promise<void> {
    const { name } = server.config;
    const abort = AbortSignal.any([this.#startAbort.signal, AbortSignal.timeout(boundMs)]);
    server.startedAt = performance.now();
    try {
      const transport = this.#transport(server);
      server.transport = transport;
      const session = new McpSession(transport, {
        name,
        clientVersion: this.#options.clientVersion,
        cwd: this.#options.cwd,
        onToolsChanged: () => this.#relist(server),
        onLog: (text) => (transport instanceof StdioTransport ? transport.note(`server: ${text}`) : undefined),
        onClose: (reason) => this.#exited(server, reason),
      });
      server.session = session;
      await transport.start();
      const started = Date.now();
      await session.initialize(boundMs, abort);
      const listed = await Promise.race([session.listTools(), rejectOnAbort(abort)]);
      if (abort.aborted) throw abort.reason;
      const { definitions, problems } = this.#define(server, listed);
      for (const problem of [...server.problems, ...problems]) this.#warnLine(server, problem);
      if (transport instanceof StdioTransport) transport.note(`ready in ${Date.now() - started} ms: ${definitions.length} tool(s)`);
      if (server.state !== "starting") return; // it exited meanwhile
      server.state = "ready";
      server.elapsedMs = Math.round(performance.now() - server.startedAt);
      server.definitions = definitions;
      this.#emit(server, definitions, []);
    } catch (err) {
      if (server.state === "starting") {
        server.state = "failed";
        server.elapsedMs = Math.round(performance.now() - server.startedAt);
        const timedOut = abort.aborted && !this.#startAbort.signal.aborted;
        const prefix = `mcp server ${name}`;
        const text = errorMessage(err);
        // "mcp server x: why" → "why"; a transport's own naming (`mcp server "x" (url): …`) is kept whole.
        server.reason = timedOut ? `did not initialize within ${boundMs / 1000} s` : text.startsWith(`${prefix} `) || text.startsWith(`${prefix}:`) ? text.slice(prefix.length).replace(/^:?\s*/, "") : text;
        this.#warn(server, `${server.reason}; its tools are not available`);
      }
      await server.transport?.close().catch(() => undefined);
    }
  }

  /** The definitions of a tools/list answer (the budget charged, `previousBytes` given back); records the server's skipped tools and list problems. */
  #define(server: Server, listed: ListedTools, previousBytes = 0): { definitions: McpToolDefinition[]; problems: string[] } {
    const { name, prefix } = server.config;
    const { definitions, problems, skipped } = toolDefinitions(name, prefix ?? defaultPrefix(name), listed.tools, this.#budget, previousBytes);
    server.skipped = skipped;
    server.problems = listed.problems.map((text) => `mcp server ${name}: ${text}`);
    return { definitions, problems };
  }

  #warnLine(server: Server, problem: string): void {
    // Only a log that exists is pointed at (a command that was never found, or a missing cwd, wrote none).
    const log = server.config.command === undefined || !existsSync(server.logPath) ? "" : ` (log: ${server.logPath})`;
    if (!this.#leaving) this.#options.warn(`zot: warning: ${problem}${log}\n`);
  }

  /** The connection closed. While starting, the start's own failure reports it (its pending request fails with the reason). */
  #exited(server: Server, reason: string): void {
    if (server.state !== "ready") return;
    server.state = "stopped";
    server.reason = reason;
    if (reason !== "closed by zot") this.#warn(server, `${reason}; its tools fail until zot restarts`);
  }

  #emit(server: Server, added: readonly McpToolDefinition[], removed: readonly string[]): void {
    const change: McpToolChange = { server: server.config.name, added: added.map((definition) => this.#tool(server, definition)), removed };
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // a listener's failure must not stop the others
      }
    }
  }

  #relist(server: Server): void {
    if (server.state !== "ready") return;
    if (server.relisting !== undefined) {
      server.relistAgain = true;
      return;
    }
    server.relisting = (async () => {
      do {
        server.relistAgain = false;
        try {
          const listed = await server.session!.listTools();
          if (server.state !== "ready") return;
          const previous = server.definitions;
          const { definitions, problems } = this.#define(server, listed, previous.reduce((sum, d) => sum + d.bytes, 0));
          for (const problem of problems) this.#warnLine(server, problem);
          server.definitions = definitions;
          // Every previous tool leaves and the new list joins: a changed schema or description is picked up too.
          this.#emit(server, definitions, previous.map((definition) => definition.zotName));
        } catch (err) {
          if (server.state === "ready") this.#warn(server, `tools/list after list_changed failed: ${errorMessage(err)}`);
        }
      } while (server.relistAgain);
    })().finally(() => {
      server.relisting = undefined;
    });
  }

  #tool(server: Server, definition: McpToolDefinition): Tool {
    return mcpTool(definition, (def, args, ctx) => this.#call(server, def, args, ctx));
  }

  async #call(server: Server, definition: McpToolDefinition, args: Readonly<Record<string, unknown>>, ctx: ToolContext): Promise<ToolOutcome> {
    const { name } = server.config;
    const tool = definition.mcpName;
    const session = server.session;
    if (server.state !== "ready" || session === undefined) {
      return failure(`mcp server ${name} is not running${server.reason === undefined ? "" : ` (${server.reason})`}; tool ${tool} was not called`, "failed", name, tool);
    }
    const progress = new ProgressLines(ctx.onProgress);
    try {
      const result = await session.callTool(tool, args, {
        signal: ctx.signal,
        timeoutMs: this.#options.callTimeoutMs ?? envMs("ZOT_MCP_CALL_TIMEOUT_MS", DEFAULT_CALL_TIMEOUT_MS),
        onProgress: (report) => progress.report(report),
      });
      progress.finish();
      return mapCallResult(name, tool, result);
    } catch (err) {
      progress.finish();
      const code = err instanceof ZotError ? err.code : "";
      const text = errorMessage(err);
      if (code === "mcp_cancelled") return failure(`mcp ${name}/${tool} was cancelled`, "cancelled", name, tool);
      if (code === "mcp_timeout") return failure(`${text} (timed out; notifications/cancelled sent)`, "timed_out", name, tool);
      return failure(text, "failed", name, tool);
    }
  }
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
