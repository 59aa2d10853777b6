/**
 * Print mode end to end through dist/zot against the scripted model server:
 * a multi-step turn using every built-in tool (write, read, edit, bash) on
 * both providers really changes files in the temp cwd and sends each tool's
 * result back; an extension tool (py-hello's `weather`) answers mid-turn.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { loadSession } from "../../src/session/index.ts";
import { copyFixture } from "../support/extensions.ts";
import { requestToolNames, toolResultsSent, useModeEnv, type ModeEnv, type ProviderKind } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

describe.each(["anthropic", "openai"] as ProviderKind[])("built-in tools over %s", (provider) => {
  test("write, read, edit and bash run in the cwd and their results go back to the model", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "call_w", name: "write", arguments: { path: "notes.txt", content: "alpha\nbeta\n" } }] },
      { type: "tool_calls", text: "Reading it back.", calls: [{ id: "call_r", name: "read", arguments: { path: "notes.txt" } }] },
      {
        type: "tool_calls",
        calls: [{ id: "call_e", name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "beta", newText: "gamma" }] } }],
      },
      { type: "tool_calls", calls: [{ id: "call_b", name: "bash", arguments: { command: "cat notes.txt && echo ran > flag.txt" } }] },
      { type: "text", text: "All four tools worked." },
    );
    const result = await env.run(["-p", "exercise the tools", ...env.providerArgs(provider)]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("All four tools worked.\n");

    expect(readFileSync(join(env.cwd, "notes.txt"), "utf8")).toBe("alpha\ngamma\n");
    expect(readFileSync(join(env.cwd, "flag.txt"), "utf8")).toBe("ran\n");

    const requests = env.server.requests;
    expect(requests).toHaveLength(5);
    expect(requestToolNames(requests[0]).sort()).toEqual(["agent", "bash", "edit", "read", "skill", "write"]);
    const write = toolResultsSent(requests[1]).get("call_w");
    const read = toolResultsSent(requests[2]).get("call_r");
    const edit = toolResultsSent(requests[3]).get("call_e");
    const bash = toolResultsSent(requests[4]).get("call_b");
    expect(write).toBeString();
    expect(read).toContain("alpha");
    expect(read).toContain("beta");
    expect(edit).toBeString();
    expect(bash).toContain("alpha\ngamma");
    // Every earlier result is still in the final request (the whole transcript is resent).
    expect([...toolResultsSent(requests[4]).keys()]).toEqual(["call_w", "call_r", "call_e", "call_b"]);

    const [file] = env.sessionFiles();
    expect(file).toBeString();
    const loaded = loadSession(file as string);
    expect(loaded.messages.map((message) => message.role)).toEqual([
      "user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant",
    ]);
    expect(loaded.cumulativeUsage.output_tokens).toBe(25);
  });
});

test("--tools and --no-tools limit the built-ins (the skill tool stays unless --no-skill); --jail keeps file tools in the cwd", async () => {
  env.server.enqueue({ type: "text", text: "ok" }, { type: "text", text: "ok" }, { type: "text", text: "ok" });
  expect((await env.run(["-p", "hi", "--tools", "read,bash", ...env.providerArgs()])).code).toBe(0);
  expect((await env.run(["-p", "hi", "--no-tools", ...env.providerArgs()])).code).toBe(0);
  expect((await env.run(["-p", "hi", "--no-tools", "--no-skill", ...env.providerArgs()])).code).toBe(0);
  expect(requestToolNames(env.server.requests[0]).sort()).toEqual(["bash", "read", "skill"]);
  expect(requestToolNames(env.server.requests[1])).toEqual(["skill"]);
  expect(requestToolNames(env.server.requests[2])).toEqual([]);

  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_out", name: "write", arguments: { path: join(env.base, "outside.txt"), content: "x" } }] },
    { type: "text", text: "refused" },
  );
  const jailed = await env.run(["-p", "escape", "--jail", ...env.providerArgs()]);
  expect(jailed.code).toBe(0);
  expect(existsSync(join(env.base, "outside.txt"))).toBe(false);
  expect(toolResultsSent(env.server.requests[4]).get("call_out")).toContain("outside sandbox root");
});

test("an extension tool (py-hello weather) answers a tool call mid-turn", async () => {
  const extension = copyFixture(env.base, "py-hello");
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_weather", name: "weather", arguments: { city: "Berlin" } }] },
    { type: "text", text: "Foggy in Berlin." },
  );
  const result = await env.run(["-p", "weather in Berlin?", "--ext", extension, ...env.providerArgs()]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("Foggy in Berlin.\n");
  expect(requestToolNames(env.server.requests[0])).toContain("weather");
  expect(toolResultsSent(env.server.requests[1]).get("call_weather")).toContain("Berlin: 16°C, fog");
});

test("--cwd sets where tools run and which session directory is used; a missing dir is one error line", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_pwd", name: "bash", arguments: { command: "pwd" } }] },
    { type: "text", text: "done" },
  );
  const result = await env.run(["-p", "where am I?", "--cwd", env.cwd, ...env.providerArgs()], { cwd: env.home });
  expect(result.code).toBe(0);
  expect(toolResultsSent(env.server.requests[1]).get("call_pwd")).toContain(realpathSync(env.cwd));
  const [file] = env.sessionFiles();
  expect(loadSession(file as string).meta.cwd).toBe(env.cwd);

  const missing = await env.run(["-p", "hi", "--cwd", join(env.base, "nope"), ...env.providerArgs()]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toBe(`zot: --cwd ${join(env.base, "nope")}: not a directory\n`);
});
