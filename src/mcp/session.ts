/**
 * One MCP client session over a transport (the MCP lifecycle and the tools
 * feature). `initialize` sends protocolVersion PROTOCOL_VERSION with
 * clientInfo {name: "zot", version} and the `roots` capability, accepts an
 * answer in SUPPORTED_PROTOCOL_VERSIONS (anything else is an error naming
 * the version), then sends notifications/initialized. `listTools` follows
 * nextCursor pages, at most MAX_LIST_PAGES pages and MAX_TOOLS_PER_SERVER
 * tools (the rest are dropped and reported). `callTool` sends tools/call
 * with `_meta.progressToken`; notifications/progress for that token go to
 * the call's progress callback and restart its timeout; an aborted call
 * sends notifications/cancelled {requestId, reason}. Server → client
 * requests: ping → {}, roots/list → the working directory as one file://
 * root, anything else (sampling, elicitation, …) → method not found.
 * notifications/tools/list_changed calls `onToolsChanged`;
 * notifications/message goes to `onLog`. Results are validated with valibot;
 * a malformed one is an error naming the server and method. `close()` fails
 * pending calls at once ("closed by zot"), then closes the transport.
 */
import { pathToFileURL } from "node:url";
import * as v from "valibot";
import { ZotError } from "../common/errors.ts";
import { firstProblem, describeProblem } from "../common/validation.ts";
import { JsonRpcClient, JsonRpcErrorReply, METHOD_NOT_FOUND } from "./jsonrpc.ts";
import type { McpTransport } from "./transport.ts";

export const PROTOCOL_VERSION = "2025-06-18";
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ["2025-06-18", "2025-03-26", "2024-11-05"];
export const MAX_TOOLS_PER_SERVER = 128;
export const MAX_LIST_PAGES = 32;
export const LIST_TIMEOUT_MS = 30_000;

const InitializeResult = v.looseObject({
  protocolVersion: v.string(),
  capabilities: v.optional(v.looseObject({}), {}),
  serverInfo: v.optional(v.looseObject({ name: v.optional(v.string()), version: v.optional(v.string()) })),
  instructions: v.optional(v.string()),
});
export type InitializeInfo = v.InferOutput<typeof InitializeResult>;

const ListToolsResult = v.looseObject({ tools: v.array(v.unknown()), nextCursor: v.optional(v.string()) });
const CallToolResult = v.looseObject({
  content: v.optional(v.array(v.unknown()), []),
  structuredContent: v.optional(v.unknown()),
  isError: v.optional(v.boolean()),
});
export type CallToolOutput = v.InferOutput<typeof CallToolResult>;

const ProgressParams = v.looseObject({
  progressToken: v.union([v.string(), v.number()]),
  progress: v.number(),
  total: v.optional(v.number()),
  message: v.optional(v.string()),
});

export interface ProgressReport {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export interface SessionOptions {
  readonly name: string;
  readonly clientVersion: string;
  readonly cwd: string;
  readonly onToolsChanged?: () => void;
  readonly onLog?: (text: string) => void;
  /** The connection closed (crash, EOF, closed by zot); pending calls have failed already. */
  readonly onClose?: (reason: string) => void;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly onProgress?: (report: ProgressReport) => void;
}

export interface ListedTools {
  /** Raw tool entries as the server sent them (validated one by one in tools.ts). */
  readonly tools: readonly unknown[];
  /** Why some were not listed (too many, too many pages). */
  readonly problems: readonly string[];
}

function checked<T extends v.GenericSchema>(schema: T, value: unknown, name: string, method: string): v.InferOutput<T> {
  const parsed = v.safeParse(schema, value);
  if (parsed.success) return parsed.output;
  const detail = describeProblem(firstProblem(parsed.issues));
  throw new ZotError("mcp_bad_result", `mcp server ${name} answered ${method} with an invalid result: ${detail}`, { server: name, method });
}

export class McpSession {
  readonly name: string;
  readonly #rpc: JsonRpcClient;
  readonly #transport: McpTransport;
  readonly #options: SessionOptions;
  readonly #progress = new Map<string, { readonly id: () => number | undefined; readonly report: (report: ProgressReport) => void }>();
  #nextToken = 1;
  #info: InitializeInfo | undefined;

