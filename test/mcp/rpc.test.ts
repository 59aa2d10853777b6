/**
 * MCP tools in `zot rpc`: an `abort` while an MCP call runs cancels it (the
 * server receives notifications/cancelled for that request), the server
 * keeps serving, and the next prompt's MCP call works.
 */
import { expect, test } from "bun:test";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { waitFor } from "../support/extensions.ts";
import { toolResultsSent } from "../modes/helpers.ts";
import { useMcpEnv, type McpEnv } from "./helpers.ts";

let env: McpEnv;
useMcpEnv((created) => (env = created));

type Json = Record<string, unknown>;

test("rpc abort cancels a running MCP call at the server; the next call works", async () => {
  env.writeConfig({ srv: "ts:good" });
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "c_hang", name: "srv__hang", arguments: {} }] },
    { type: "tool_calls", calls: [{ id: "c_echo", name: "srv__echo", arguments: { text: "after abort" } }] },
    { type: "text", text: "fine" },
  );
  const proc = Bun.spawn([await zotBinary(), "rpc", ...env.providerArgs()], { cwd: env.cwd, env: cleanEnv(env.home), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const lines: Json[] = [];
  const reading = (async () => {
    let pending = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      for (let at = pending.indexOf("\n"); at !== -1; at = pending.indexOf("\n")) {
        lines.push(JSON.parse(pending.slice(0, at)) as Json);
        pending = pending.slice(at + 1);
      }
    }
  })();
  const send = (command: Json): void => {
    proc.stdin.write(`${JSON.stringify(command)}\n`);
    void proc.stdin.flush();
  };
  try {
    send({ type: "prompt", id: "p1", message: "hang" });
    expect(await waitFor(() => env.hasMarker("call-hang-1"), 15_000)).toBe(true);
    send({ type: "abort", id: "a" });
    // initialize = 1, tools/list = 2, the call = 3.
    expect(await waitFor(() => env.hasMarker("cancelled-3"), 10_000)).toBe(true);
    expect(await waitFor(() => lines.filter((line) => line.type === "done").length === 1, 10_000)).toBe(true);
    send({ type: "prompt", id: "p2", message: "echo" });
    expect(await waitFor(() => lines.filter((line) => line.type === "done").length === 2, 15_000)).toBe(true);
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    await reading;
  } finally {
    proc.kill("SIGKILL");
    await proc.exited;
  }
  const echoRequest = env.server.requests.find((request) => toolResultsSent(request).has("c_echo"));
  expect(toolResultsSent(echoRequest).get("c_echo")).toBe("echo: after abort");
  expect(env.hasMarker("call-echo-2")).toBe(true);
});
