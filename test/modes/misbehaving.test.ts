import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { behaveExtension, isAlive, waitFor } from "../support/extensions.ts";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

function pids(path: string): { pid: number; child: number | null } {
  return JSON.parse(readFileSync(path, "utf8"));
}

describe("misbehaving extensions in print mode (compiled binary)", () => {
  test("a silent extension cannot hang startup; a crashing tool extension cannot crash zot; nothing is orphaned", async () => {
    const mutePids = join(env.base, "mute.json");
    const crashPids = join(env.base, "crash.json");
    const mute = behaveExtension(env.base, "mute", ["never-hello", `pid-file=${mutePids}`]);
    const crashy = behaveExtension(env.base, "crashy", ["crash-on-tool", "child", `pid-file=${crashPids}`]);
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "t1", name: "py_echo", arguments: { text: "hi" } }] },
      { type: "text", text: "recovered" },
    );
    const started = Date.now();
    const result = await env.run(["-p", "use the tool", ...env.providerArgs(), "--ext", mute, "--ext", crashy], {
      env: { ZOT_EXT_READY_TIMEOUT_MS: "1000" },
      timeoutMs: 20_000,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.stdout.trim()).toBe("recovered");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('extension "mute" failed to load: sent no hello within');
    expect(result.stderr).toMatch(/extension crashy: exited \(status 7\)/);
    // The model saw the failure as a tool error, not a hang.
    const toolResult = JSON.stringify(env.server.requests[1]?.body);
    expect(toolResult).toContain("extension disconnected: exited (status 7)");
    for (const file of [mutePids, crashPids]) {
      const { pid, child } = pids(file);
      expect(await waitFor(() => !isAlive(pid) && (child === null || !isAlive(child)))).toBe(true);
    }
  });

  test("an extension that closed its stdin but runs on: its tool call fails at once as a broken pipe, not after the 60 s deadline", async () => {
    const pidFile = join(env.base, "closer.json");
    const closer = behaveExtension(env.base, "closer", ["close-stdin", `pid-file=${pidFile}`]);
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "t1", name: "py_echo", arguments: { text: "hi" } }] },
      { type: "text", text: "carried on" },
    );
    const result = await env.run(["-p", "use the tool", ...env.providerArgs(), "--ext", closer], { timeoutMs: 25_000 });
    expect(result.stdout).toBe("carried on\n");
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^zot: extension closer: its stdin pipe broke \(.*EPIPE.*\); its commands and tools are unavailable/);
    const toolResult = JSON.stringify(env.server.requests[1]?.body);
    expect(toolResult).toContain("extension closer/py_echo failed: extension disconnected: its stdin pipe broke");
    const { pid } = pids(pidFile);
    expect(await waitFor(() => !isAlive(pid))).toBe(true);
  });

  test("an extension that closes its stdout during a tool call but runs on: the call fails a second later, not after 60 s; the process is stopped", async () => {
    const pidFile = join(env.base, "mute-out.json");
    const muted = behaveExtension(env.base, "muted", ["close-stdout-on-tool", `pid-file=${pidFile}`]);
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "t1", name: "py_echo", arguments: { text: "hi" } }] },
      { type: "text", text: "moved on" },
    );
    const result = await env.run(["-p", "use the tool", ...env.providerArgs(), "--ext", muted], { timeoutMs: 25_000 });
    expect(result.stdout).toBe("moved on\n");
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `zot: extension muted: closed its stdout but was still running 1000 ms later; its commands and tools are unavailable (log: ${join(env.home, "logs", "ext-muted.log")})\n`,
    );
    expect(JSON.stringify(env.server.requests[1]?.body)).toContain("extension muted/py_echo failed: extension disconnected: closed its stdout but was still running 1000 ms later");
    const { pid } = pids(pidFile);
    expect(await waitFor(() => !isAlive(pid))).toBe(true);
  });

  test("an extension that ignores shutdown is killed; zot exits within the grace period", async () => {
    const stubbornPids = join(env.base, "stubborn.json");
    const stubborn = behaveExtension(env.base, "stubborn", ["ignore-shutdown", "child", `pid-file=${stubbornPids}`]);
    env.server.enqueue({ type: "text", text: "bye" });
    const started = Date.now();
    const result = await env.run(["-p", "hi", ...env.providerArgs(), "--ext", stubborn], { timeoutMs: 20_000 });
    expect(result.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(6_000);
    const { pid, child } = pids(stubbornPids);
    expect(await waitFor(() => !isAlive(pid) && !isAlive(child!))).toBe(true);
  });
});
