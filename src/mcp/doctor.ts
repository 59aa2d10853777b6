/**
 * `zot mcp doctor`'s probe of one configured server: start it (stdio: spawn
 * in its own process group; HTTP: http-transport.ts), `initialize`,
 * `notifications/initialized`, `tools/list` (every page, at most
 * MAX_TOOL_PAGES), then close. The whole probe is bounded by `timeoutMs`;
 * past it the probe reports what it was waiting for. The report gives the
 * protocol version, server name/version, the tools, and problems (tool
 * entries without a usable name or with an input schema that is not a JSON
 * Schema object of "type": "object" nested at most MAX_VALUE_DEPTH).
 *
 * Stand-in until Part A's session (session.ts) and stdio transport are
 * merged: the JSON-RPC here is the minimum a probe needs (ids, answers to a
 * server's ping, "method not found" for its other requests) and the stdio
 * transport keeps the last STDERR_TAIL_BYTES of stderr for the report instead
 * of a log file. It is closed every time: stdin ended, then SIGTERM to its
 * process group after 0.5 s, SIGKILL after 0.25 s more.
 */
import { statSync } from "node:fs";
import { ZotError, errorMessage } from "../common/errors.ts";
import { MAX_JSON_DEPTH, MAX_VALUE_DEPTH, parseJson, valueTooDeep } from "../common/json.ts";
import { signalGroup, trackSpawned } from "../common/process-tree.ts";
import { ZOT_SEMVER } from "../common/version.ts";
import { mcpTransportKind, type McpServerConfig } from "./config.ts";
import { createHttpTransport } from "./http-transport.ts";
import type { JsonRpcMessage, McpTransport } from "./transport.ts";

export const PROBE_PROTOCOL_VERSION = "2025-06-18";
export const KNOWN_PROTOCOL_VERSIONS = ["2025-06-18", "2025-03-26", "2024-11-05"];
const MAX_TOOL_PAGES = 100;
const MAX_STDIO_LINE_CHARS = 16 * 1024 * 1024;
const STDERR_TAIL_BYTES = 2048;
const EXIT_GRACE_MS = 500;
const KILL_GRACE_MS = 250;

export interface ProbeReport {
  readonly ok: boolean;
  readonly protocolVersion?: string;
  readonly serverName?: string;
  readonly serverVersion?: string;
  readonly tools: readonly string[];
  readonly problems: readonly string[];
  /** Why the probe failed (ok false). */
  readonly error?: string;
  readonly stderrTail?: string;
  readonly elapsedMs: number;
}

/** Minimal stdio transport: LF-delimited JSON objects on stdout; see the contract above. */
class ProbeStdioTransport implements McpTransport {
  private proc: Bun.Subprocess<"pipe", "pipe", "pipe"> | undefined;
  private readonly messageHandlers: ((message: JsonRpcMessage) => void)[] = [];
  private readonly closeHandlers: ((reason: string) => void)[] = [];
  private stderr = new Uint8Array(0);
  private closing: Promise<void> | undefined;
  private failed = false;

  constructor(private readonly config: McpServerConfig) {}

  async start(): Promise<void> {
    const { config } = this;
    const fail = (detail: string): ZotError => new ZotError("mcp.spawn_failed", `mcp server "${config.name}": ${detail}`, { server: config.name });
    if (config.cwd !== undefined && !isDirectory(config.cwd)) throw fail(`"cwd" ${config.cwd} is not a directory`);
    try {
      this.proc = Bun.spawn([config.command!, ...(config.args ?? [])], {
        cwd: config.cwd ?? process.cwd(),
        env: { ...process.env, ...config.env },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
        detached: true,
      });
    } catch (err) {
      throw fail(`cannot start ${config.command} (${errorMessage(err)})`);
    }
    trackSpawned(this.proc, { ownGroup: true });
    void this.readStdout(this.proc.stdout);
    void this.readStderr(this.proc.stderr);
    void this.proc.exited.then((code) => this.fail(this.proc?.signalCode ? `exited on ${this.proc.signalCode}` : `exited with code ${code}`));
  }

