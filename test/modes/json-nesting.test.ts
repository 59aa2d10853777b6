/**
 * Hostile JSON nesting through dist/zot (issue 7, class 1): the model's tool
 * arguments nested 100,000 levels deep end in an error tool result, never a
 * crash, and the session resumes; an extension's frames nested too deep are
 * dropped (and logged) while its valid tools keep working, and its embedded
 * values (modified_args, call_tool args, tool_prompt tool_args) past 128
 * levels are refused where they are used; an RPC line nested too deep gets
 * an error response and the server carries on; config.json, models.json,
 * auth.json and extension.json nested too deep give a message naming the file.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { copyFixture } from "../support/extensions.ts";
import { parseJsonLines, requestMessages, requestToolNames, toolResultsSent, useModeEnv, type ModeEnv, type ProviderKind } from "./helpers.ts";

const LEVELS = 100_000;
/** `{"a":{"a":…1…}}` nested `levels` objects deep. */
const nestedObjects = (levels: number): string => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
const nestedArrays = (levels: number): string => "[".repeat(levels) + "]".repeat(levels);

let env: ModeEnv;
useModeEnv((created) => (env = created));

describe.each(["anthropic", "openai"] as ProviderKind[])("tool arguments nested 100,000 levels over %s", (provider) => {
  test("the call fails with an error result for the model, the run ends normally, and --continue resumes", async () => {
    const deepArgs = `{"path":"notes.txt","extra":${nestedArrays(LEVELS)}}`;
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "call_deep", name: "read", arguments: deepArgs }] },
      { type: "text", text: "I will flatten them." },
      { type: "text", text: "Resumed fine." },
    );
    // --json serialises every event, the tool_call's arguments included.
    const first = await env.run(["--json", "read it", ...env.providerArgs(provider)]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const events = parseJsonLines(first.stdout);
    expect(events.at(-1)).toEqual({ type: "done" });
    expect(events.find((event) => event.type === "tool_call")).toMatchObject({ id: "call_deep", name: "read", args: {} });

    const second = env.server.requests[1];
    const result = toolResultsSent(second).get("call_deep");
    expect(result).toContain("invalid tool arguments: JSON nested deeper than 128 levels; the call was not run");
    // The next request carries the call with its arguments replaced, not the deep text.
    expect(JSON.stringify(requestMessages(second)).length).toBeLessThan(10_000);

    const resumed = await env.run(["-c", "-p", "go on", ...env.providerArgs(provider)]);
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("Resumed fine.\n");
    const third = env.server.requests[2];
    expect(toolResultsSent(third).get("call_deep")).toContain("nested deeper than 128 levels");
    expect(env.sessionFiles()).toHaveLength(1);
    expect(readFileSync(env.sessionFiles()[0] as string, "utf8").length).toBeLessThan(20_000);
  });
});

describe("an extension sending JSON nested too deep", () => {
  test("a tool_result too deep to parse still names its call: the call fails at once, not at its 60 s deadline", async () => {
    const extension = copyFixture(env.base, "deep-json");
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "call_deep", name: "deep_reply", arguments: {} }] },
      { type: "text", text: "noted" },
    );
    const result = await env.run(["-p", "use it", "--ext", extension, ...env.providerArgs()], { timeoutMs: 20_000 });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("noted\n");
    expect(toolResultsSent(env.server.requests[1]).get("call_deep")).toBe(
      "extension deep-json/deep_reply failed: answered with an invalid reply (tool_result: JSON nested deeper than 256 levels)",
    );
    const log = readFileSync(join(env.home, "logs", "ext-deep-json.log"), "utf8");
    expect(log).toContain("[zot] tool_result frame dropped: JSON nested deeper than 256 levels");
  }, 30_000);

  test("its too-deep registrations are dropped and logged; its valid tool works; embedded values over 128 levels are refused", async () => {
    const extension = copyFixture(env.base, "deep-json");
    env.server.enqueue(
      {
        type: "tool_calls",
        calls: [
          { id: "call_echo", name: "flat_echo", arguments: { text: "hi" } },
          { id: "call_via", name: "flat_echo", arguments: { via_call_tool: true } },
        ],
      },
      { type: "text", text: "Both answered." },
      { type: "text", text: "Still fine." },
    );
    const result = await env.run(["-p", "use the tools", "--ext", extension, ...env.providerArgs()]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Both answered.\n");

    const tools = requestToolNames(env.server.requests[0]);
    expect(tools).toContain("flat_echo");
    expect(tools).not.toContain("deep_frame");
    expect(tools).not.toContain("deep_schema");
    const results = toolResultsSent(env.server.requests[1]);
    // The interceptor's 200-level modified_args were ignored: the tool saw the model's arguments.
    expect(results.get("call_echo")).toBe('echo: {"text": "hi"}');
    expect(results.get("call_via")).toBe("call_tool said: call_tool args nested deeper than 128 levels");

    const log = readFileSync(join(env.home, "logs", "ext-deep-json.log"), "utf8");
    // The frame too deep to parse is still named by its type and name (a shallow scan of its top level).
    expect(log).toContain('[zot] register_tool frame "deep_frame" dropped: JSON nested deeper than 256 levels');
    expect(log).toContain('[zot] tool "deep_schema" rejected: the schema nests deeper than 128 levels');
    expect(log).toContain("[zot] modified_args ignored: nested deeper than 128 levels");
    expect(log).toContain("[zot] call_tool read refused: call_tool args nested deeper than 128 levels");

    // A tool_prompt whose tool_args nest 200 levels is an error naming the limit; nothing runs.
    const prompt = await env.run(["-p", "/deepprompt", "--ext", extension, ...env.providerArgs()]);
    expect(prompt.stderr).toBe("zot: extension /deepprompt: tool_prompt tool_args nested deeper than 128 levels\n");
    expect(prompt.code).toBe(1);
    expect(env.server.requests).toHaveLength(2);

    // The next turn still works with the same extension.
    const again = await env.run(["-p", "-c", "once more", "--ext", extension, ...env.providerArgs()]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("Still fine.\n");
  });
});

