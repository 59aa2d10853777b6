/**
 * The TypeScript SDK end to end through dist/zot in print mode, with the
 * stand-in model: the probe extension (fixtures/sdk-probe/probe.mjs, written
 * on the SDK's compiled dist/) run under Bun and, the same file, under Node and Deno.
 * Covered: handshake + onHello host info, a tool, a throwing tool (an error
 * result the model sees; the extension keeps serving), the tool_call
 * interceptor blocking and rewriting args, zot's tool_result interceptor
 * replacing content, the assistant_message interceptor replacing text, a
 * turn_start subscription, and a clean exit on shutdown (onShutdown ran,
 * run() resolved), and hostile sizes through the real pipes (a 3 MB frame in;
 * a 5 MiB result refused by the SDK instead of disconnecting the extension).
 * Deno is not installed on this machine: not covered.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsSent, useModeEnv, type ModeEnv } from "../../modes/helpers.ts";
import { probeExtension, readRecord, SDK_DIR } from "./probe.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const nodeVersion = Bun.spawnSync(["node", "--version"]).stdout.toString().trim();

describe.each(["bun", "node", "deno"] as const)("the SDK under %s", (runtime) => {
  test("tools, a throwing tool, interceptors (block, modified args, tool_result, assistant text), events, shutdown", async () => {
    const record = join(env.base, "probe.jsonl");
    const ext = probeExtension(env.base, runtime);
    env.server.enqueue(
      {
        type: "tool_calls",
        calls: [
          { id: "c1", name: "probe_echo", arguments: { text: "plain" } },
          { id: "c2", name: "probe_echo", arguments: { text: "rewrite me" } },
          { id: "c3", name: "probe_throw", arguments: {} },
          { id: "c4", name: "bash", arguments: { command: "rm -rf /tmp/nothing-here" } },
          { id: "c5", name: "probe_echo", arguments: { text: "pw hunter2" } },
        ],
      },
      { type: "text", text: "the SECRET is out" },
    );
    const result = await env.run(["-p", "go", ...env.providerArgs(), "--ext", ext], { env: { PROBE_RECORD: record }, timeoutMs: 30_000 });
    expect(result.stderr).not.toContain("failed to load");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("the [redacted] is out\n");

    const sent = toolResultsSent(env.server.requests[1]);
    expect(sent.get("c1")).toBe("echo: plain");
    expect(sent.get("c2")).toBe("echo: rewritten");
    expect(sent.get("c3")).toContain("tool probe_throw failed: boom in tool");
    expect(sent.get("c4")).toContain("refused by sdk-probe: rm -rf");
    expect(sent.get("c5")).toBe("echo: pw [scrubbed]");

    const records = readRecord(record);
    const hello = records.find((entry) => entry.hello)?.hello as Record<string, unknown>;
    expect(hello).toEqual({ cwd: env.cwd, protocolVersion: 1, runtime: runtime === "node" ? `node ${nodeVersion}` : runtime });
    expect(records.filter((entry) => entry.event === "turn_start").map((entry) => entry.step)).toEqual([1, 2]);
    expect(records.filter((entry) => entry.intercepted).map((entry) => entry.intercepted)).toEqual(["probe_echo", "probe_echo", "probe_throw", "bash", "probe_echo"]);
    // shutdown: onShutdown ran, then run() resolved and the script went on to its end.
    expect(records.slice(-2)).toEqual([{ shutdown: true }, { exited: true }]);
    // The handler's error went to the extension's log (stderr), not to stdout.
    const log = await Bun.file(join(env.home, "logs", "ext-sdk-probe.log")).text();
    expect(log).toContain("[sdk-probe] tool probe_throw failed: boom in tool");
  }, 40_000);
});

test("hostile sizes through the real pipes: 3 MiB of tool args arrive whole; a 5 MiB echo is refused by the SDK, not sent to disconnect the extension", async () => {
  const ext = probeExtension(env.base, "node");
  const three = "é".repeat(1_500_000); // 3 MB of UTF-8 in one frame, split across many pipe reads
  const five = "f".repeat(5 * 1024 * 1024);
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "big", name: "probe_echo", arguments: { text: three } }, { id: "huge", name: "probe_echo", arguments: { text: five } }] },
    { type: "tool_calls", calls: [{ id: "after", name: "probe_echo", arguments: { text: "still here" } }] },
    { type: "text", text: "done" },
  );
  const result = await env.run(["-p", "go", ...env.providerArgs(), "--ext", ext], { timeoutMs: 30_000 });
  expect(result.code).toBe(0);
  const sent = toolResultsSent(env.server.requests[1]);
  expect(sent.get("big")).toBe(`echo: ${three}`);
  expect(sent.get("huge")).toContain("result not sent: tool_result frame is");
  // The extension was not disconnected: its tool still answers on the next step.
  expect(toolResultsSent(env.server.requests[2]).get("after")).toBe("echo: still here");
}, 40_000);

test("an extension that left a timer running still exits right after shutdown (zot does not have to SIGTERM it)", async () => {
  const dir = join(env.base, "ticker");
  mkdirSync(dir);
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: "ticker", version: "1.0.0", exec: "bun", args: ["main.mjs"] }));
  writeFileSync(
    join(dir, "main.mjs"),
    `import { Extension } from ${JSON.stringify(join(SDK_DIR, "dist", "index.js"))};\nsetInterval(() => {}, 1000);\nawait new Extension("ticker", "1.0.0").run();\n`,
  );
  env.server.enqueue({ type: "text", text: "done" });
  const started = Date.now();
  const result = await env.run(["-p", "hi", "--ext", dir, ...env.providerArgs()]);
  expect(result.code).toBe(0);
  // Without the SDK's exit zot waits its 2 s shutdown grace and then sends SIGTERM.
  expect(Date.now() - started).toBeLessThan(1_800);
  expect(readFileSync(join(env.home, "logs", "ext-ticker.log"), "utf8")).not.toContain("did not exit after shutdown");
});