  /** LF-delimited lines; only the new text is scanned, so a huge line costs its length once. */
  private async readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let pieces: string[] = [];
    let pendingChars = 0;
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", start)) {
        const line = (pieces.length === 0 ? text.slice(start, newline) : pieces.join("") + text.slice(start, newline)).trim();
        pieces = [];
        pendingChars = 0;
        start = newline + 1;
        const parsed = line === "" ? undefined : parseJson(line, MAX_JSON_DEPTH);
        if (parsed?.ok && typeof parsed.value === "object" && parsed.value !== null && !Array.isArray(parsed.value)) {
          for (const handler of this.messageHandlers) handler(parsed.value as JsonRpcMessage);
        }
      }
      pieces.push(text.slice(start));
      pendingChars += text.length - start;
      if (pendingChars > MAX_STDIO_LINE_CHARS) {
        this.fail(`wrote a line longer than ${MAX_STDIO_LINE_CHARS / 1024 / 1024} Mi characters on stdout`);
        return;
      }
    }
  }

  /** Reports `reason` to the close handlers (once) and stops the server. */
  private fail(reason: string): void {
    if (this.closing || this.failed) return;
    this.failed = true;
    for (const handler of this.closeHandlers) handler(reason);
    void this.close();
  }

  private async readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    for await (const chunk of stream) {
      const joined = new Uint8Array(this.stderr.length + chunk.length);
      joined.set(this.stderr);
      joined.set(chunk, this.stderr.length);
      this.stderr = joined.slice(Math.max(0, joined.length - STDERR_TAIL_BYTES));
    }
  }

  stderrTail(): string {
    return new TextDecoder().decode(this.stderr).trim();
  }

  async send(message: JsonRpcMessage): Promise<void> {
    const proc = this.proc;
    if (!proc || this.closing) throw new ZotError("mcp.closed", `mcp server "${this.config.name}": not running`, { server: this.config.name });
    proc.stdin.write(`${JSON.stringify(message)}\n`);
    await proc.stdin.flush();
  }

  onMessage(handler: (message: JsonRpcMessage) => void): void {
    this.messageHandlers.push(handler);
  }

  onClose(handler: (reason: string) => void): void {
    this.closeHandlers.push(handler);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    try {
      await proc.stdin.end();
    } catch {
      // already gone
    }
    const exited = (ms: number): Promise<boolean> => Promise.race([proc.exited.then(() => true), Bun.sleep(ms).then(() => false)]);
    if (!(await exited(EXIT_GRACE_MS))) {
      signalGroup(proc.pid, "SIGTERM");
      if (!(await exited(KILL_GRACE_MS))) signalGroup(proc.pid, "SIGKILL");
    }
    // Whatever the leader left in its group goes too.
    signalGroup(proc.pid, "SIGKILL");
    await proc.exited;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

class ProbeFailure extends Error {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Problems of one tools/list entry (empty when zot can offer it). */
export function toolProblems(tool: unknown, index: number): { name?: string; problems: string[] } {
  if (!isObject(tool)) return { problems: [`tool #${index + 1}: not an object`] };
  const name = typeof tool.name === "string" && tool.name !== "" ? tool.name : undefined;
  if (name === undefined) return { problems: [`tool #${index + 1}: no "name" string`] };
  const schema = tool.inputSchema;
  const problems: string[] = [];
  if (!isObject(schema)) problems.push(`tool "${name}": "inputSchema" must be a JSON Schema object`);
  else if (valueTooDeep(schema, MAX_VALUE_DEPTH)) problems.push(`tool "${name}": "inputSchema" nests deeper than ${MAX_VALUE_DEPTH} levels`);
  else if (schema.type !== "object") problems.push(`tool "${name}": "inputSchema" must have "type": "object" (got ${JSON.stringify(schema.type ?? null).slice(0, 40)})`);
  return { name, problems };
}

export async function probeServer(config: McpServerConfig, timeoutMs: number): Promise<ProbeReport> {
  const started = Date.now();
  const transport = mcpTransportKind(config) === "http"
    ? createHttpTransport(config, { connectTimeoutMs: timeoutMs, idleTimeoutMs: timeoutMs })
    : new ProbeStdioTransport(config);
  const pending = new Map<number, { resolve: (message: JsonRpcMessage) => void; reject: (error: Error) => void }>();
  let closedReason: string | undefined;
  let nextId = 0;
  transport.onMessage((message) => {
    const id = message.id;
    if (typeof message.method === "string") {
      // A request from the server: answer so it is not left waiting.
      if (id === undefined || id === null) return;
      const answer = message.method === "ping" ? { result: {} } : { error: { code: -32601, message: `zot mcp doctor does not handle ${message.method}` } };
      void transport.send({ jsonrpc: "2.0", id, ...answer }).catch(() => undefined);
      return;
    }
    if (typeof id === "number") {
      pending.get(id)?.resolve(message);
      pending.delete(id);
    }
  });
  transport.onClose((reason) => {
    closedReason = reason;
    for (const waiter of pending.values()) waiter.reject(new ProbeFailure(`the server ${reason}`));
    pending.clear();
  });
  const remaining = (): number => Math.max(0, timeoutMs - (Date.now() - started));
  const call = async (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const id = ++nextId;
    const answer = new Promise<JsonRpcMessage>((resolve, reject) => pending.set(id, { resolve, reject }));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ProbeFailure(`no answer to ${method} within ${timeoutMs} ms`)), remaining());
    });
    try {
      if (closedReason !== undefined) throw new ProbeFailure(`the server ${closedReason}`);
      await Promise.race([transport.send({ jsonrpc: "2.0", id, method, params }), deadline]);
      const message = await Promise.race([answer, deadline]);
      if (isObject(message.error)) throw new ProbeFailure(`${method} failed: ${String(message.error.message ?? "error")} (code ${String(message.error.code)})`);
      if (!isObject(message.result)) throw new ProbeFailure(`${method}: the answer has no result object`);
      return message.result;
    } finally {
      clearTimeout(timer);
      pending.delete(id);
    }
  };
  const problems: string[] = [];
  const tools: string[] = [];
  let info: { protocolVersion?: string; serverName?: string; serverVersion?: string } = {};
  let error: string | undefined;
  try {
    await transport.start();
    const init = await call("initialize", { protocolVersion: PROBE_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "zot", version: ZOT_SEMVER } });
    const serverInfo = isObject(init.serverInfo) ? init.serverInfo : {};
    info = {
      protocolVersion: typeof init.protocolVersion === "string" ? init.protocolVersion : undefined,
      serverName: typeof serverInfo.name === "string" ? serverInfo.name : undefined,
      serverVersion: typeof serverInfo.version === "string" ? serverInfo.version : undefined,
    };
    if (info.protocolVersion === undefined) problems.push("initialize: no protocolVersion in the result");
    else if (!KNOWN_PROTOCOL_VERSIONS.includes(info.protocolVersion)) problems.push(`initialize: protocol version ${info.protocolVersion} is not one zot speaks (${KNOWN_PROTOCOL_VERSIONS.join(", ")})`);
    await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    let cursor: string | undefined;
    let index = 0;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await call("tools/list", cursor === undefined ? {} : { cursor });
      if (!Array.isArray(result.tools)) throw new ProbeFailure('tools/list: the result has no "tools" array');
      for (const tool of result.tools) {
        const checked = toolProblems(tool, index++);
        problems.push(...checked.problems);
        if (checked.name !== undefined && checked.problems.length === 0) {
          if (tools.includes(checked.name)) problems.push(`tool "${checked.name}": listed twice`);
          else tools.push(checked.name);
        }
      }
      cursor = typeof result.nextCursor === "string" && result.nextCursor !== "" ? result.nextCursor : undefined;
      if (cursor === undefined) break;
      if (page === MAX_TOOL_PAGES - 1) problems.push(`tools/list: more than ${MAX_TOOL_PAGES} pages; the rest not read`);
    }
  } catch (err) {
    error = errorMessage(err);
  } finally {
    await transport.close();
  }
  const stderrTail = transport instanceof ProbeStdioTransport ? transport.stderrTail() : "";
  return {
    ok: error === undefined && problems.length === 0,
    ...info,
    tools,
    problems,
    ...(error !== undefined ? { error } : {}),
    ...(stderrTail !== "" ? { stderrTail } : {}),
    elapsedMs: Date.now() - started,
  };
}