test("rpc: a line nested 100,000 levels gets an error response and the next commands still work", async () => {
  env.server.enqueue({ type: "text", text: "rpc answer" });
  const stdin = [
    `{"type":"prompt","id":"deep","message":"hi","x":${nestedArrays(LEVELS)}}`,
    nestedObjects(LEVELS),
    JSON.stringify({ type: "ping", id: "p" }),
    JSON.stringify({ type: "prompt", id: "ok", message: "hello" }),
    "",
  ].join("\n");
  const result = await env.run(["rpc", ...env.providerArgs()], { stdin });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const lines = parseJsonLines(result.stdout);
  const refusal = { type: "response", command: "", success: false, error: "malformed JSON: JSON nested deeper than 256 levels" };
  expect(lines[0]).toEqual(refusal);
  expect(lines[1]).toEqual(refusal);
  expect(lines[2]).toEqual({ type: "response", id: "p", command: "ping", success: true, data: { pong: true } });
  expect(lines).toContainEqual(expect.objectContaining({ type: "response", id: "ok", command: "prompt", success: true }));
  expect(lines.at(-1)).toEqual({ type: "done" });
  expect(env.server.requests).toHaveLength(1);
});

describe("files nested 100,000 levels deep", () => {
  const deepDocument = `{"provider":"anthropic","x":${nestedObjects(LEVELS)}}`;

  test("config.json and models.json: a warning naming the file, and the run goes on", async () => {
    writeFileSync(join(env.home, "config.json"), deepDocument);
    writeFileSync(join(env.home, "models.json"), `{"providers":{},"x":${nestedArrays(LEVELS)}}`);
    env.server.enqueue({ type: "text", text: "fine" });
    const result = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(result.stderr).toContain(`zot: warning: ${join(env.home, "config.json")}: JSON nested deeper than 256 levels; ignored\n`);
    expect(result.stderr).toContain(`zot: warning: ignoring ${join(env.home, "models.json")}: JSON nested deeper than 256 levels\n`);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("fine\n");
  });

  test("auth.json: an error naming the file", async () => {
    writeFileSync(join(env.home, "auth.json"), `{"anthropic":{"api_key":"stored-key","oauth":${nestedArrays(LEVELS)}}}`);
    const [, , , baseUrl] = env.providerArgs();
    const result = await env.run(["-p", "hi", "--provider", "anthropic", "--base-url", baseUrl as string]);
    expect(result.stderr).toBe(`zot: invalid ${join(env.home, "auth.json")}: JSON nested deeper than 256 levels\n`);
    expect(result.code).toBe(1);
    expect(env.server.requests).toHaveLength(0);
  });

  test("extension.json: the extension is not loaded, with a warning naming the file; the run goes on", async () => {
    const dir = join(env.base, "deep-manifest");
    mkdirSync(dir);
    writeFileSync(join(dir, "extension.json"), `{"name":"deep-manifest","exec":"./x","x":${nestedArrays(LEVELS)}}`);
    env.server.enqueue({ type: "text", text: "fine" });
    const result = await env.run(["-p", "hi", "--ext", dir, ...env.providerArgs()]);
    expect(result.stderr).toContain(`${join(dir, "extension.json")}: is JSON nested deeper than 256 levels`);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("fine\n");
  });
});
