/**
 * src/mcp/http-transport.ts against the real Streamable HTTP test server
 * (test/fixtures/mcp/http-server.ts): the initialize → tools/list →
 * tools/call round trip with JSON and SSE answers, the session id and
 * protocol version headers, the bearer on every request, the GET stream,
 * DELETE on close, session expiry → onClose; and hostile servers: an endless
 * body (JSON and SSE), one that hangs, malformed JSON and SSE, 401 without
 * the bearer, a stream that ends without the response. Bounds are set small
 * where the default would only make the test slow.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { StreamableHttpTransport, TRANSPORT_ERROR_CODE, type HttpTransportOptions } from "../../src/mcp/http-transport.ts";
import type { JsonRpcMessage } from "../../src/mcp/transport.ts";
import { startMcpHttpServer, type McpHttpServer } from "../fixtures/mcp/http-server.ts";

const TOKEN = "t0ken-value-never-printed";
let server: McpHttpServer;
const open: StreamableHttpTransport[] = [];

beforeAll(() => {
  server = startMcpHttpServer({ token: TOKEN });
});
afterAll(() => server.stop());
afterEach(async () => {
  await Promise.all(open.splice(0).map((transport) => transport.close()));
  server.log.length = 0;
});

interface Client {
  readonly transport: StreamableHttpTransport;
  readonly notifications: JsonRpcMessage[];
  readonly closes: string[];
  call(method: string, params?: Record<string, unknown>): Promise<JsonRpcMessage>;
}

function client(path: string, options: Partial<HttpTransportOptions> = {}): Client {
  const transport = new StreamableHttpTransport({ server: "web", url: server.url(path), headers: { Authorization: `Bearer ${TOKEN}` }, ...options });
  open.push(transport);
  const pending = new Map<unknown, (message: JsonRpcMessage) => void>();
  const notifications: JsonRpcMessage[] = [];
  const closes: string[] = [];
  transport.onMessage((message) => {
    const waiter = pending.get(message.id);
    if (waiter && ("result" in message || "error" in message)) {
      pending.delete(message.id);
      waiter(message);
    } else notifications.push(message);
  });
  transport.onClose((reason) => closes.push(reason));
  let nextId = 0;
  return {
    transport,
    notifications,
    closes,
    async call(method, params) {
      const id = ++nextId;
      const answer = new Promise<JsonRpcMessage>((resolve) => pending.set(id, resolve));
      await transport.send({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
      return answer;
    },
  };
}

const INIT_PARAMS = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "zot-test", version: "0" } };

async function initialize(c: Client): Promise<JsonRpcMessage> {
  await c.transport.start();
  const answer = await c.call("initialize", INIT_PARAMS);
  await c.transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return answer;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await Bun.sleep(10);
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

describe("Streamable HTTP round trip", () => {
  test("initialize (JSON), tools/list and tools/call (SSE, with progress), headers on every request, DELETE on close", async () => {
    const c = client("/mcp");
    const init = await initialize(c);
    expect(init.result).toMatchObject({ protocolVersion: "2025-06-18", serverInfo: { name: "http-echo", version: "1.2.3" } });
    const list = await c.call("tools/list");
    expect((list.result as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toEqual(["echo"]);
    const call = await c.call("tools/call", { name: "echo", arguments: { text: "héllo" }, _meta: { progressToken: "p1" } });
    expect(call.result).toEqual({ content: [{ type: "text", text: "héllo" }] });
    expect(c.notifications.some((message) => message.method === "notifications/progress")).toBe(true);
    // The GET stream delivers the server's own notification.
    await until(() => c.notifications.some((message) => message.method === "notifications/tools/list_changed"), "list_changed on the GET stream");
    const ping = await c.call("ping");
    expect(ping.result).toEqual({});

    const session = server.log.find((entry) => entry.rpcMethod === "initialize")!;
    expect(session.sessionId).toBeNull();
    expect(session.protocolVersion).toBeNull();
    const later = server.log.filter((entry) => entry.rpcMethod !== "initialize");
    expect(later.length).toBeGreaterThan(3);
    const sessionId = later[0]!.sessionId;
    expect(sessionId).toStartWith("session-");
    for (const entry of server.log) expect(entry.authorization).toBe(`Bearer ${TOKEN}`);
    for (const entry of later) expect([entry.sessionId, entry.protocolVersion]).toEqual([sessionId, "2025-06-18"]);
    const post = server.log.find((entry) => entry.httpMethod === "POST")!;
    expect(post.accept).toBe("application/json, text/event-stream");
    expect(server.log.some((entry) => entry.httpMethod === "GET" && entry.accept === "text/event-stream")).toBe(true);

    await c.transport.close();
    await c.transport.close();
    expect(server.deletedSessions).toContain(sessionId!);
    expect(c.closes).toEqual([]);
    await expect(c.transport.send({ jsonrpc: "2.0", id: 99, method: "ping" })).rejects.toThrow('mcp server "web"');
  });

  test("a GET refused with 405 is skipped", async () => {
    const quiet = startMcpHttpServer({ getStream: false });
    try {
      const transport = new StreamableHttpTransport({ server: "quiet", url: quiet.url() });
      open.push(transport);
      const answers: JsonRpcMessage[] = [];
      transport.onMessage((message) => answers.push(message));
      await transport.start();
      await transport.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: INIT_PARAMS });
      await until(() => answers.length === 1, "the initialize answer");
      await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await transport.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      await until(() => answers.length === 2, "two answers");
      await until(() => quiet.log.some((entry) => entry.httpMethod === "GET"), "the GET");
      await Bun.sleep(50);
      expect(quiet.log.filter((entry) => entry.httpMethod === "GET")).toHaveLength(1);
      await transport.close();
    } finally {
      await quiet.stop();
    }
  });

  test("404 on a session: onClose once, the transport is closed", async () => {
    const c = client("/expire");
    await initialize(c).catch(() => undefined);
    await until(() => c.closes.length > 0, "onClose");
    expect(c.closes).toEqual(["session expired (HTTP 404)"]);
    await expect(c.transport.send({ jsonrpc: "2.0", id: 5, method: "ping" })).rejects.toThrow("connection closed");
  });
});

describe("hostile servers", () => {
  test("401 without the bearer names the server, the URL and the headers field, never the token", async () => {
    const transport = new StreamableHttpTransport({ server: "web", url: `${server.url("/mcp")}?key=secret-query`, headers: { Authorization: "Bearer wrong-token" } });
    open.push(transport);
    await transport.start();
    let message = "";
    await transport.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: INIT_PARAMS }).catch((err: Error) => (message = err.message));
    expect(message).toContain(`mcp server "web" (${server.url("/mcp")}): initialize: HTTP 401`);
    expect(message).toContain('"headers"');
    expect(message).not.toContain("wrong-token");
    expect(message).not.toContain("secret-query");
  });

  test("a redirect is not followed (the bearer would travel with it)", async () => {
    const c = client("/redirect");
    await expect(c.call("initialize", INIT_PARAMS)).rejects.toThrow("initialize: HTTP 307 redirect not followed (to https://elsewhere.example/mcp); set the url to the final address");
    expect(server.log.filter((entry) => entry.path === "/redirect")).toHaveLength(1);
  });

  test("an endless JSON body stops at the per-message bound with an error response", async () => {
    const c = client("/huge-json", { maxMessageBytes: 1024 * 1024 });
    await c.transport.start();
    const answer = await c.call("initialize", INIT_PARAMS);
    expect(answer.error).toEqual({ code: TRANSPORT_ERROR_CODE, message: expect.stringContaining("response larger than 1 MiB (the per-message limit)") });
  });

  test("an endless SSE event stops at the default 16 MiB bound", async () => {
    const c = client("/huge-sse");
    await c.transport.start();
    const answer = await c.call("initialize", INIT_PARAMS);
    expect((answer.error as { message: string }).message).toMatch(/mcp server "web" .*initialize: SSE (line longer|event larger) than 16 Mi characters/);
  });

  test("a server that never answers: bounded by the connect timeout; close() ends a hung request", async () => {
    const c = client("/hang", { connectTimeoutMs: 300 });
    await c.transport.start();
    await expect(c.call("initialize", INIT_PARAMS)).rejects.toThrow("initialize: no response within 300 ms");
    const other = client("/hang");
    const hung = other.call("initialize", INIT_PARAMS);
    await until(() => server.log.filter((entry) => entry.path === "/hang").length === 2, "the second request");
    await other.transport.close();
    await expect(hung).rejects.toThrow("connection closed");
  });

  test("malformed JSON and malformed SSE are error responses naming the problem", async () => {
    const json = client("/bad-json");
    const badJson = await json.call("initialize", INIT_PARAMS);
    expect((badJson.error as { message: string }).message).toContain("initialize: response body is not valid JSON");
    const stream = client("/bad-sse");
    const badSse = await stream.call("initialize", INIT_PARAMS);
    expect((badSse.error as { message: string }).message).toContain("initialize: SSE event data is not valid JSON");
  });

  test("an SSE stream that ends without the response fails the request at once", async () => {
    const c = client("/drop-sse");
    await initialize(c);
    const answer = await c.call("tools/list");
    expect((answer.error as { message: string }).message).toContain("tools/list: the event stream ended without the response");
    expect(c.notifications.some((message) => message.method === "notifications/message")).toBe(true);
  });

  test("a stream that stalls after its headers fails after the idle timeout", async () => {
    const c = client("/stall", { idleTimeoutMs: 300 });
    await initialize(c);
    const answer = await c.call("tools/list");
    expect((answer.error as { message: string }).message).toContain("tools/list: no data for 300 ms");
  });

  test("close() ends a stalled answer stream and the open GET stream at once; a cancelled request gets no made-up answer", async () => {
    const c = client("/stall");
    await initialize(c);
    await until(() => c.notifications.some((message) => message.method === "notifications/tools/list_changed"), "the GET stream");
    let answered = false;
    void c.call("tools/list").then(() => (answered = true));
    await until(() => server.log.filter((entry) => entry.rpcMethod === "tools/list").length === 1, "the tools/list request");
    await c.transport.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2, reason: "test" } });
    const stalled = c.call("tools/list");
    await until(() => server.log.filter((entry) => entry.rpcMethod === "tools/list").length === 2, "the second tools/list");
    await c.transport.close();
    await Bun.sleep(20);
    expect(answered).toBe(false);
    let settled = false;
    void stalled.then(() => (settled = true));
    await Bun.sleep(20);
    expect(settled).toBe(false);
  });

  test("bad URLs and header names are refused by start() naming the field, not the value", async () => {
    await expect(new StreamableHttpTransport({ server: "x", url: "ftp://h/x" }).start()).rejects.toThrow("expected an http:// or https:// URL");
    await expect(new StreamableHttpTransport({ server: "x", url: "http://h/x", headers: { "Bad Name": "v" } }).start()).rejects.toThrow('header name "Bad Name"');
    const error = await new StreamableHttpTransport({ server: "x", url: "http://h/x", headers: { Authorization: "Bearer a\r\nX: y" } }).start().catch((err: Error) => err.message);
    expect(error).toContain('header "Authorization"');
    expect(error).not.toContain("Bearer a");
  });

  test("a refused connection names the server and URL", async () => {
    const gone = startMcpHttpServer();
    const url = gone.url();
    await gone.stop();
    const transport = new StreamableHttpTransport({ server: "gone", url });
    open.push(transport);
    await expect(transport.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: INIT_PARAMS })).rejects.toThrow(`mcp server "gone" (${url}): initialize: cannot connect`);
  });
});
