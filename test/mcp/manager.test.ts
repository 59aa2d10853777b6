/**
 * The MCP client against misbehaving real servers (test/fixtures/mcp/
 * hostile.ts, real subprocesses over the stdio transport), in process:
 * junk lines are dropped and logged while the session works, an unknown
 * protocol version / a message over 4 MiB / an exit during initialize fail
 * that server's start with a reason, tool lists are capped, names
 * sanitized and shortened, duplicates and deep schemas skipped, a long
 * description cut, progress keeps a slow call alive past the call timeout,
 * a call without answer times out and sends notifications/cancelled, a
 * JSON-RPC error becomes an error result, a stderr flood stays within the
 * log cap, and shutdown leaves no process behind.
 */
import { afterAll, afterEach, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { flushAllLogs } from "../../src/common/log-file.ts";
import type { McpServerConfig } from "../../src/mcp/config.ts";
import { McpManager } from "../../src/mcp/manager.ts";
import { StdioTransport } from "../../src/mcp/stdio-transport.ts";
import { MAX_TOOLS_PER_SERVER } from "../../src/mcp/session.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { waitFor } from "../support/extensions.ts";
import { liveChildren } from "../support/processes.ts";
import { removeTempDirs, tempDir } from "../support/temp.ts";
import { MCP_FIXTURES } from "./helpers.ts";

afterAll(removeTempDirs);

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.shutdown()));
  expect(await waitFor(() => liveChildren().every((proc) => !proc.command.includes("fixtures/mcp/")), 5_000)).toBe(true);
});

function hostile(modes: Record<string, string>, options: { callTimeoutMs?: number; prefix?: Record<string, string> } = {}) {
  const base = tempDir("zot-mcp-unit-");
  const warnings: string[] = [];
  const manager = new McpManager({
    servers: Object.entries(modes).map(([name, mode]) => ({
      name,
      command: "bun",
      args: [join(MCP_FIXTURES, "hostile.ts"), mode],
      env: { MCP_MARKER_DIR: base },
      ...(options.prefix?.[name] !== undefined ? { prefix: options.prefix[name] } : {}),
      scope: "global" as const,
      file: join(base, "mcp.json"),
    })),
    logsDir: join(base, "logs"),
    cwd: base,
    clientVersion: "0.0.0-test",
    warn: (text) => void warnings.push(text),
    startTimeoutMs: 10_000,
    ...(options.callTimeoutMs !== undefined ? { callTimeoutMs: options.callTimeoutMs } : {}),
  });
  managers.push(manager);
  const log = async (name: string): Promise<string> => {
    await flushAllLogs();
    return readFileSync(join(base, "logs", `mcp-${name}.log`), "utf8");
  };
  return { manager, warnings, base, log };
}

/** A manager over hand-written server entries (commands other than the hostile fixture), its warnings collected. */
function managerOf(base: string, servers: readonly McpServerConfig[], warnings: string[]): McpManager {
  const manager = new McpManager({ servers, logsDir: join(base, "logs"), cwd: base, clientVersion: "0", warn: (text) => void warnings.push(text) });
  managers.push(manager);
  return manager;
}

function context(signal: AbortSignal = new AbortController().signal, progress: string[] = []): ToolContext {
  return { cwd: "/", signal, onProgress: (text) => void progress.push(text) };
}

test("junk lines are logged and dropped; the session still initializes and works", async () => {
  const { manager, warnings, log } = hostile({ h: "garbage" });
  await manager.start();
  expect(warnings).toEqual([]);
  expect(manager.state("h")).toBe("ready");
  const ok = manager.tools().find((tool) => tool.name === "h__ok");
  expect((await ok!.execute({}, context())).content).toEqual([{ type: "text", text: "ok answered" }]);
  const text = await log("h");
  expect(text).toContain("dropped a line that is not JSON");
  expect(text).toContain("dropped a line that is not a JSON-RPC object: [1,2,3]");
  expect(text).toContain("JSON nested deeper than 256 levels");
  expect(text).toContain("protocol: invalid JSON-RPC message");
  expect(text).toContain("server: info: hello from hostile");
});

test("an unknown protocol version, a 5 MiB message and an exit during initialize each fail that server's start with its reason", async () => {
  const { manager, warnings } = hostile({ v: "bad-version", big: "huge-line", gone: "exit-on-init" });
  await manager.start();
  expect(manager.tools()).toEqual([]);
  const line = (name: string) => warnings.find((text) => text.startsWith(`zot: warning: mcp server ${name}: `)) ?? "";
  expect(line("v")).toContain('speaks protocol version "1999-01-01"; zot supports 2025-06-18, 2025-03-26, 2024-11-05; its tools are not available');
  expect(line("big")).toContain(`mcp server big: stopped during initialize: sent a message larger than ${4 * 1024 * 1024} bytes; its tools are not available`);
  expect(line("gone")).toContain("mcp server gone: stopped during initialize: exited with code 7; its tools are not available");
  expect(line("gone")).toContain("mcp-gone.log");
});

