/**
 * JSON mode through dist/zot: every stdout line parses, a tool step yields
 * the documented event order ending in `done`, failures end in exactly one
 * `error` line (also when setup fails before the agent runs), and the field
 * shapes match docs/json.md.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseJsonLines, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

/** Event types with streaming deltas folded away, to compare sequences. */
function skeleton(types: readonly string[]): string[] {
  const streaming = new Set(["text_delta", "tool_use_start", "tool_use_args", "tool_use_end"]);
  return types.filter((type) => !streaming.has(type));
}

test("a tool step streams the documented event sequence and ends with done", async () => {
  writeFileSync(join(env.cwd, "data.txt"), "forty-two <&>\n");
  env.server.enqueue(
    { type: "tool_calls", text: "Let me look.", calls: [{ id: "call_1", name: "read", arguments: { path: "data.txt" } }] },
    { type: "text", text: "It says forty-two." },
  );
  const result = await env.run(["--json", "what is in data.txt?", ...env.providerArgs()]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout.endsWith("\n")).toBe(true);
  const events = parseJsonLines(result.stdout);
  const types = events.map((event) => String(event.type));
  expect(skeleton(types)).toEqual([
    "user_message",
    "turn_start",
    "assistant_start",
    "usage",
    "assistant_message",
    "tool_call",
    "turn_end",
    "tool_result",
    "turn_start",
    "assistant_start",
    "usage",
    "assistant_message",
    "turn_end",
    "done",
  ]);
  for (const type of ["text_delta", "tool_use_start", "tool_use_args", "tool_use_end"]) expect(types).toContain(type);
  // Like the original zot, `usage` is the stream's last event: right after the last delta, before the message.
  const firstUsage = types.indexOf("usage");
  expect(types.slice(firstUsage - 1, firstUsage + 4)).toEqual(["tool_use_end", "usage", "assistant_message", "tool_call", "turn_end"]);
  const lastUsage = types.lastIndexOf("usage");
  expect(types.slice(lastUsage - 1, lastUsage + 4)).toEqual(["text_delta", "usage", "assistant_message", "turn_end", "done"]);

  const byType = (type: string) => events.filter((event) => event.type === type);
  expect(byType("user_message")[0]).toMatchObject({ content: [{ type: "text", text: "what is in data.txt?" }] });
  expect(typeof byType("user_message")[0]?.time).toBe("string");
  expect(byType("turn_start").map((event) => event.step)).toEqual([1, 2]);
  expect(byType("tool_call")[0]).toEqual({ type: "tool_call", id: "call_1", name: "read", args: { path: "data.txt" } });
  const toolResult = byType("tool_result")[0];
  expect(toolResult).toMatchObject({ type: "tool_result", id: "call_1", is_error: false });
  expect(JSON.stringify(toolResult?.content)).toContain("forty-two <&>");
  expect(byType("assistant_message")[0]).toMatchObject({
    content: [
      { type: "text", text: "Let me look." },
      { type: "tool_call", id: "call_1", name: "read", args: { path: "data.txt" } },
    ],
  });
  expect(byType("turn_end").map((event) => event.stop)).toEqual(["tool_use", "end"]);
  expect(byType("usage")[1]).toMatchObject({ input: 10, output: 5, cumulative: { input: 20, output: 10 } });
  // Go-style HTML escaping of <, >, & in the raw line.
  expect(result.stdout).toContain("forty-two \\u003c\\u0026\\u003e");
});

test("a provider failure ends with exactly one error line and exit 1", async () => {
  env.server.enqueue({ type: "http_error", status: 400, message: "bad request body" });
  const result = await env.run(["--json", "hi", ...env.providerArgs("openai")]);
  expect(result.code).toBe(1);
  const events = parseJsonLines(result.stdout);
  expect(events.at(-1)).toEqual({ type: "error", message: "openai: http 400: invalid_request_error: bad request body" });
  expect(events.filter((event) => event.type === "error" || event.type === "done")).toHaveLength(1);
  expect(events.at(-2)).toMatchObject({ type: "turn_end", stop: "error" });
  expect(result.stderr).toBe("zot: openai: http 400: invalid_request_error: bad request body\n");
  // A refused request never began a response: no assistant_start (the original's setup error).
  expect(events.map((event) => event.type)).not.toContain("assistant_start");
});

