/**
 * A Streamable HTTP MCP server (test/fixtures/mcp/http-server.ts, in the
 * test process) end to end through dist/zot: a bearer `headers` entry with
 * ${VAR}, the model calls `web__echo`, the progress notification arrives as
 * tool_progress, the result comes back, and the session is deleted at exit;
 * a server answering 401 is one warning, the rest works.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMcpHttpServer, type McpHttpServer } from "../fixtures/mcp/http-server.ts";
import { parseJsonLines, toolResultsSent } from "../modes/helpers.ts";
import { serverEntry, useMcpEnv, type McpEnv } from "./helpers.ts";

let env: McpEnv;
let http: McpHttpServer;
useMcpEnv((created) => {
  env = created;
  http = startMcpHttpServer({ token: "right-token" });
}, () => http.stop());

test("the model calls a tool of a Streamable HTTP server with a bearer token; progress and result arrive; the session is deleted at exit", async () => {
  writeFileSync(join(env.home, "mcp.json"), JSON.stringify({ mcpServers: { web: { url: http.url(), headers: { Authorization: "Bearer ${MCP_TOKEN}" } }, local: serverEntry("ts:good", env.markers) } }));
  env.server.enqueue({ type: "tool_calls", calls: [{ id: "c_web", name: "web__echo", arguments: { text: "over http" } }] }, { type: "text", text: "done" });
  const result = await env.run(["--json", "go", ...env.providerArgs()], { env: { MCP_TOKEN: "right-token" } });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(toolResultsSent(env.server.requests[1]).get("c_web")).toBe("over http");
  expect(parseJsonLines(result.stdout).filter((event) => event.type === "tool_progress").map((event) => event.text)).toEqual(["[1/2]\n"]);
  const calls = http.log.filter((entry) => entry.rpcMethod === "tools/call");
  expect(calls).toHaveLength(1);
  expect(calls[0]?.authorization).toBe("Bearer right-token");
  expect(calls[0]?.protocolVersion).toBe("2025-06-18");
  expect(http.deletedSessions).toHaveLength(1);
});

test("an HTTP server that refuses the token is one warning naming it; the stdio server works", async () => {
  writeFileSync(join(env.home, "mcp.json"), JSON.stringify({ mcpServers: { web: { url: http.url(), headers: { Authorization: "Bearer wrong" } }, local: serverEntry("ts:good", env.markers) } }));
  env.server.enqueue({ type: "tool_calls", calls: [{ id: "c1", name: "local__echo", arguments: { text: "local" } }] }, { type: "text", text: "ok" });
  const result = await env.run(["-p", "go", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  // Named once, with its URL; no log file hint (HTTP servers have none).
  expect(result.stderr).toMatch(/^zot: warning: mcp server "web" \(http:\/\/127\.0\.0\.1:\d+\/mcp\): initialize: HTTP 401 [^\n]*; its tools are not available\n$/);
  expect(toolResultsSent(env.server.requests[1]).get("c1")).toBe("echo: local");
});