test("a missing cwd or command fails that server's start naming it; the other server starts", async () => {
  const { warnings, base } = hostile({});
  const broken = managerOf(base, [
    { name: "nowhere", command: "bun", args: [join(MCP_FIXTURES, "hostile.ts"), "timing"], cwd: join(base, "missing"), scope: "global", file: "x" },
    { name: "nothing", command: "./not-here", scope: "global", file: "x" },
    { name: "fine", command: "bun", args: [join(MCP_FIXTURES, "hostile.ts"), "timing"], scope: "global", file: "x" },
  ], warnings);
  await broken.start();
  expect(broken.state("fine")).toBe("ready");
  expect(warnings.find((line) => line.includes("nowhere"))).toStartWith(`zot: warning: mcp server nowhere: "cwd" ${join(base, "missing")} is not a directory; its tools are not available`);
  expect(warnings.find((line) => line.includes("nothing"))).toStartWith('zot: warning: mcp server nothing: command "./not-here" was not found; its tools are not available');
});

test("a stdout flood of junk lines is logged at a bounded rate with a summary, so the log keeps its useful lines", async () => {
  const base = tempDir("zot-mcp-flood-");
  const logPath = join(base, "mcp-flood.log");
  const transport = new StdioTransport({
    name: "flood", command: "sh", args: ["-c", "i=0; while [ $i -lt 3000 ]; do echo junk$i; i=$((i+1)); done; sleep 5"], env: {}, cwd: base, logPath,
  });
  transport.onMessage(() => {});
  transport.onClose(() => {});
  await transport.start();
  await Bun.sleep(500);
  await transport.close();
  await flushAllLogs();
  const log = readFileSync(logPath, "utf8");
  const logged = log.split("\n").filter((line) => line.includes("dropped a line that is not JSON")).length;
  expect(logged).toBeLessThanOrEqual(20);
  const summarised = [...log.matchAll(/… ([0-9,]+) more dropped lines not logged/g)].reduce((sum, match) => sum + Number(match[1]!.replaceAll(",", "")), 0);
  expect(logged + summarised).toBe(3000);
});

test("a server that exits before reading anything is reported by its exit code, not by the EPIPE of the write to it", async () => {
  const { warnings, base } = hostile({});
  const early = managerOf(base, [
    { name: "early", command: "sh", args: ["-c", "echo oops >&2; exit 7"], scope: "global", file: "x" },
    { name: "fine", command: "bun", args: [join(MCP_FIXTURES, "hostile.ts"), "timing"], scope: "global", file: "x" },
  ], warnings);
  await early.start();
  const line = warnings.find((text) => text.includes("mcp server early")) ?? "";
  expect(line).toContain("exited with code 7");
  expect(line).not.toContain("EPIPE");
});

test("tool lists are capped; names are sanitized, shortened and deduplicated; bad tools are skipped by name", async () => {
  const { manager, warnings } = hostile({ many: "many-tools" });
  await manager.start();
  const names = manager.tools().map((tool) => tool.name);
  // 128 listed; the numeric name, the duplicate and the deep schema are skipped.
  expect(names).toHaveLength(MAX_TOOLS_PER_SERVER - 3);
  expect(names).toContain("many__weird_name_with_dots");
  expect(names).toContain("many__a_b");
  const long = names.find((name) => name.startsWith("many__xxx"));
  expect(long).toMatch(/^many__x{49}_[0-9a-f]{8}$/);
  expect(long).toHaveLength(64);
  const wordy = manager.tools().find((tool) => tool.name === "many__wordy");
  expect(wordy?.description.length).toBe(16 * 1024);
  const text = warnings.join("");
  expect(text).toContain("mcp server many: more than 128 tools; the rest were not loaded");
  expect(text).toContain('mcp server many: tool (name 42) skipped: it needs a non-empty string "name"');
  expect(text).toContain('mcp server many: tool "a_b" skipped: its name "many__a_b" is taken by an earlier tool of this server');
  expect(text).toContain('mcp server many: tool "nested" skipped: invalid inputSchema: the schema nests deeper than 128 levels');
});

