import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSession } from "../../src/session/index.ts";
import { behaveExtension } from "../support/extensions.ts";
import { requestToolNames, toolResultsSent, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

function systemOf(body: unknown): string {
  const system = (body as { system?: unknown }).system;
  return Array.isArray(system) ? system.map((block) => (block as { text?: string }).text ?? "").join("") : String(system ?? "");
}

describe("config.json defaults", () => {
  test("provider and model come from config.json when no flag names them; flags win", async () => {
    writeFileSync(join(env.home, "config.json"), JSON.stringify({ provider: "openai", model: "gpt-5", theme: "dark" }));
    env.server.enqueue({ type: "text", text: "from openai" }, { type: "text", text: "from anthropic" });
    const viaConfig = await env.run(["-p", "hi", "--base-url", env.server.openaiBaseUrl, "--api-key", "k"]);
    expect(viaConfig.stdout).toBe("from openai\n");
    expect(env.server.requests[0]!.dialect).toBe("openai-chat");
    expect((env.server.requests[0]!.body as { model: string }).model).toBe("gpt-5");
    const viaFlags = await env.run(["-p", "hi", ...env.providerArgs("anthropic"), "--model", "claude-sonnet-4-5"]);
    expect(viaFlags.stdout).toBe("from anthropic\n");
  });

  test("a broken config.json is a warning naming the file, not a failure", async () => {
    writeFileSync(join(env.home, "config.json"), "{ not json");
    env.server.enqueue({ type: "text", text: "still works" });
    const result = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`zot: warning: ${join(env.home, "config.json")}: not valid JSON`);
  });
});

describe("automatic compaction", () => {
  test("past --auto-compact's share of the window the transcript is summarised before the next call and stored", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "c1", name: "bash", arguments: { command: "echo one" } }], usage: { input: 100, output: 10 } },
      { type: "tool_calls", calls: [{ id: "c2", name: "bash", arguments: { command: "echo two" } }], usage: { input: 200, output: 10 } },
      { type: "tool_calls", calls: [{ id: "c3", name: "bash", arguments: { command: "echo three" } }], usage: { input: 20_000, output: 10 } },
      { type: "text", text: "Goal: say hi. Progress: ran echo." },
      { type: "text", text: "done" },
    );
    const result = await env.run(["-p", "hi", ...env.providerArgs(), "--auto-compact", "0.05"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("done\n");
    expect(env.server.requests.length).toBe(5);
    expect(requestToolNames(env.server.requests[3])).toEqual([]);
    expect(JSON.stringify(env.server.requests[4]!.body)).toContain("Context Summary (compacted)");
    const [file] = env.sessionFiles();
    const loaded = loadSession(file!);
    expect(loaded.compacted).toBe(true);
    expect(JSON.stringify(loaded.messages[0])).toContain("Goal: say hi");
  });

  test("--auto-compact off never compacts; a bad value is a usage error", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "c1", name: "bash", arguments: { command: "true" } }], usage: { input: 100, output: 10 } },
      { type: "tool_calls", calls: [{ id: "c2", name: "bash", arguments: { command: "true" } }], usage: { input: 100, output: 10 } },
      { type: "tool_calls", calls: [{ id: "c3", name: "bash", arguments: { command: "true" } }], usage: { input: 199_000, output: 10 } },
      { type: "text", text: "done" },
    );
    const off = await env.run(["-p", "hi", ...env.providerArgs(), "--auto-compact", "off"]);
    expect(off.stdout).toBe("done\n");
    expect(env.server.requests.length).toBe(4);
    expect(requestToolNames(env.server.requests[3])).toContain("bash");
    const bad = await env.run(["-p", "hi", ...env.providerArgs(), "--auto-compact", "2"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--auto-compact must be a share of the context window");
  });
});

describe("skills and late extension tools", () => {
  test("the built-in skill is listed in the system prompt and served by the skill tool", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "s1", name: "skill", arguments: { name: "write-zot-extension" } }] },
      { type: "text", text: "learned" },
    );
    expect((await env.run(["-p", "how do I extend zot?", ...env.providerArgs()])).code).toBe(0);
    expect(systemOf(env.server.requests[0]!.body)).toContain("- write-zot-extension [builtin]:");
    expect(toolResultsSent(env.server.requests[1]).get("s1")).toStartWith("# Skill: write-zot-extension");
  });

  test("a tool an extension registers after startup joins the running agent", async () => {
    const late = behaveExtension(env.base, "late", ["late-tool=0.3"]);
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "b1", name: "bash", arguments: { command: "sleep 1" } }] },
      { type: "tool_calls", calls: [{ id: "l1", name: "late_echo", arguments: {} }] },
      { type: "text", text: "ok" },
    );
    const result = await env.run(["-p", "go", ...env.providerArgs(), "--ext", late]);
    expect(result.code).toBe(0);
    expect(requestToolNames(env.server.requests[0])).not.toContain("late_echo");
    expect(requestToolNames(env.server.requests[1])).toContain("late_echo");
    expect(toolResultsSent(env.server.requests[2]).get("l1")).toBe("late and fine");
  });
});
