import { describe, expect, test } from "bun:test";
import { createClient } from "../../src/providers/index.ts";
import type { Message } from "../../src/providers/types.ts";
import { recorder, request, testModel, useModelServer, userText } from "./helpers.ts";

const server = useModelServer();

const gpt4o = testModel({ provider: "openai", id: "gpt-4o", reasoning: false, priceInput: 2.5, priceOutput: 10, priceCacheRead: 1.25, priceCacheWrite: 0 });
const gpt5 = testModel({ provider: "openai", id: "gpt-5", reasoning: true, priceInput: 1.25, priceOutput: 10, priceCacheRead: 0.125, priceCacheWrite: 0 });
const codex = testModel({ provider: "openai", id: "gpt-5-codex", reasoning: true, api: "responses", priceInput: 1.25, priceOutput: 10, priceCacheRead: 0.125, priceCacheWrite: 0 });
const openai = (baseUrl = server().openaiBaseUrl) => createClient({ provider: "openai", apiKey: "sk-openai", baseUrl, retry: { baseDelayMs: 1 } });

type ChatBody = Record<string, unknown> & { messages: Record<string, unknown>[] };
const lastBody = <T = ChatBody>() => server().requests.at(-1)?.body as T;

describe("openai chat completions", () => {
  test("streams text; usage splits cached prompt tokens into cache reads and prices them", async () => {
    server().enqueue({ type: "text", text: "Hi from GPT", chunks: 3, usage: { input: 700, output: 50, cacheRead: 300 } });
    const events = recorder();
    const result = await openai().stream(request(gpt4o, [userText("hello")]), events.onEvent);
    expect(result.stop).toBe("end");
    expect(result.message.content).toEqual([{ type: "text", text: "Hi from GPT" }]);
    expect(events.text()).toBe("Hi from GPT");
    expect(result.usage).toMatchObject({ input_tokens: 700, output_tokens: 50, cache_read_tokens: 300, cache_write_tokens: 0 });
    expect(result.usage.cost_usd).toBeCloseTo((700 * 2.5 + 50 * 10 + 300 * 1.25) / 1e6, 12);

    const recorded = server().requests[0];
    expect(recorded?.path).toBe("/v1/chat/completions");
    expect(recorded?.headers.authorization).toBe("Bearer sk-openai");
    const body = lastBody();
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.max_tokens).toBe(gpt4o.maxOutput);
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.tool_choice).toBe("auto");
    expect(body.messages[0]).toEqual({ role: "system", content: "You are a test." });
    expect(body.messages[1]).toEqual({ role: "user", content: "hello" });
  });

  test("tool calls assemble by index; results become role tool messages; images are data URLs", async () => {
    server().enqueue({
      type: "tool_calls",
      calls: [
        { id: "call_a", name: "read", arguments: { path: "README.md" } },
        { id: "call_b", name: "bash", arguments: { command: "echo hi" } },
      ],
      argChunks: 4,
    });
    const events = recorder();
    const first = await openai().stream(request(gpt4o, [userText("go")]), events.onEvent);
    expect(first.stop).toBe("tool_use");
    expect(first.message.content).toEqual([
      { type: "tool_call", id: "call_a", name: "read", arguments: '{"path":"README.md"}' },
      { type: "tool_call", id: "call_b", name: "bash", arguments: '{"command":"echo hi"}' },
    ]);
    expect(events.events.filter((event) => event.type === "tool_use_end").map((event) => ("id" in event ? event.id : ""))).toEqual(["call_a", "call_b"]);
    expect(events.events.filter((event) => event.type === "tool_use_args" && event.id === "call_a").length).toBe(4);

    server().enqueue({ type: "text", text: "ok" });
    const results: Message = {
      role: "tool",
      content: [
        { type: "tool_result", call_id: "call_a", content: [{ type: "text", text: "# readme" }], is_error: false },
        { type: "tool_result", call_id: "call_b", content: [{ type: "text", text: "denied" }], is_error: true },
        { type: "tool_result", call_id: "call_zombie", content: [{ type: "text", text: "orphan" }], is_error: false },
      ],
      time: "t",
    };
    const picture: Message = { role: "user", content: [{ type: "text", text: "and this" }, { type: "image", mime_type: "image/png", data: "AAAA" }], time: "t" };
    await openai().stream(request(gpt4o, [userText("go"), first.message, results, picture]), () => {});
    const body = lastBody();
    expect(body.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "read", arguments: '{"path":"README.md"}' } },
          { id: "call_b", type: "function", function: { name: "bash", arguments: '{"command":"echo hi"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "# readme" },
      { role: "tool", tool_call_id: "call_b", content: "denied [error]" },
      {
        role: "user",
        content: [
          { type: "text", text: "and this" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        ],
      },
    ]);
  });

  test("reasoning models get max_completion_tokens and reasoning_effort; reasoning_content is kept", async () => {
    server().enqueue({ type: "thinking", thinking: "step by step", text: "42" });
    const events = recorder();
    const result = await openai().stream(request(gpt5, [userText("q")], { reasoning: "high" }), events.onEvent);
    const body = lastBody();
    expect(body.max_completion_tokens).toBe(gpt5.maxOutput);
    expect(body.reasoning_effort).toBe("high");
    expect(body.max_tokens).toBeUndefined();
    expect(result.message.content).toEqual([
      { type: "reasoning", summary: "step by step" },
      { type: "text", text: "42" },
    ]);
    expect(events.events.some((event) => event.type === "thinking_delta")).toBe(true);
  });

  test("a base URL without /v1 gets /v1/chat/completions; ollama sends no key", async () => {
    server().enqueue({ type: "text", text: "a" }, { type: "text", text: "b" });
    await openai(server().url).stream(request(gpt4o, [userText("x")]), () => {});
    expect(server().requests[0]?.path).toBe("/v1/chat/completions");
    const ollama = createClient({ provider: "ollama", apiKey: "", baseUrl: server().openaiBaseUrl });
    expect(ollama.name).toBe("ollama");
    const local = testModel({ provider: "ollama", id: "llama3", reasoning: false, priceInput: 0, priceOutput: 0, priceCacheRead: 0, priceCacheWrite: 0 });
    const result = await ollama.stream(request(local, [userText("x")]), () => {});
    expect(result.message.content).toEqual([{ type: "text", text: "b" }]);
    expect(result.usage.cost_usd).toBe(0);
    expect(server().requests[1]?.headers.authorization).toBeUndefined();
    expect((server().requests[1]?.body as ChatBody).model).toBe("llama3");
  });
});