  constructor(transport: McpTransport, options: SessionOptions) {
    this.name = options.name;
    this.#options = options;
    this.#transport = transport;
    this.#rpc = new JsonRpcClient(transport, {
      name: options.name,
      onNotification: (method, params) => this.#notification(method, params),
      onRequest: (method) => this.#request(method),
      onProblem: (detail) => options.onLog?.(`protocol: ${detail}`),
      onClose: (reason) => options.onClose?.(reason),
    });
  }

  get info(): InitializeInfo | undefined {
    return this.#info;
  }

  /** Why the connection closed; undefined while it is open. */
  get closedReason(): string | undefined {
    return this.#rpc.closedReason;
  }

  get supportsListChanged(): boolean {
    const tools = this.#info?.capabilities.tools;
    return typeof tools === "object" && tools !== null && (tools as Record<string, unknown>).listChanged === true;
  }

  /** Closes the session: pending calls fail at once ("closed by zot"), then the transport is closed. */
  async close(): Promise<void> {
    // Queued notifications (a cancellation) were handed to the transport already; the transport sends them before EOF.
    this.#rpc.dispose("closed by zot");
    await this.#transport.close();
  }

  async initialize(timeoutMs: number, signal?: AbortSignal): Promise<InitializeInfo> {
    const result = await this.#rpc.request(
      "initialize",
      {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: { roots: { listChanged: false } },
        clientInfo: { name: "zot", version: this.#options.clientVersion },
      },
      { timeoutMs, signal },
    );
    const info = checked(InitializeResult, result, this.name, "initialize");
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(info.protocolVersion)) {
      throw new ZotError(
        "mcp_protocol_version",
        `mcp server ${this.name} speaks protocol version ${JSON.stringify(info.protocolVersion).slice(0, 40)}; zot supports ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`,
        { server: this.name },
      );
    }
    this.#info = info;
    this.#rpc.notify("notifications/initialized");
    return info;
  }

  async listTools(): Promise<ListedTools> {
    const tools: unknown[] = [];
    const problems: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= MAX_LIST_PAGES) {
        problems.push(`tools/list had more than ${MAX_LIST_PAGES} pages; the rest were not read`);
        break;
      }
      const result = await this.#rpc.request("tools/list", cursor === undefined ? {} : { cursor }, { timeoutMs: LIST_TIMEOUT_MS });
      const listed = checked(ListToolsResult, result, this.name, "tools/list");
      for (const tool of listed.tools) {
        if (tools.length < MAX_TOOLS_PER_SERVER) tools.push(tool);
        else {
          problems.push(`more than ${MAX_TOOLS_PER_SERVER} tools; the rest were not loaded`);
          return { tools, problems };
        }
      }
      if (listed.nextCursor === undefined || listed.nextCursor === "" || listed.nextCursor === cursor) break;
      cursor = listed.nextCursor;
    }
    return { tools, problems };
  }

  async callTool(name: string, args: Readonly<Record<string, unknown>>, options: CallOptions = {}): Promise<CallToolOutput> {
    const token = `zot-${this.#nextToken++}`;
    let requestId: number | undefined;
    if (options.onProgress !== undefined) this.#progress.set(token, { id: () => requestId, report: options.onProgress });
    const onAbort = (): void => {
      if (requestId !== undefined) this.#rpc.notify("notifications/cancelled", { requestId, reason: "the user cancelled the tool call" });
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const result = await this.#rpc.request(
        "tools/call",
        { name, arguments: args, _meta: { progressToken: token } },
        { timeoutMs: options.timeoutMs, signal: options.signal, onId: (id) => (requestId = id) },
      );
      return checked(CallToolResult, result, this.name, "tools/call");
    } catch (err) {
      if (err instanceof ZotError && err.code === "mcp_timeout" && requestId !== undefined) {
        this.#rpc.notify("notifications/cancelled", { requestId, reason: "timed out" });
      }
      throw err;
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      this.#progress.delete(token);
    }
  }

  #notification(method: string, params: unknown): void {
    if (method === "notifications/progress") {
      const parsed = v.safeParse(ProgressParams, params);
      if (!parsed.success) return;
      const entry = this.#progress.get(String(parsed.output.progressToken));
      if (entry === undefined) return;
      const id = entry.id();
      if (id !== undefined) this.#rpc.extend(id);
      const { progress, total, message } = parsed.output;
      entry.report({ progress, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) });
    } else if (method === "notifications/tools/list_changed") {
      this.#options.onToolsChanged?.();
    } else if (method === "notifications/message") {
      const record = typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {};
      const data = typeof record.data === "string" ? record.data : JSON.stringify(record.data ?? null);
      this.#options.onLog?.(`${String(record.level ?? "info")}: ${data.slice(0, 4096)}`);
    }
  }

  #request(method: string): unknown {
    if (method === "ping") return {};
    if (method === "roots/list") return { roots: [{ uri: pathToFileURL(this.#options.cwd).href, name: "working directory" }] };
    throw new JsonRpcErrorReply(METHOD_NOT_FOUND, `zot does not support ${method}`);
  }
}
