/**
 * Extension slash commands and command-line errors in the headless modes,
 * through dist/zot: /hellopy's `prompt` action runs the agent; `display`,
 * `tool_prompt`, `noop`, `insert` and `error` from the cmd-actions fixture;
 * an unregistered /word goes to the model; missing key, --list-models, bad
 * --reasoning / --max-steps, --no-yolo.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HEADLESS_NO_YOLO_WARNING } from "../../src/agent/permissions.ts";
import { loadSession } from "../../src/session/index.ts";
import { copyFixture } from "../support/extensions.ts";
import { MODES_FIXTURES, parseJsonLines, requestMessages, requestTexts, toolResultsSent, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
let actions: string;
useModeEnv((created) => {
  env = created;
  actions = join(env.base, "cmd-actions");
  cpSync(join(MODES_FIXTURES, "cmd-actions"), actions, { recursive: true });
});

describe("extension slash commands", () => {
  test("/hellopy (any case) asks py-hello, whose prompt action runs the agent", async () => {
    const extension = copyFixture(env.base, "py-hello");
    env.server.enqueue({ type: "text", text: "Hi there!" });
    const result = await env.run(["-p", "/HelloPy", "--ext", extension, ...env.providerArgs()]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Hi there!\n");
    expect(env.server.requests).toHaveLength(1);
    expect(requestTexts(env.server.requests[0])).toContain("Greet me very briefly in one sentence.");
    expect(requestTexts(env.server.requests[0])).not.toContain("/HelloPy");
  });

  test("display prints the text and runs no model call; JSON mode emits ext_display then done", async () => {
    const printed = await env.run(["-p", "/show", "the", "args", "--ext", actions, ...env.providerArgs()]);
    expect(printed.stderr).toBe("");
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe("shown: the args\n");

    const json = await env.run(["--json", "/show x", "--ext", actions, ...env.providerArgs()]);
    expect(json.code).toBe(0);
    expect(parseJsonLines(json.stdout)).toEqual([
      { type: "ext_display", extension: "cmd-actions", text: "shown: x" },
      { type: "done" },
    ]);
    expect(env.server.requests).toHaveLength(0);
    expect(env.sessionFiles()).toEqual([]);
  });

  test("tool_prompt runs the tool, records the pair with origin_extension, then prompts the model", async () => {
    writeFileSync(join(env.cwd, "data.txt"), "the secret is 7\n");
    env.server.enqueue({ type: "text", text: "It is 7." });
    const result = await env.run(["-p", "/fetch the file", "--ext", actions, ...env.providerArgs()]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("It is 7.\n");

    const request = env.server.requests[0];
    // The prompt first, then the recorded pair (a request may not open with an assistant message).
    expect(requestMessages(request).map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    const sent = [...toolResultsSent(request).values()];
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain("the secret is 7");
    expect(requestTexts(request)).toContain("summarise the file");

    const [file] = env.sessionFiles();
    const loaded = loadSession(file as string);
    expect(loaded.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(loaded.messages[1]?.content[0]).toMatchObject({ type: "tool_call", name: "read", origin_extension: "cmd-actions" });
  });

  test("noop exits 0 quietly; insert, open_panel and error replies fail with one line", async () => {
    const quiet = await env.run(["-p", "/quiet", "--ext", actions, ...env.providerArgs()]);
    expect(quiet).toMatchObject({ code: 0, stdout: "", stderr: "" });

    const insert = await env.run(["-p", "/put", "--ext", actions, ...env.providerArgs()]);
    expect(insert.code).toBe(1);
    expect(insert.stderr).toBe("zot: extension /put: the insert action needs the interactive TUI\n");

    const panel = await env.run(["-p", "/panel", "--ext", actions, ...env.providerArgs()]);
    expect(panel.code).toBe(1);
    expect(panel.stderr).toBe("zot: extension /panel: the open_panel action needs the interactive TUI\n");

    const failed = await env.run(["--json", "/fail", "--ext", actions, ...env.providerArgs()]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe("zot: extension /fail: it broke\n");
    expect(parseJsonLines(failed.stdout)).toEqual([{ type: "error", message: "extension /fail: it broke" }]);
    expect(env.server.requests).toHaveLength(0);
  });

  test("a /word no extension registered goes to the model as plain text", async () => {
    env.server.enqueue({ type: "text", text: "not a command" });
    const result = await env.run(["-p", "/foo bar", "--ext", actions, ...env.providerArgs()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("not a command\n");
    expect(requestTexts(env.server.requests[0])).toContain("/foo bar");
  });
});

describe("command-line errors", () => {
  test("a missing API key is one line naming the variable, --api-key, zot login and auth.json, exit 1", async () => {
    const result = await env.run(["-p", "hi"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`zot: no API key for anthropic: set ANTHROPIC_API_KEY, pass --api-key, run \`zot login anthropic\`, or write {"anthropic":{"api_key":"…"}} to ${join(env.home, "auth.json")}\n`);
  });

  test("a key in the environment is used, and another provider's key is found when none was named", async () => {
    env.server.enqueue({ type: "text", text: "via env" });
    const viaEnv = await env.run(["-p", "hi", "--provider", "openai", "--base-url", env.server.openaiBaseUrl], {
      env: { OPENAI_API_KEY: "env-key" },
    });
    expect(viaEnv.stdout).toBe("via env\n");
    expect(env.server.requests[0]?.headers.authorization).toBe("Bearer env-key");

    env.server.enqueue({ type: "text", text: "fell back" });
    const fallback = await env.run(["-p", "hi", "--base-url", env.server.openaiBaseUrl], { env: { OPENAI_API_KEY: "env-key" } });
    expect(fallback.stdout).toBe("fell back\n");
    expect(env.server.requests[1]?.dialect).toBe("openai-chat");
  });

  test("--list-models prints the catalog and exits 0 without credentials", async () => {
    const result = await env.run(["--list-models"]);
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n")[0]).toStartWith("provider   model id");
    expect(result.stdout).toContain("claude-sonnet-4-5");
    expect(result.stdout).toContain("gpt-5");
  });

  test("bad --reasoning and --max-steps exit 2 with one line and the usage hint", async () => {
    const reasoning = await env.run(["-p", "hi", "--reasoning", "extreme", ...env.providerArgs()]);
    expect(reasoning.code).toBe(2);
    expect(reasoning.stderr).toBe("zot: --reasoning must be low|medium|high, got \"extreme\"\nrun 'zot --help' for usage\n");
    for (const value of ["-3", "2.5", "many"]) {
      const steps = await env.run(["-p", "hi", `--max-steps=${value}`, ...env.providerArgs()]);
      expect(steps.code).toBe(2);
      expect(steps.stderr).toBe(`zot: --max-steps must be a positive integer, got "${value}"\nrun 'zot --help' for usage\n`);
    }
    expect(env.server.requests).toHaveLength(0);
  });

  test("--reasoning is case-insensitive; --no-yolo warns once and runs", async () => {
    env.server.enqueue({ type: "text", text: "fine" });
    const result = await env.run(["-p", "hi", "--reasoning", "HIGH", "--no-yolo", ...env.providerArgs()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("fine\n");
    expect(result.stderr).toBe(HEADLESS_NO_YOLO_WARNING);
    expect(result.stderr).toContain("--no-yolo");
    expect(JSON.stringify(env.server.requests[0]?.body)).toContain("thinking");
  });
});