test("a configured empty prefix cannot take a built-in's name", async () => {
  const { manager, warnings } = hostile({ bare: "garbage" }, { prefix: { bare: "" } });
  await manager.start();
  expect(manager.tools().map((tool) => tool.name).sort()).toEqual(["chatty", "deafen", "mute", "ok", "patient"]);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toStartWith('zot: warning: mcp server bare: tool "read" skipped: its name "read" is a built-in tool\'s (log: ');
});

test("progress restarts the call timeout; a call without answer times out and is cancelled at the server", async () => {
  const { manager, base } = hostile({ t: "timing" }, { callTimeoutMs: 1000 });
  await manager.start();
  const tool = (name: string) => manager.tools().find((entry) => entry.name === name)!;
  const progress: string[] = [];
  // 1.8 s in all, progress every 300 ms: never 1 s without news.
  const patient = await tool("t__patient").execute({}, context(undefined, progress));
  expect(patient.isError).toBe(false);
  expect(progress).toEqual(["[1]\n", "[2]\n", "[3]\n", "[4]\n", "[5]\n", "[6]\n"]);
  const mute = await tool("t__mute").execute({}, context());
  expect(mute.status).toBe("timed_out");
  expect(mute.content[0]).toEqual({ type: "text", text: "mcp server t did not answer tools/call within 1 s (timed out; notifications/cancelled sent)" });
  // initialize = 1, tools/list = 2, patient = 3, mute = 4.
  expect(await waitFor(() => { try { return readFileSync(join(base, "cancelled-4"), "utf8") === "timed out"; } catch { return false; } }, 5_000)).toBe(true);
});

test("a flood of progress notifications is coalesced: a few lines, the latest state last", async () => {
  const { manager } = hostile({ t: "timing" });
  await manager.start();
  const progress: string[] = [];
  const outcome = await manager.tools().find((entry) => entry.name === "t__chatty")!.execute({}, context(undefined, progress));
  expect(outcome.content).toEqual([{ type: "text", text: "chatty answered" }]);
  expect(progress.length).toBeGreaterThan(0);
  expect(progress.length).toBeLessThan(200);
  expect(progress.at(-1)).toBe("[2000/2000] item 2000\n");
});

test("a server that stops reading stdin and ignores SIGTERM: a call to it fails on shutdown, which ends it", async () => {
  const { manager } = hostile({ deaf: "timing" }, { callTimeoutMs: 60_000 });
  await manager.start();
  const tool = (name: string) => manager.tools().find((entry) => entry.name === name)!;
  expect((await tool("deaf__deafen").execute({}, context())).content).toEqual([{ type: "text", text: "deaf now" }]);
  // 8 MiB of arguments: more than the pipe holds, so the write waits.
  const stuck = tool("deaf__ok").execute({ blob: "z".repeat(8 * 1024 * 1024) }, context());
  await manager.shutdown();
  const outcome = await stuck;
  expect(outcome.isError).toBe(true);
  // The kill either breaks the pending write (EPIPE) or closes the connection first.
  expect((outcome.content[0] as { text: string }).text).toMatch(/^mcp (server deaf stopped during tools\/call: |tools\/call could not be sent to deaf: )/);
  expect(liveChildren().filter((proc) => proc.command.includes("hostile.ts"))).toEqual([]);
});

test("an aborted call is cancelled at the server with a reason", async () => {
  const { manager, base } = hostile({ t: "timing" });
  await manager.start();
  const abort = new AbortController();
  const call = manager.tools().find((entry) => entry.name === "t__mute")!.execute({}, context(abort.signal));
  abort.abort();
  expect((await call).status).toBe("cancelled");
  expect(await waitFor(() => { try { return readFileSync(join(base, "cancelled-3"), "utf8") === "the user cancelled the tool call"; } catch { return false; } }, 5_000)).toBe(true);
});

test("a JSON-RPC error answer is an error result naming the server; a stderr flood stays within the log cap", async () => {
  const { manager, base, log } = hostile({ e: "error-call", loud: "stderr-flood" });
  await manager.start();
  const outcome = await manager.tools().find((tool) => tool.name === "e__ok")!.execute({}, context());
  expect(outcome.isError).toBe(true);
  expect(outcome.content[0]).toEqual({ type: "text", text: "mcp server e answered tools/call with error -32000: backend unavailable" });
  expect(manager.state("loud")).toBe("ready");
  await manager.shutdown();
  await flushAllLogs();
  expect(statSync(join(base, "logs", "mcp-loud.log")).size).toBeLessThanOrEqual(1024 * 1024);
  expect(statSync(join(base, "logs", "mcp-loud.log.1")).size).toBeLessThanOrEqual(1024 * 1024);
  // close() resolved only once the server's last stderr line reached the log.
  expect(await log("loud")).toContain("flood ends here\n");
});
