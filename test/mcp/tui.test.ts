/**
 * MCP tools in the chat screen (dist/zot in a PTY): with --no-yolo an MCP
 * tool call asks first (n → the server never receives it; y → it runs),
 * a long call's notifications/progress show live in its tool card, and an
 * untrusted project's .zot/mcp.json waits for the trust dialog.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../support/extensions.ts";
import { TuiPty, stopAllTuis } from "../support/tui-pty.ts";
import { toolResultsSent } from "../modes/helpers.ts";
import { serverEntry, useMcpEnv, type McpEnv } from "./helpers.ts";

const TEST_MS = 90_000;
let env: McpEnv;
useMcpEnv((created) => (env = created), stopAllTuis);

async function startWithServer(args: readonly string[] = []): Promise<TuiPty> {
  env.writeConfig({ srv: "ts:good" });
  const tui = await TuiPty.start({ home: env.home, cwd: env.cwd, args: [...args, ...env.providerArgs()], rows: 40 });
  // Interactive mode does not wait for MCP servers: wait until this one is ready before the first prompt.
  const log = env.logPath("srv");
  expect(await waitFor(() => existsSync(log) && readFileSync(log, "utf8").includes("ready in"), 15_000)).toBe(true);
  return tui;
}

test("--no-yolo asks before an MCP tool call: n keeps it from the server, y runs it", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "c_no", name: "srv__echo", arguments: { text: "first" } }] },
    { type: "text", text: "first turn over" },
    { type: "tool_calls", calls: [{ id: "c_yes", name: "srv__echo", arguments: { text: "second" } }] },
    { type: "text", text: "second turn over" },
  );
  const tui = await startWithServer(["--no-yolo"]);
  tui.type("one");
  tui.press("enter");
  await tui.waitForText("[y] allow once", "screen");
  await tui.waitForText("srv__echo", "screen");
  tui.type("n");
  await tui.waitForText("first turn over");
  expect(env.markerFiles().filter((name) => name.startsWith("call-echo"))).toEqual([]);
  expect(toolResultsSent(env.server.requests[1]).get("c_no")).toContain("user declined");
  tui.type("two");
  tui.press("enter");
  await tui.waitForText("[y] allow once", "screen");
  tui.type("y");
  await tui.waitForText("srv__echo: allowed once");
  await tui.waitForText("second turn over");
  expect(env.markerFiles().filter((name) => name.startsWith("call-echo"))).toHaveLength(1);
  expect(toolResultsSent(env.server.requests[3]).get("c_yes")).toBe("echo: second");
}, TEST_MS);

test("MCP progress notifications show live in the tool card", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "c_slow", name: "srv__slow", arguments: { steps: 3, delay_ms: 700 } }] },
    { type: "text", text: "progress seen" },
  );
  const tui = await startWithServer();
  tui.type("go");
  tui.press("enter");
  await tui.waitForText("[1/3] step 1 of 3", "screen");
  await tui.waitForText("[2/3] step 2 of 3", "screen");
  await tui.waitForText("progress seen");
  expect(tui.screen.screen().join("\n")).toContain("slow done");
}, TEST_MS);

test("an untrusted project's .zot/mcp.json waits for the trust dialog without blocking the chat screen; [o] starts its server", async () => {
  mkdirSync(join(env.cwd, ".zot"));
  writeFileSync(join(env.cwd, ".zot", "mcp.json"), JSON.stringify({ mcpServers: { proj: serverEntry("ts:good", env.markers) } }));
  const tui = await TuiPty.start({ home: env.home, cwd: env.cwd, args: env.providerArgs(), columns: 110, rows: 30 });
  await tui.waitForText("run this project's extensions?", "screen");
  expect(existsSync(env.logPath("proj"))).toBe(false);
  tui.type("o");
  const log = env.logPath("proj");
  expect(await waitFor(() => existsSync(log) && readFileSync(log, "utf8").includes("ready in"), 15_000)).toBe(true);
  env.server.enqueue({ type: "tool_calls", calls: [{ id: "c1", name: "proj__echo", arguments: { text: "trusted once" } }] }, { type: "text", text: "project tool ran" });
  tui.type("go");
  tui.press("enter");
  await tui.waitForText("project tool ran");
  expect(toolResultsSent(env.server.requests[1]).get("c1")).toBe("echo: trusted once");
}, TEST_MS);
