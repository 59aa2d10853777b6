/**
 * MCP stdio servers end to end through dist/zot, with real MCP servers
 * (test/fixtures/mcp: server.ts under bun, server.py under python3) and the
 * stand-in model scripting the tool calls: tools join as `<server>__<tool>`
 * (pagination, Python and TypeScript), results map (text, image,
 * structuredContent, isError), a crash mid-call fails that call at once and
 * the later calls fast while the session finishes, a server that never
 * initializes is bounded and reported, an invalid inputSchema skips only that
 * tool, an extension guard's block means the server never sees the call,
 * progress arrives as tool_progress, list_changed refreshes the registry,
 * SIGINT during a call sends notifications/cancelled, server → client
 * requests are answered, and no server process outlives zot.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { waitFor } from "../support/extensions.ts";
import { liveChildren } from "../support/processes.ts";
import { parseJsonLines, requestToolNames, toolResultsSent } from "../modes/helpers.ts";
import { MCP_FIXTURES, useMcpEnv, type McpEnv } from "./helpers.ts";

let env: McpEnv;
useMcpEnv((created) => (env = created));

function noServerLeft(): void {
  const left = liveChildren().filter((proc) => proc.command.includes("fixtures/mcp/"));
  expect(left).toEqual([]);
}

test("the model calls tools of a TypeScript and a Python MCP server and gets their results", async () => {
  env.writeConfig({ srv: "ts:good", py: "py" });
  env.server.enqueue(
    {
      type: "tool_calls",
      calls: [
        { id: "c_echo", name: "srv__echo", arguments: { text: "hi there" } },
        { id: "c_add", name: "py__add", arguments: { a: 2, b: 40 } },
        { id: "c_shout", name: "py__shout", arguments: { text: "page two" } },
        { id: "c_pic", name: "srv__picture", arguments: {} },
        { id: "c_fail", name: "srv__fail", arguments: {} },
        { id: "c_struct", name: "srv__structured", arguments: {} },
      ],
    },
    { type: "text", text: "all done" },
  );
  const result = await env.run(["-p", "use the tools", ...env.providerArgs()]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("all done\n");
  const names = requestToolNames(env.server.requests[0]);
  // Both pages of the Python server's paginated tools/list.
  for (const name of ["srv__echo", "srv__slow", "py__add", "py__shout", "read", "bash"]) expect(names).toContain(name);
  const results = toolResultsSent(env.server.requests[1]);
  expect(results.get("c_echo")).toBe("echo: hi there");
  expect(results.get("c_add")).toBe("42");
  expect(results.get("c_shout")).toBe("PAGE TWO");
  expect(results.get("c_pic")).toContain("[resource link: x.txt file:///x.txt]");
  expect(results.get("c_fail")).toBe("it went wrong");
  const messages = JSON.stringify(env.server.requests[1]?.body);
  expect(messages).toContain('"media_type":"image/png"');
  expect(messages).toContain('"tool_use_id":"c_fail","content":"it went wrong","is_error":true');
  expect(results.get("c_struct")).toBe('{\n  "answer": 42\n}');
  // Server → client requests: ping → {}, roots/list → the cwd, sampling → method not found.
  expect(JSON.parse(readFileSync(join(env.markers, "answer-ping"), "utf8")).result).toEqual({});
  expect(JSON.parse(readFileSync(join(env.markers, "answer-roots_list"), "utf8")).result.roots[0].uri).toBe(`file://${env.cwd}`);
  expect(JSON.parse(readFileSync(join(env.markers, "answer-sampling_createMessage"), "utf8")).error.code).toBe(-32601);
  expect(readFileSync(env.logPath("py"), "utf8")).toContain("python fixture initializing");
  expect(statSync(env.logPath("py")).mode & 0o777).toBe(0o600);
  noServerLeft();
});

test("a server that crashes mid-call fails that call at once, its later calls fast, and the session finishes", async () => {
  env.writeConfig({ srv: "ts:good,crash", py: "py" });
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "c_crash", name: "srv__crash", arguments: {} }] },
    { type: "tool_calls", calls: [{ id: "c_after", name: "srv__echo", arguments: { text: "x" } }, { id: "c_py", name: "py__add", arguments: { a: 1, b: 1 } }] },
    { type: "text", text: "survived" },
  );
  const result = await env.run(["-p", "crash it", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("survived\n");
  expect(toolResultsSent(env.server.requests[1]).get("c_crash")).toBe("mcp server srv stopped during tools/call: exited with code 3");
  const after = toolResultsSent(env.server.requests[2]);
  expect(after.get("c_after")).toBe("mcp server srv is not running (exited with code 3); tool echo was not called");
  expect(after.get("c_py")).toBe("2");
  expect(env.markerFiles().filter((name) => name.startsWith("call-echo"))).toEqual([]);
  expect(result.stderr).toContain(`zot: warning: mcp server srv: exited with code 3; its tools fail until zot restarts (log: ${env.logPath("srv")})`);
  expect(readFileSync(env.logPath("srv"), "utf8")).toContain("crashing on purpose");
  noServerLeft();
});

test("a server that never answers initialize is bounded and reported; the other server works", async () => {
  env.writeConfig({ dead: "ts:silent", srv: "ts:good" });
  env.server.enqueue({ type: "tool_calls", calls: [{ id: "c1", name: "srv__echo", arguments: { text: "still here" } }] }, { type: "text", text: "ok" });
  const result = await env.run(["-p", "go", ...env.providerArgs()], { env: { ZOT_MCP_START_TIMEOUT_MS: "1500" } });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("ok\n");
  // The wait notice comes first when setup took less than the 1 s notice delay.
  const warning = `zot: warning: mcp server dead: did not initialize within 1.5 s; its tools are not available (log: ${env.logPath("dead")})\n`;
  const notice = `zot: waiting for mcp server dead (bun ${join(MCP_FIXTURES, "server.ts")} silent)…\n`;
  expect([warning, notice + warning]).toContain(result.stderr);
  expect(toolResultsSent(env.server.requests[1]).get("c1")).toBe("echo: still here");
  expect(requestToolNames(env.server.requests[0]).some((name) => name.startsWith("dead__"))).toBe(false);
  noServerLeft();
});

test("under --jail MCP tools run like extension tools (the jail confines zot's own tools); a missing command is reported; a disabled server is not started", async () => {
  env.writeConfig({ srv: "ts:good", gone: "ts:good", off: "py" }, { gone: { command: "no-such-mcp-server-command" }, off: { disabled: true } });
  env.server.enqueue({ type: "tool_calls", calls: [{ id: "c1", name: "srv__echo", arguments: { text: "jailed" } }] }, { type: "text", text: "ok" });
  const result = await env.run(["-p", "go", "--jail", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  // No log to point at: the command never started.
  expect(result.stderr).toBe(`zot: warning: mcp server gone: command "no-such-mcp-server-command" was not found; its tools are not available\n`);
  expect(toolResultsSent(env.server.requests[1]).get("c1")).toBe("echo: jailed");
  // A disabled server is not started at all.
  expect(requestToolNames(env.server.requests[0]).some((name) => name.startsWith("off__"))).toBe(false);
  expect(existsSync(env.logPath("off"))).toBe(false);
});

test("a tool with an invalid inputSchema is skipped with a problem naming server and tool; the others load", async () => {
  env.writeConfig({ srv: "ts:good,bad-schema" });
  env.server.enqueue({ type: "tool_calls", calls: [{ id: "c1", name: "srv__echo", arguments: { text: "fine" } }] }, { type: "text", text: "ok" });
  const result = await env.run(["-p", "go", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  expect(result.stderr).toBe(
    `zot: warning: mcp server srv: tool "broken" skipped: invalid inputSchema: the schema must have "type": "object" (got "array") (log: ${env.logPath("srv")})\n`,
  );
  const names = requestToolNames(env.server.requests[0]);
  expect(names).toContain("srv__echo");
  expect(names).not.toContain("srv__broken");
  expect(toolResultsSent(env.server.requests[1]).get("c1")).toBe("echo: fine");
});

test("an extension guard that blocks an MCP tool: the server never receives the call", async () => {
  env.writeConfig({ srv: "ts:good" });
  const guard = join(env.base, "mcpguard");
  const { cpSync, writeFileSync } = await import("node:fs");
  cpSync(join(MCP_FIXTURES, "guard"), guard, { recursive: true });
  writeFileSync(join(guard, "extension.json"), JSON.stringify({ name: "mcpguard", exec: "./guard.py", args: ["srv__echo"], language: "python" }));
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "c_blocked", name: "srv__echo", arguments: { text: "secret" } }, { id: "c_ok", name: "srv__fail", arguments: {} }] },
    { type: "text", text: "blocked" },
  );
  const result = await env.run(["--json", "go", "--ext", guard, ...env.providerArgs()]);
  expect(result.code).toBe(0);
  const results = toolResultsSent(env.server.requests[1]);
  expect(results.get("c_blocked")).toContain("mcpguard blocks srv__echo");
  expect(results.get("c_ok")).toBe("it went wrong");
  expect(env.markerFiles().filter((name) => name.startsWith("call-echo"))).toEqual([]);
  expect(env.markerFiles().filter((name) => name.startsWith("call-fail"))).toHaveLength(1);
  const ends = parseJsonLines(result.stdout).filter((event) => event.type === "tool_end" || event.type === "tool_result");
  expect(JSON.stringify(ends)).toContain("blocked");
});

test("progress notifications arrive live as tool_progress; list_changed adds a tool the model can call", async () => {
  env.writeConfig({ srv: "ts:good" });
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "c_slow", name: "srv__slow", arguments: { steps: 3 } }] },
    { type: "tool_calls", calls: [{ id: "c_grow", name: "srv__grow", arguments: {} }] },
    { type: "tool_calls", calls: [{ id: "c_late", name: "srv__late", arguments: {} }] },
    { type: "text", text: "done" },
  );
  const result = await env.run(["--json", "go", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  const progress = parseJsonLines(result.stdout).filter((event) => event.type === "tool_progress").map((event) => event.text);
  expect(progress).toEqual(["[1/3] step 1 of 3\n", "[2/3] step 2 of 3\n", "[3/3] step 3 of 3\n"]);
  expect(toolResultsSent(env.server.requests[1]).get("c_slow")).toBe("slow done");
  expect(requestToolNames(env.server.requests[1])).not.toContain("srv__late");
  expect(requestToolNames(env.server.requests[2])).toContain("srv__late");
  expect(toolResultsSent(env.server.requests[3]).get("c_late")).toBe("late tool works");
});

test("two servers with one prefix: the first keeps each name, and the second's list_changed never removes the first's tools", async () => {
  // a is ready first and holds the names; b (1.5 s later) re-lists 300 ms after it is ready, while x__slow runs.
  const markersB = join(env.base, "markers-b");
  mkdirSync(markersB);
  env.writeConfig({ a: "ts:good", b: "ts:good,slow-init,announce" }, { a: { prefix: "x__" }, b: { prefix: "x__", env: { MCP_MARKER_DIR: markersB } } });
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "c_slow", name: "x__slow", arguments: { steps: 3, delay_ms: 500 } }] },
    { type: "tool_calls", calls: [{ id: "c_echo", name: "x__echo", arguments: { text: "still" } }] },
    { type: "text", text: "done" },
  );
  const result = await env.run(["-p", "go", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  // Once, although b's re-list offers the names again.
  expect(result.stderr.split("\n").filter((line) => line.includes("mcp tool x__echo of server b was not added: the name is taken by another tool"))).toHaveLength(1);
  expect(await waitFor(() => readFileSync(env.logPath("b"), "utf8").length > 0)).toBe(true);
  expect(requestToolNames(env.server.requests[1])).toContain("x__echo");
  expect(toolResultsSent(env.server.requests[2]).get("c_echo")).toBe("echo: still");
  // a served both calls; b never got one.
  expect(env.markerFiles()).toEqual(["call-echo-2", "call-slow-1"]);
  expect(readdirSync(markersB)).toEqual([]);
});

test("SIGINT during an MCP call sends notifications/cancelled to the server, and no server outlives zot", async () => {
  env.writeConfig({ srv: "ts:good" });
  env.server.enqueue({ type: "tool_calls", calls: [{ id: "c_hang", name: "srv__hang", arguments: {} }] }, { type: "text", text: "never" });
  const proc = Bun.spawn([await zotBinary(), "-p", "hang", ...env.providerArgs()], { cwd: env.cwd, env: cleanEnv(env.home), stdout: "pipe", stderr: "pipe" });
  try {
    expect(await waitFor(() => env.markerFiles().some((name) => name.startsWith("call-hang")), 15_000)).toBe(true);
    proc.kill("SIGINT");
    await proc.exited;
    // initialize = 1, tools/list = 2, the call = 3.
    expect(await waitFor(() => env.hasMarker("cancelled-3"), 5_000)).toBe(true);
  } finally {
    proc.kill("SIGKILL");
    await proc.exited;
  }
  expect(await waitFor(() => liveChildren().every((child) => !child.command.includes("fixtures/mcp/")), 5_000)).toBe(true);
});

test("./.zot/mcp.json servers start only in a trusted project (--trust here); $ZOT_HOME/mcp.json ones always", async () => {
  const { mkdirSync: mkdir, writeFileSync } = await import("node:fs");
  const { serverEntry } = await import("./helpers.ts");
  env.writeConfig({ mine: "ts:good" });
  mkdir(join(env.cwd, ".zot"));
  writeFileSync(join(env.cwd, ".zot", "mcp.json"), JSON.stringify({ mcpServers: { proj: serverEntry("py", env.markers) } }));
  env.server.enqueue({ type: "text", text: "untrusted" }, { type: "text", text: "trusted" });
  const untrusted = await env.run(["-p", "go", ...env.providerArgs()]);
  expect(untrusted.code).toBe(0);
  expect(untrusted.stderr).toBe(
    `zot: warning: project MCP servers not started: ./.zot/mcp.json (${env.cwd} is not trusted); allow with --trust (this run), 'zot trust ${env.cwd}' (record it) or ZOT_TRUST=1 (CI images)\n`,
  );
  const names = requestToolNames(env.server.requests[0]);
  expect(names).toContain("mine__echo");
  expect(names.some((name) => name.startsWith("proj__"))).toBe(false);
  expect(env.hasMarker("answer-ping")).toBe(false);
  const trusted = await env.run(["-p", "go", "--trust", ...env.providerArgs()]);
  expect(trusted.code).toBe(0);
  expect(trusted.stderr).toBe("");
  expect(requestToolNames(env.server.requests[1])).toContain("proj__add");
});
