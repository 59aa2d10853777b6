/**
 * Streamable HTTP client transport (MCP 2025-06-18 / 2025-03-26), an
 * McpTransport (transport.ts). Every message is a POST of its JSON to the URL
 * with `Accept: application/json, text/event-stream`; the configured
 * `headers` go on every request (their values are never printed). The
 * `Mcp-Session-Id` of the initialize response, and `MCP-Protocol-Version`
 * once the initialize result names one, go on every later request.
 *
 * send() resolves once the server accepted the message (2xx headers) and
 * rejects with a ZotError naming the server and URL (no query string) when it
 * did not: connection failure, no headers within the bound, a non-2xx status
 * (the first 4 KiB of the body in the message), a redirect (not followed:
 * headers would travel to another address), a request answered 202. For a
 * request, the body (application/json: one message or a batch;
 * text/event-stream: any number of messages, the response among them) is read
 * in the background and each message goes to onMessage; when that body fails
 * or ends without the response (too large, malformed, idle too long, dropped)
 * onMessage gets a JSON-RPC error response for the request id (code -32000)
 * saying why, so the call fails at once. Sending `notifications/cancelled`
 * drops the cancelled request's stream without such a response.
 *
 * Bounds: MAX_HTTP_MESSAGE_BYTES (16 MiB) per message (SSE: 16 Mi characters
 * per line and per event); response headers within connectTimeoutMs (30 s;
 * for requests other than initialize within idleTimeoutMs: a server may
 * compute before it answers); no gap longer than idleTimeoutMs (300 s) in a
 * body. After `notifications/initialized` is accepted, a GET opens the
 * server's own SSE stream (405 or any other refusal: none; reopened after it
 * ends, up to 3 times in a row without a message). A 404 to a request that
 * carried a session id means the session expired: onClose fires (once) and the
 * transport is closed. close() aborts every request and stream, then sends
 * DELETE with the session id (bounded by 2 s; any answer accepted); onClose
 * does not fire for close().
 */
import { settledOrAborted } from "../common/abortable-wait.ts";
import { ZotError, errorMessage } from "../common/errors.ts";
import { describeErrorBody, oneLine, readCapped } from "../providers/http-errors.ts";
import { BodyProblem, idleWatched, readJsonMessages, readSseMessages } from "./http-body.ts";
import type { McpServerConfig } from "./config.ts";
import type { JsonRpcMessage, McpTransport } from "./transport.ts";

export const MAX_HTTP_MESSAGE_BYTES = 16 * 1024 * 1024;
export const HTTP_ERROR_BODY_BYTES = 4096;
export const HTTP_CONNECT_TIMEOUT_MS = 30_000;
export const HTTP_IDLE_TIMEOUT_MS = 300_000;
const DELETE_TIMEOUT_MS = 2_000;
const STREAM_RETRY_DELAY_MS = 1_000;
const STREAM_MAX_EMPTY_RETRIES = 3;
/** JSON-RPC error code of the responses this transport makes up when a body fails. */
export const TRANSPORT_ERROR_CODE = -32000;

export interface HttpTransportOptions {
  /** Server name (the key in mcpServers), for messages. */
  readonly server: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly connectTimeoutMs?: number;
  readonly idleTimeoutMs?: number;
  readonly maxMessageBytes?: number;
  /** Open the GET stream for server-initiated messages (default true). */
  readonly serverStream?: boolean;
}

type RequestId = string | number;

