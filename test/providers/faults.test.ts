import { describe, expect, test } from "bun:test";
import { createClient, type ProviderName } from "../../src/providers/index.ts";
import { ProviderError } from "../../src/providers/types.ts";
import { resolveStallTimeoutMs } from "../../src/providers/http.ts";
import { startModelServer } from "../support/model-server.ts";
import { recorder, rejection, request, testModel, useModelServer, userText } from "./helpers.ts";

const server = useModelServer();

const anthropicModel = testModel();
const openaiModel = testModel({ provider: "openai", id: "gpt-4o", reasoning: false });
const responsesModel = testModel({ provider: "openai", id: "gpt-5-codex", api: "responses" });

function clientFor(provider: ProviderName, extra: { stallTimeoutMs?: number; retryDelaysMs?: readonly number[]; baseUrl?: string } = {}) {
  return createClient({
    provider,
    apiKey: "sk-test",
    baseUrl: extra.baseUrl ?? (provider === "anthropic" ? server().anthropicBaseUrl : server().openaiBaseUrl),
    retryDelaysMs: extra.retryDelaysMs ?? [5, 5],
    ...(extra.stallTimeoutMs ? { stallTimeoutMs: extra.stallTimeoutMs } : {}),
  });
}

async function failureOf(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe("retries before the stream starts", () => {
  test("503 then success is retried silently with the default backoff", async () => {
    server().enqueue({ type: "http_error", status: 503, message: "busy" }, { type: "text", text: "fine" });
    const client = createClient({ provider: "anthropic", apiKey: "k", baseUrl: server().anthropicBaseUrl });
    const started = performance.now();
    const result = await client.stream(request(anthropicModel, [userText("hi")]), () => {});
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    expect(result.message.content).toEqual([{ type: "text", text: "fine" }]);
    expect(server().requests.length).toBe(2);
  });

  test("503 three times surfaces the 503 after two retries", async () => {
    server().enqueue(
      { type: "http_error", status: 503, message: "busy 1" },
      { type: "http_error", status: 503, message: "busy 2" },
      { type: "http_error", status: 503, message: "busy 3", errorType: "overloaded_error" },
      { type: "text", text: "never reached" },
    );
    const failure = await failureOf(clientFor("anthropic").stream(request(anthropicModel, [userText("hi")]), () => {}));
    expect(failure.kind).toBe("http");
    expect(failure.status).toBe(503);
    expect(failure.message).toBe("anthropic: 503 overloaded_error: busy 3");
    expect(server().requests.length).toBe(3);
    expect(server().pending()).toBe(1);
    await clientFor("anthropic").stream(request(anthropicModel, [userText("drain")]), () => {});
  });

  test("400, 413 and 429 are not retried; OpenAI error bodies give one line", async () => {
    for (const status of [400, 413, 429]) {
      server().requests.length = 0;
      server().enqueue({ type: "http_error", status, message: `problem ${status}` }, { type: "text", text: "unused" });
      const failure = await failureOf(clientFor("openai").stream(request(openaiModel, [userText("hi")]), () => {}));
      expect(failure.kind).toBe("http");
      expect(failure.status).toBe(status);
      expect(failure.message).toStartWith(`openai: ${status} `);
      expect(failure.message).toContain(`problem ${status}`);
      expect(failure.message).not.toContain("\n");
      expect(server().requests.length).toBe(1);
      await clientFor("openai").stream(request(openaiModel, [userText("drain")]), () => {});
    }
  });

  test("a non-JSON error body is capped and kept to one line", async () => {
    server().enqueue({ type: "http_error", status: 500, rawBody: `<html>\n<body>${"x".repeat(10_000)}</body>\n</html>` });
    const failure = await failureOf(clientFor("anthropic").stream(request(anthropicModel, [userText("hi")]), () => {}));
    expect(failure.status).toBe(500);
    expect(failure.message).not.toContain("\n");
    expect(failure.message.length).toBeLessThan(600);
  });

  test("a refused connection is retried, then reported as a network error", async () => {
    const closed = startModelServer();
    const deadUrl = closed.url;
    await closed.stop();
    const failure = await failureOf(clientFor("anthropic", { baseUrl: deadUrl }).stream(request(anthropicModel, [userText("hi")]), () => {}));
    expect(failure.kind).toBe("network");
    expect(failure.message).toStartWith("anthropic: connection failed");
  });
});

describe("stream faults are errors, never silent truncation", () => {
  for (const provider of ["anthropic", "openai"] as const) {
    const model = provider === "anthropic" ? anthropicModel : openaiModel;

    test(`${provider}: a stalled stream raises "stalled" after the stall timeout`, async () => {
      server().enqueue({ type: "stall", text: "partial" });
      const started = performance.now();
      const failure = await failureOf(clientFor(provider, { stallTimeoutMs: 150 }).stream(request(model, [userText("hi")]), () => {}));
      expect(failure.kind).toBe("stalled");
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
      expect(performance.now() - started).toBeLessThan(3000);
    });

    test(`${provider}: a dropped connection raises "network"`, async () => {
      server().enqueue({ type: "drop", text: "partial" });
      const failure = await failureOf(clientFor(provider).stream(request(model, [userText("hi")]), () => {}));
      expect(failure.kind).toBe("network");
      expect(failure.message).toContain("dropped");
    });

    test(`${provider}: unparseable event data raises "malformed"`, async () => {
      server().enqueue({ type: "malformed" });
      const failure = await failureOf(clientFor(provider).stream(request(model, [userText("hi")]), () => {}));
      expect(failure.kind).toBe("malformed");
    });

    test(`${provider}: a stream without its terminal event raises "truncated"`, async () => {
      server().enqueue({ type: "no_terminal", text: "almost done" });
      const events = recorder();
      const failure = await failureOf(clientFor(provider).stream(request(model, [userText("hi")]), events.onEvent));
      expect(failure.kind).toBe("truncated");
      expect(events.text()).toBe("almost done");
    });

    test(`${provider}: abort mid-stream resolves with stop "aborted" and the partial message`, async () => {
      server().enqueue({ type: "stall", text: "half an ans" });
      const controller = new AbortController();
      const events = recorder();
      const pending = clientFor(provider, { stallTimeoutMs: 10_000 }).stream(request(model, [userText("hi")], { signal: controller.signal }), (event) => {
        events.onEvent(event);
        if (events.text() === "half an ans") controller.abort();
      });
      const result = await pending;
      expect(result.stop).toBe("aborted");
      expect(result.message.content).toEqual([{ type: "text", text: "half an ans" }]);
    });
  }

  test("responses: stalled, truncated and malformed streams are errors too", async () => {
    server().enqueue({ type: "stall" }, { type: "no_terminal" }, { type: "malformed" });
    const client = clientFor("openai", { stallTimeoutMs: 150 });
    const kinds: string[] = [];
    for (let i = 0; i < 3; i++) kinds.push((await failureOf(client.stream(request(responsesModel, [userText("hi")]), () => {}))).kind);
    expect(kinds).toEqual(["stalled", "truncated", "malformed"]);
  });

  test("abort before the request is sent resolves as aborted without a request", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await clientFor("anthropic").stream(request(anthropicModel, [userText("hi")], { signal: controller.signal }), () => {});
    expect(result.stop).toBe("aborted");
    expect(result.message.content).toEqual([]);
    expect(server().requests.length).toBe(0);
  });
});

describe("stall timeout configuration", () => {
  test("option beats ZOT_STREAM_IDLE_TIMEOUT_MS, which beats the 120 s default", () => {
    expect(resolveStallTimeoutMs(500, { ZOT_STREAM_IDLE_TIMEOUT_MS: "900" })).toBe(500);
    expect(resolveStallTimeoutMs(undefined, { ZOT_STREAM_IDLE_TIMEOUT_MS: "900" })).toBe(900);
    expect(resolveStallTimeoutMs(undefined, { ZOT_STREAM_IDLE_TIMEOUT_MS: "nonsense" })).toBe(120_000);
    expect(resolveStallTimeoutMs(undefined, {})).toBe(120_000);
  });
});
