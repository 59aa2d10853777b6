import { describe, expect, test } from "bun:test";
import { createClient } from "../../src/providers/index.ts";
import { ProviderError, type Message } from "../../src/providers/types.ts";
import { recorder, rejection, request, testModel, useModelServer, userText } from "./helpers.ts";

const server = useModelServer();

const model = testModel();
const client = () => createClient({ provider: "anthropic", apiKey: "sk-test", baseUrl: server().anthropicBaseUrl, retry: { baseDelayMs: 1 } });

type WireBody = { model: string; max_tokens: number; thinking?: unknown; system?: unknown; tools?: { cache_control?: unknown }[]; messages: { role: string; content: Record<string, unknown>[] }[] };
const lastBody = () => server().requests.at(-1)?.body as WireBody;

describe("anthropic client", () => {
  test("streams text, assembles the message, and prices the usage", async () => {
    server().enqueue({ type: "text", text: "Hello there, world!", chunks: 4, usage: { input: 1000, output: 200, cacheRead: 3000, cacheWrite: 400 } });
    const events = recorder();
    const result = await client().stream(request(model, [userText("hi")]), events.onEvent);
    expect(result.stop).toBe("end");
    expect(result.message.role).toBe("assistant");
    expect(result.message.content).toEqual([{ type: "text", text: "Hello there, world!" }]);
    expect(events.text()).toBe("Hello there, world!");
    expect(events.events.filter((event) => event.type === "text_delta").length).toBe(4);
    // message_delta reports output 200 after message_start said 1: assigned, not added.
    expect(result.usage).toMatchObject({ input_tokens: 1000, output_tokens: 200, cache_read_tokens: 3000, cache_write_tokens: 400 });
    const expectedCost = (1000 * 3 + 200 * 15 + 3000 * 0.3 + 400 * 3.75) / 1e6;
    expect(result.usage.cost_usd).toBeCloseTo(expectedCost, 12);
    const usageEvents = events.events.filter((event) => event.type === "usage");
    expect(usageEvents).toEqual([{ type: "usage", usage: result.usage }]);
  });

  test("sends the documented headers, cache breakpoints and body shape", async () => {
    server().enqueue({ type: "text", text: "ok" });
    await client().stream(request(model, [userText("first"), { role: "assistant", content: [{ type: "text", text: "sure" }], time: "t" }, userText("second")]), () => {});
    const recorded = server().requests[0];
    expect(recorded?.path).toBe("/v1/messages");
    expect(recorded?.headers["x-api-key"]).toBe("sk-test");
    expect(recorded?.headers["anthropic-version"]).toBe("2023-06-01");
    const body = lastBody();
    expect(body.model).toBe("claude-sonnet-4-5");
    expect(body.max_tokens).toBe(64_000);
    expect(body.thinking).toBeUndefined();
    expect(body.system).toEqual([{ type: "text", text: "You are a test.", cache_control: { type: "ephemeral" } }]);
    expect(body.tools?.map((tool) => tool.cache_control)).toEqual([undefined, { type: "ephemeral" }]);
    expect(body.messages[0]?.content[0]?.cache_control).toBeUndefined();
    expect(body.messages[2]?.content[0]).toEqual({ type: "text", text: "second", cache_control: { type: "ephemeral" } });
  });

  test("several tool calls stream their arguments in pieces; results go in their own user message", async () => {
    server().enqueue({
      type: "tool_calls",
      text: "Let me look.",
      calls: [
        { id: "toolu_1", name: "read", arguments: { path: "a.txt" } },
        { id: "toolu_2", name: "bash", arguments: { command: "ls -la" } },
      ],
      argChunks: 3,
    });
    const events = recorder();
    const result = await client().stream(request(model, [userText("look")]), events.onEvent);
    expect(result.stop).toBe("tool_use");
    expect(result.message.content).toEqual([
      { type: "text", text: "Let me look." },
      { type: "tool_call", id: "toolu_1", name: "read", arguments: '{"path":"a.txt"}' },
      { type: "tool_call", id: "toolu_2", name: "bash", arguments: '{"command":"ls -la"}' },
    ]);
    const kinds = events.events.filter((event) => event.type.startsWith("tool_use")).map((event) => `${event.type}:${"id" in event ? event.id : ""}`);
    expect(kinds[0]).toBe("tool_use_start:toolu_1");
    expect(kinds.filter((kind) => kind === "tool_use_args:toolu_1").length).toBe(3);
    expect(kinds).toContain("tool_use_end:toolu_2");
    const args = events.events.flatMap((event) => (event.type === "tool_use_args" && event.id === "toolu_2" ? [event.delta] : [])).join("");
    expect(args).toBe('{"command":"ls -la"}');

    server().enqueue({ type: "text", text: "done" });
    const toolMessage: Message = {
      role: "tool",
      content: [
        { type: "tool_result", call_id: "toolu_1", content: [{ type: "text", text: "contents" }], is_error: false },
        { type: "tool_result", call_id: "toolu_2", content: [{ type: "text", text: "boom" }], is_error: true },
      ],
      time: "t",
    };
    await client().stream(request(model, [userText("look"), result.message, toolMessage]), () => {});
    const body = lastBody();
    expect(body.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(body.messages[1]?.content[1]).toEqual({ type: "tool_use", id: "toolu_1", name: "read", input: { path: "a.txt" } });
    expect(body.messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "contents", is_error: false },
      { type: "tool_result", tool_use_id: "toolu_2", content: "boom", is_error: true, cache_control: { type: "ephemeral" } },
    ]);
  });

  test("thinking and redacted_thinking blocks are kept and replayed in the next request", async () => {
    server().enqueue({
      type: "thinking",
      thinking: "I should read the file.",
      signature: "sig-abc",
      redacted: "opaque-bytes",
      text: "Reading.",
      calls: [{ id: "toolu_9", name: "read", arguments: { path: "x" } }],
    });
    const events = recorder();
    const reasoningModel = testModel();
    const first = await client().stream(request(reasoningModel, [userText("go")], { reasoning: "medium", maxTokens: 4000 }), events.onEvent);
    expect(lastBody().thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(lastBody().max_tokens).toBe(8192 + 4096);
    expect(first.message.content.slice(0, 2)).toEqual([
      { type: "thinking", thinking: "I should read the file.", signature: "sig-abc" },
      { type: "redacted_thinking", data: "opaque-bytes" },
    ]);
    expect(events.events.filter((event) => event.type === "thinking_delta").map((event) => ("delta" in event ? event.delta : "")).join("")).toBe(
      "I should read the file.",
    );

    server().enqueue({ type: "text", text: "done" });
    const toolMessage: Message = {
      role: "tool",
      content: [{ type: "tool_result", call_id: "toolu_9", content: [{ type: "text", text: "data" }], is_error: false }],
      time: "t",
    };
    await client().stream(request(reasoningModel, [userText("go"), first.message, toolMessage], { reasoning: "medium" }), () => {});
    const replayed = lastBody().messages[1]?.content;
    expect(replayed?.[0]).toEqual({ type: "thinking", thinking: "I should read the file.", signature: "sig-abc" });
    expect(replayed?.[1]).toEqual({ type: "redacted_thinking", data: "opaque-bytes" });
    expect(replayed?.[3]).toMatchObject({ type: "tool_use", id: "toolu_9" });
  });

  test("max_tokens stop maps to length; images are sent as base64 sources", async () => {
    server().enqueue({ type: "text", text: "cut", stop: "length" });
    const withImage: Message = {
      role: "user",
      content: [
        { type: "text", text: "what is this" },
        { type: "image", mime_type: "image/png", data: "iVBORw0KGgo=" },
      ],
      time: "t",
    };
    const result = await client().stream(request(model, [withImage]), () => {});
    expect(result.stop).toBe("length");
    expect(lastBody().messages[0]?.content[1]).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
      cache_control: { type: "ephemeral" },
    });
  });

  test("401 becomes one clear line with the status and the provider's message", async () => {
    server().enqueue({ type: "http_error", status: 401, message: "invalid x-api-key" });
    const err = await rejection(client().stream(request(model, [userText("hi")]), () => {}));
    expect(err).toBeInstanceOf(ProviderError);
    const failure = err as ProviderError;
    expect(failure.kind).toBe("http");
    expect(failure.status).toBe(401);
    expect(failure.message).toBe("anthropic: http 401: authentication_error: invalid x-api-key");
    expect(server().requests.length).toBe(1);
  });

  test("an in-stream error event rejects with kind api", async () => {
    server().enqueue({ type: "stream_error", errorType: "overloaded_error", message: "Overloaded" });
    const err = await rejection(client().stream(request(model, [userText("hi")]), () => {}));
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).kind).toBe("api");
    expect((err as ProviderError).message).toBe("anthropic overloaded_error: Overloaded");
  });
});