/** The transport of a configured `url` server (what the manager's createTransport hook needs). */
export function createHttpTransport(config: Pick<McpServerConfig, "name" | "url" | "headers">, bounds: Partial<HttpTransportOptions> = {}): StreamableHttpTransport {
  return new StreamableHttpTransport({ server: config.name, url: config.url ?? "", ...(config.headers ? { headers: config.headers } : {}), ...bounds });
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SESSION_ID = /^[\x21-\x7e]{1,1024}$/;

function requestIdOf(message: JsonRpcMessage): RequestId | undefined {
  const id = message.id;
  return typeof message.method === "string" && (typeof id === "string" || typeof id === "number") ? id : undefined;
}

export class StreamableHttpTransport implements McpTransport {
  private readonly label: string;
  private readonly connectMs: number;
  private readonly idleMs: number;
  private readonly maxBytes: number;
  private readonly lifetime = new AbortController();
  private readonly messageHandlers: ((message: JsonRpcMessage) => void)[] = [];
  private readonly closeHandlers: ((reason: string) => void)[] = [];
  /** Open request bodies by request id, to drop on notifications/cancelled. */
  private readonly streams = new Map<RequestId, AbortController>();
  private readonly readers = new Set<Promise<void>>();
  /** Streams dropped by notifications/cancelled: they get no made-up error response. */
  private readonly cancelled = new WeakSet<AbortController>();
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private initializeId: RequestId | undefined;
  private serverStreamOpened = false;
  private closing: Promise<void> | undefined;
  private closeReported = false;

  constructor(private readonly options: HttpTransportOptions) {
    let where = options.url;
    try {
      const url = new URL(options.url);
      where = `${url.origin}${url.pathname}`;
    } catch {
      // start() reports it
    }
    this.label = `mcp server "${options.server}" (${where})`;
    this.connectMs = options.connectTimeoutMs ?? HTTP_CONNECT_TIMEOUT_MS;
    this.idleMs = options.idleTimeoutMs ?? HTTP_IDLE_TIMEOUT_MS;
    this.maxBytes = options.maxMessageBytes ?? MAX_HTTP_MESSAGE_BYTES;
  }

  private error(code: string, detail: string, cause?: unknown): ZotError {
    return new ZotError(`mcp.http_${code}`, `${this.label}: ${detail}`, { server: this.options.server }, cause === undefined ? undefined : { cause });
  }

  async start(): Promise<void> {
    let url: URL;
    try {
      url = new URL(this.options.url);
    } catch {
      throw this.error("bad_url", "not a valid URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw this.error("bad_url", `expected an http:// or https:// URL (got ${url.protocol})`);
    for (const [name, value] of Object.entries(this.options.headers ?? {})) {
      if (!HEADER_NAME.test(name)) throw this.error("bad_header", `header name "${name}" is not a valid HTTP header name`);
      if (/[\0\r\n]/.test(value)) throw this.error("bad_header", `header "${name}": the value holds a line break or NUL`);
    }
  }

  onMessage(handler: (message: JsonRpcMessage) => void): void {
    this.messageHandlers.push(handler);
  }

  onClose(handler: (reason: string) => void): void {
    this.closeHandlers.push(handler);
  }

  private get closed(): boolean {
    return this.closing !== undefined;
  }

  private headers(accept: string, body: boolean): Headers {
    const headers = new Headers();
    for (const [name, value] of Object.entries(this.options.headers ?? {})) headers.set(name, value);
    headers.set("Accept", accept);
    if (body) headers.set("Content-Type", "application/json");
    if (this.sessionId !== undefined) headers.set("Mcp-Session-Id", this.sessionId);
    if (this.protocolVersion !== undefined) headers.set("MCP-Protocol-Version", this.protocolVersion);
    return headers;
  }

  /**
   * fetch with the response headers bounded by `headersMs`; close() aborts
   * `own` until the caller aborts it itself (which it does once the exchange
   * is over: that also drops the close() listener).
   */
  private async request(what: string, init: RequestInit, headersMs: number, own: AbortController): Promise<Response> {
    this.lifetime.signal.addEventListener("abort", () => own.abort(), { once: true, signal: own.signal });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      own.abort();
    }, headersMs);
    try {
      return await fetch(this.options.url, { ...init, signal: own.signal, redirect: "manual" });
    } catch (err) {
      if (this.closed) throw this.error("closed", `${what}: connection closed`);
      if (timedOut) throw this.error("timeout", `${what}: no response within ${headersMs} ms`);
      throw this.error("network", `${what}: cannot connect (${errorMessage(err)})`, err);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Throws for a status send() does not accept; a 404 on a session ends the transport. */
  private async refuse(response: Response, method: string, hadSession: boolean): Promise<never> {
    const body = response.body ? await readCapped(response.body, HTTP_ERROR_BODY_BYTES).catch(() => "") : "";
    const detail = oneLine(describeErrorBody(body)) || response.statusText || "request failed";
    const status = response.status;
    if (status >= 300 && status < 400) {
      throw this.error("redirect", `${method}: HTTP ${status} redirect not followed (to ${oneLine(response.headers.get("location") ?? "?", 200)}); set the url to the final address`);
    }
    if (status === 404 && hadSession) {
      this.lost("session expired (HTTP 404)");
      throw this.error("session_expired", `${method}: session expired (HTTP 404)`);
    }
    const hint = status === 401 || status === 403 ? " (check the server's \"headers\", e.g. Authorization: Bearer …; OAuth sign-in is not supported)" : "";
    throw this.error("status", `${method}: HTTP ${status} ${detail}${hint}`);
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.closed) throw this.error("closed", "connection closed");
    const id = requestIdOf(message);
    const method = typeof message.method === "string" ? message.method : "response";
    if (id !== undefined && method === "initialize") this.initializeId = id;
    const own = new AbortController();
    const hadSession = this.sessionId !== undefined;
    const headersMs = id === undefined || method === "initialize" ? this.connectMs : this.idleMs;
    let reading = false;
    try {
      const response = await this.request(method, { method: "POST", headers: this.headers("application/json, text/event-stream", true), body: JSON.stringify(message) }, headersMs, own);
      reading = await this.accept(response, message, id, method, hadSession, own);
    } finally {
      if (!reading) own.abort();
    }
  }

  /** Checks the answer to a POST; true when its body is being read in the background. */
  private async accept(response: Response, message: JsonRpcMessage, id: RequestId | undefined, method: string, hadSession: boolean, own: AbortController): Promise<boolean> {
    if (response.status < 200 || response.status > 299) await this.refuse(response, method, hadSession);
    if (method === "initialize") {
      const session = response.headers.get("mcp-session-id");
      if (session !== null) {
        if (!SESSION_ID.test(session)) {
          await response.body?.cancel().catch(() => undefined);
          throw this.error("bad_session", "initialize: the Mcp-Session-Id header is not 1-1024 visible ASCII characters");
        }
        this.sessionId = session;
      }
    }
    if (id === undefined) {
      await response.body?.cancel().catch(() => undefined);
      if (method === "notifications/cancelled") this.dropCancelled(message);
      if (method === "notifications/initialized") this.openServerStream();
      return false;
    }
    if (response.status === 202 || response.body === null) throw this.error("protocol", `${method}: HTTP ${response.status} without a response body for a request`);
    const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json" && type !== "text/event-stream") {
      await response.body.cancel().catch(() => undefined);
      throw this.error("protocol", `${method}: unexpected Content-Type "${oneLine(type, 100)}" (expected application/json or text/event-stream)`);
    }
    this.streams.set(id, own);
    this.track(this.readBody(response, type === "text/event-stream", id, method, own));
    return true;
  }

  private track(reader: Promise<void>): void {
    this.readers.add(reader);
    void reader.finally(() => this.readers.delete(reader));
  }

  private deliver(message: JsonRpcMessage): void {
    if (this.closed) return;
    if (this.initializeId !== undefined && message.id === this.initializeId) {
      const result = message.result;
      const version = typeof result === "object" && result !== null ? (result as Record<string, unknown>).protocolVersion : undefined;
      if (typeof version === "string" && SESSION_ID.test(version)) this.protocolVersion = version;
    }
    for (const handler of this.messageHandlers) handler(message);
  }

  private async readBody(response: Response, sse: boolean, id: RequestId, method: string, own: AbortController): Promise<void> {
    let answered = false;
    let idle = false;
    const onIdle = (): void => {
      idle = true;
      own.abort();
    };
    const body = idleWatched(response.body!, this.idleMs, onIdle);
    const take = (message: JsonRpcMessage): void => {
      if (message.id === id && ("result" in message || "error" in message)) answered = true;
      this.deliver(message);
    };
    let failure: string | undefined;
    try {
      if (sse) for await (const message of readSseMessages(body, this.maxBytes)) take(message);
      else for (const message of await readJsonMessages(new Response(body, { headers: response.headers }), this.maxBytes)) take(message);
      if (!answered) failure = sse ? "the event stream ended without the response" : "the response body holds no response for the request";
    } catch (err) {
      if (!answered) failure = idle ? `no data for ${this.idleMs} ms` : err instanceof BodyProblem ? err.message : `connection lost (${errorMessage(err)})`;
    } finally {
      await body.cancel().catch(() => undefined);
      if (this.streams.get(id) === own) this.streams.delete(id);
      own.abort();
    }
    // Closed, or cancelled by the client: nobody waits for this response any more.
    if (failure === undefined || this.closed || this.cancelled.has(own)) return;
    this.deliver({ jsonrpc: "2.0", id, error: { code: TRANSPORT_ERROR_CODE, message: `${this.label}: ${method}: ${failure}` } });
  }

  private dropCancelled(message: JsonRpcMessage): void {
    const params = message.params;
    const requestId = typeof params === "object" && params !== null ? (params as Record<string, unknown>).requestId : undefined;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const stream = this.streams.get(requestId);
    if (stream === undefined) return;
    this.cancelled.add(stream);
    stream.abort();
  }

  private openServerStream(): void {
    if (this.serverStreamOpened || this.options.serverStream === false) return;
    this.serverStreamOpened = true;
    this.track(this.serverStreamLoop());
  }

  /** The optional GET stream: reopened after it ends, until it is refused or ends empty STREAM_MAX_EMPTY_RETRIES times in a row. */
  private async serverStreamLoop(): Promise<void> {
    let empty = 0;
    while (!this.closed && empty < STREAM_MAX_EMPTY_RETRIES) {
      const own = new AbortController();
      let delivered = false;
      try {
        const hadSession = this.sessionId !== undefined;
        const response = await this.request("GET", { method: "GET", headers: this.headers("text/event-stream", false) }, this.connectMs, own);
        const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
        if (response.status === 404 && hadSession) {
          await this.refuse(response, "GET", true);
        }
        if (response.status !== 200 || type !== "text/event-stream" || response.body === null) {
          await response.body?.cancel().catch(() => undefined);
          return;
        }
        for await (const message of readSseMessages(response.body, this.maxBytes)) {
          delivered = true;
          this.deliver(message);
        }
      } catch {
        // dropped or malformed: counts as an empty round unless messages came
      } finally {
        own.abort();
      }
      empty = delivered ? 0 : empty + 1;
      if (this.closed) return;
      await settledOrAborted(Bun.sleep(STREAM_RETRY_DELAY_MS), this.lifetime.signal);
    }
  }

  /** The session is gone: close without DELETE and tell the owner once. */
  private lost(reason: string): void {
    if (this.closed || this.closeReported) return;
    this.closeReported = true;
    this.sessionId = undefined;
    void this.close();
    for (const handler of this.closeHandlers) handler(reason);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.lifetime.abort();
    await Promise.allSettled([...this.readers]);
    if (this.sessionId === undefined) return;
    const own = new AbortController();
    const timer = setTimeout(() => own.abort(), DELETE_TIMEOUT_MS);
    try {
      const response = await fetch(this.options.url, { method: "DELETE", headers: this.headers("application/json, text/event-stream", false), signal: own.signal, redirect: "manual" });
      await response.body?.cancel().catch(() => undefined);
    } catch {
      // best effort: the server ends idle sessions itself
    } finally {
      clearTimeout(timer);
    }
  }
}