test("an error event inside a begun stream: assistant_start, then turn_end and the error in the original's wording", async () => {
  env.server.enqueue({ type: "stream_error", errorType: "overloaded_error", message: "Overloaded" });
  const result = await env.run(["--json", "hi", ...env.providerArgs()]);
  expect(result.code).toBe(1);
  const events = parseJsonLines(result.stdout);
  expect(events.map((event) => event.type)).toEqual(["user_message", "turn_start", "assistant_start", "turn_end", "error"]);
  expect(events.at(-1)).toEqual({ type: "error", message: "anthropic overloaded_error: Overloaded" });
});

test("max steps exceeded ends with a done line, then an error line, as the original's", async () => {
  const call = { type: "tool_calls" as const, calls: [{ name: "bash", arguments: { command: "true" } }] };
  env.server.enqueue(call, call);
  const result = await env.run(["--json", "loop", "--max-steps", "2", ...env.providerArgs()]);
  expect(result.code).toBe(1);
  const events = parseJsonLines(result.stdout);
  expect(events.slice(-2)).toEqual([{ type: "done" }, { type: "error", message: "max steps (2) exceeded" }]);
  expect(events.filter((event) => event.type === "turn_start")).toHaveLength(2);
});

test("a setup failure before the agent runs is still one error line", async () => {
  const missingKey = await env.run(["--json", "hi", "--provider", "anthropic"]);
  expect(missingKey.code).toBe(1);
  expect(parseJsonLines(missingKey.stdout)).toEqual([
    { type: "error", message: `no API key for anthropic: set ANTHROPIC_API_KEY, pass --api-key, run \`zot login anthropic\`, or write {"anthropic":{"api_key":"…"}} to ${join(env.home, "auth.json")}` },
  ]);

  const usage = await env.run(["--json", "hi", "--max-steps", "zero", ...env.providerArgs()]);
  expect(usage.code).toBe(2);
  expect(parseJsonLines(usage.stdout)).toEqual([{ type: "error", message: '--max-steps must be a positive integer, got "zero"' }]);

  const noPrompt = await env.run(["--json", ...env.providerArgs()]);
  expect(noPrompt.code).toBe(2);
  expect(parseJsonLines(noPrompt.stdout)).toEqual([{ type: "error", message: "json mode requires a prompt (argument or stdin)" }]);
  expect(env.server.requests).toHaveLength(0);
});

test("the model's thinking streams to the terminal UI only: --json writes no thinking_delta and no thinking text", async () => {
  env.server.enqueue({ type: "thinking", thinking: "secret musing about the answer", text: "The answer is 4." });
  const result = await env.run(["--json", "what is 2+2?", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  const types = parseJsonLines(result.stdout).map((event) => String(event.type));
  expect(types).toContain("text_delta");
  expect(types).not.toContain("thinking_delta");
  expect(result.stdout).not.toContain("musing");
});

test("calls that wait, run and fail write no UI-only line: no tool_start, no tool_guard", async () => {
  env.server.enqueue(
    {
      type: "tool_calls",
      calls: [
        { id: "a", name: "bash", arguments: { command: "sleep 0.2; echo A" } },
        { id: "b", name: "bash", arguments: { command: "echo B" } },
        { id: "c", name: "no_such_tool", arguments: {} },
      ],
    },
    { type: "text", text: "done" },
  );
  const result = await env.run(["--json", "go", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  const events = parseJsonLines(result.stdout);
  const types = events.map((event) => String(event.type));
  expect(types).not.toContain("tool_start");
  expect(types).not.toContain("tool_guard");
  // bash's output lines arrive as tool_progress: left out of the comparison.
  expect(skeleton(types).filter((type) => type !== "tool_progress")).toEqual([
    "user_message", "turn_start", "assistant_start", "usage", "assistant_message", "tool_call", "tool_call", "tool_call", "turn_end",
    "tool_result", "tool_result", "tool_result", "turn_start", "assistant_start", "usage", "assistant_message", "turn_end", "done",
  ]);
  expect(events.filter((event) => event.type === "tool_result").map((event) => event.id)).toEqual(["a", "b", "c"]);
});
