/**
 * Subagents get the MCP servers of $ZOT_HOME/mcp.json and of the parent's
 * --mcp files: a child zot starts its own server processes and its model can call `<server>__<tool>`
 * through the child's tool choke point; the servers of parent and child
 * are gone when zot exits.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../support/extensions.ts";
import { liveChildren } from "../support/processes.ts";
import { requestMessages, toolResultsSent } from "../modes/helpers.ts";
import { serverEntry, useMcpEnv, type McpEnv } from "./helpers.ts";

let env: McpEnv;
useMcpEnv((created) => {
  env = created;
  writeFileSync(join(env.home, "config.json"), JSON.stringify({ agents: true }));
});

function firstUserText(body: unknown): string {
  const first = (body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages?.[0];
  const content = first?.content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((block) => (block as { text?: string }).text ?? "").join("") : "";
}

test("a subagent calls an MCP tool of the configured servers", async () => {
  env.writeConfig({ srv: "ts:good" });
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_agent", name: "agent", arguments: { description: "child", prompt: "child task" } }] },
    { type: "text", text: "parent done" },
  );
  const child = (body: unknown) => firstUserText(body) === "child task";
  env.server.enqueueFor(child, { type: "tool_calls", calls: [{ id: "child_echo", name: "srv__echo", arguments: { text: "from child" } }] }, { type: "text", text: "child saw the echo" });
  const result = await env.run(["-p", "delegate", ...env.providerArgs()], { timeoutMs: 60_000 });
  expect(result.stderr).toMatch(/^zot: agent agent_[0-9a-f]+ started: child\nzot: agent agent_[0-9a-f]+ completed\n$/);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("parent done\n");
  const childFinal = env.server.requests.find((request) => child(request.body) && requestMessages(request).length === 3);
  expect(toolResultsSent(childFinal).get("child_echo")).toBe("echo: from child");
  const parentFinal = env.server.requests.find((request) => firstUserText(request.body) === "delegate" && requestMessages(request).length === 3);
  expect(toolResultsSent(parentFinal).get("call_agent")).toContain("child saw the echo");
  expect(env.markerFiles().filter((name) => name.startsWith("call-echo"))).toHaveLength(1);
  expect(await waitFor(() => liveChildren().every((proc) => !proc.command.includes("fixtures/mcp/")), 5_000)).toBe(true);
});

test("a subagent gets the parent's --mcp files", async () => {
  const file = join(env.base, "extra-mcp.json");
  writeFileSync(file, JSON.stringify({ mcpServers: { extra: serverEntry("ts:good", env.markers) } }));
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_agent", name: "agent", arguments: { description: "child", prompt: "child task" } }] },
    { type: "text", text: "parent done" },
  );
  const child = (body: unknown) => firstUserText(body) === "child task";
  env.server.enqueueFor(child, { type: "tool_calls", calls: [{ id: "child_echo", name: "extra__echo", arguments: { text: "via --mcp" } }] }, { type: "text", text: "child done" });
  // Relative to the working directory, as the user typed it.
  const result = await env.run(["-p", "delegate", "--mcp", "../extra-mcp.json", ...env.providerArgs()], { timeoutMs: 60_000 });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("parent done\n");
  const childFinal = env.server.requests.find((request) => child(request.body) && requestMessages(request).length === 3);
  expect(toolResultsSent(childFinal).get("child_echo")).toBe("echo: via --mcp");
});