describe("openai responses api", () => {
  type ResponsesBody = { store: boolean; include: string[]; instructions: string; reasoning?: unknown; input: Record<string, unknown>[]; tools: Record<string, unknown>[] };

  test("streams reasoning, text and function calls; replays encrypted reasoning next time", async () => {
    server().enqueue({
      type: "thinking",
      thinking: "plan it",
      signature: "enc-blob",
      text: "Calling a tool.",
      calls: [{ id: "call_r1", name: "read", arguments: { path: "go.mod" } }],
      usage: { input: 100, output: 20, cacheRead: 50 },
    });
    const events = recorder();
    const first = await openai().stream(request(codex, [userText("start")], { reasoning: "low" }), events.onEvent);
    expect(server().requests[0]?.path).toBe("/v1/responses");
    const body = lastBody<ResponsesBody>();
    expect(body.store).toBe(false);
    expect(body.include).toEqual(["reasoning.encrypted_content"]);
    expect(body.instructions).toBe("You are a test.");
    expect(body.reasoning).toEqual({ effort: "low", summary: "auto" });
    expect(body.tools[0]).toMatchObject({ type: "function", name: "read" });
    expect(first.stop).toBe("tool_use");
    expect(first.message.content).toEqual([
      { type: "reasoning", id: "rs_stand_in", summary: "plan it", encrypted_content: "enc-blob" },
      { type: "text", text: "Calling a tool." },
      { type: "tool_call", id: "call_r1", name: "read", arguments: '{"path":"go.mod"}' },
    ]);
    expect(first.usage).toMatchObject({ input_tokens: 100, output_tokens: 20, cache_read_tokens: 50 });
    expect(events.text()).toBe("Calling a tool.");
    expect(events.events.map((event) => event.type)).toContain("tool_use_end");

    server().enqueue({ type: "text", text: "done" });
    const results: Message = {
      role: "tool",
      content: [{ type: "tool_result", call_id: "call_r1", content: [{ type: "text", text: "module x" }], is_error: false }],
      time: "t",
    };
    const second = await openai().stream(request(codex, [userText("start"), first.message, results]), () => {});
    expect(second.message.content).toEqual([{ type: "text", text: "done" }]);
    expect(lastBody<ResponsesBody>().input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "start" }] },
      { type: "reasoning", id: "rs_stand_in", summary: [{ type: "summary_text", text: "plan it" }], encrypted_content: "enc-blob" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Calling a tool." }] },
      { type: "function_call", call_id: "call_r1", name: "read", arguments: '{"path":"go.mod"}' },
      { type: "function_call_output", call_id: "call_r1", output: "module x" },
    ]);
  });

  test("response.incomplete for max_output_tokens is stop length; error events reject", async () => {
    server().enqueue({ type: "text", text: "cut", stop: "length" }, { type: "stream_error", errorType: "server_error", message: "exploded" });
    const cut = await openai().stream(request(codex, [userText("x")]), () => {});
    expect(cut.stop).toBe("length");
    const err = await openai().stream(request(codex, [userText("x")]), () => {}).catch((failure: unknown) => failure);
    expect(err).toMatchObject({ kind: "api", message: "openai: server_error: exploded" });
  });
});
