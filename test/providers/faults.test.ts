import { describe, expect, test } from "bun:test";
import { createClient, type ProviderName } from "../../src/providers/index.ts";
import { ProviderError, type StreamEvent } from "../../src/providers/types.ts";
import { DEFAULT_STALL_TIMEOUT_MS, resolveKeepaliveTimeoutMs, resolveMaxOutputChars, resolveMaxResponseBytes, resolveStallTimeoutMs } from "../../src/providers/http.ts";
import type { RetryPolicy } from "../../src/providers/retry.ts";
import { SSE_MAX_EVENT_CHARS, SSE_MAX_LINE_CHARS } from "../../src/providers/sse.ts";
import { startModelServer } from "../support/model-server.ts";
import { startResettingProxy } from "../support/resetting-proxy.ts";
import { recorder, rejection, request, testModel, useModelServer, userText } from "./helpers.ts";

const server = useModelServer();

const anthropicModel = testModel();
const openaiModel = testModel({ provider: "openai", id: "gpt-4o", reasoning: false });
const responsesModel = testModel({ provider: "openai", id: "gpt-5-codex", api: "responses" });

function clientFor(
  provider: ProviderName,
  extra: { stallTimeoutMs?: number; keepaliveTimeoutMs?: number; maxResponseBytes?: number; retry?: Partial<RetryPolicy>; baseUrl?: string } = {},
) {
  return createClient({
    provider,
    apiKey: "sk-test",
    baseUrl: extra.baseUrl ?? (provider === "anthropic" ? server().anthropicBaseUrl : server().openaiBaseUrl),
    retry: { baseDelayMs: 5, maxRetries: 2, ...extra.retry },
    ...(extra.stallTimeoutMs ? { stallTimeoutMs: extra.stallTimeoutMs } : {}),
    ...(extra.keepaliveTimeoutMs ? { keepaliveTimeoutMs: extra.keepaliveTimeoutMs } : {}),
    ...(extra.maxResponseBytes ? { maxResponseBytes: extra.maxResponseBytes } : {}),
  });
}

async function failureOf(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

function retriesOf(events: readonly StreamEvent[]): Extract<StreamEvent, { type: "retry" }>[] {
  return events.filter((event): event is Extract<StreamEvent, { type: "retry" }> => event.type === "retry");
}

describe("retries before the stream starts", () => {
  test("503 then success is retried with the default backoff (about 1 s) and announced", async () => {
    server().enqueue({ type: "http_error", status: 503, message: "busy" }, { type: "text", text: "fine" });
    const client = createClient({ provider: "anthropic", apiKey: "k", baseUrl: server().anthropicBaseUrl });
    const events = recorder();
    const started = performance.now();
    const result = await client.stream(request(anthropicModel, [userText("hi")]), events.onEvent);
    expect(performance.now() - started).toBeGreaterThanOrEqual(740);
    expect(result.message.content).toEqual([{ type: "text", text: "fine" }]);
    expect(server().requests.length).toBe(2);
    const [retry] = retriesOf(events.events);
    expect(retry).toMatchObject({ type: "retry", provider: "anthropic", attempt: 1, max_retries: 5, status: 503 });
    expect(retry?.delay_ms).toBeGreaterThanOrEqual(750);
    expect(retry?.delay_ms).toBeLessThanOrEqual(1000);
    expect(retry?.error).toBe("anthropic: http 503: api_error: busy");
    expect(retry?.message).toMatch(/^anthropic: retrying in (\d+ ms|1 s) \(retry 1 of 5\): 503 service unavailable$/);
    // The retry event comes before any stream event.
    expect(events.events[0]?.type).toBe("retry");
  });

  test("429, 529 and 500 are retried, honouring retry-after-ms and Retry-After", async () => {
    server().enqueue(
      { type: "http_error", status: 429, message: "slow down", headers: { "retry-after-ms": "30" } },
      { type: "http_error", status: 529, message: "overloaded", headers: { "retry-after": "0" } },
      { type: "http_error", status: 500, message: "oops" },
      { type: "text", text: "made it" },
    );
    const events = recorder();
    const result = await clientFor("anthropic", { retry: { maxRetries: 5 } }).stream(request(anthropicModel, [userText("hi")]), events.onEvent);
    expect(result.message.content).toEqual([{ type: "text", text: "made it" }]);
    const retries = retriesOf(events.events);
    expect(retries.map((retry) => [retry.status, retry.delay_ms])).toEqual([
      [429, 30],
      [529, 0],
      [500, expect.any(Number)],
    ]);
    expect(retries.map((retry) => retry.message.replace(/retrying in [^(]+/, "retrying in N "))).toEqual([
      "anthropic: retrying in N (retry 1 of 5): 429 rate limited",
      "anthropic: retrying in N (retry 2 of 5): 529 overloaded",
      "anthropic: retrying in N (retry 3 of 5): 500 server error",
    ]);
  });

  test("the retry count is bounded: the last error says how many retries were made", async () => {
    server().enqueue(
      { type: "http_error", status: 503, message: "busy 1" },
      { type: "http_error", status: 503, message: "busy 2" },
      { type: "http_error", status: 503, message: "busy 3", errorType: "overloaded_error" },
      { type: "text", text: "never reached" },
    );
    const failure = await failureOf(clientFor("anthropic").stream(request(anthropicModel, [userText("hi")]), () => {}));
    expect(failure.kind).toBe("http");
    expect(failure.status).toBe(503);
    expect(failure.message).toBe("anthropic: http 503: overloaded_error: busy 3 (gave up after 2 retries)");
    expect(server().requests.length).toBe(3);
    expect(server().pending()).toBe(1);
    await clientFor("anthropic").stream(request(anthropicModel, [userText("drain")]), () => {});
  });

  test("a Retry-After beyond the wait budget gives up at once and says so", async () => {
    server().enqueue({ type: "http_error", status: 429, message: "quota", headers: { "retry-after": "120" } });
    const events = recorder();
    const failure = await failureOf(clientFor("openai").stream(request(openaiModel, [userText("hi")]), events.onEvent));
    expect(failure.status).toBe(429);
    expect(failure.message).toBe(
      "openai: http 429: rate_limit_error: quota (not retried: the server asks to wait 120 s, more than the 60 s left of the 60 s retry budget)",
    );
    expect(retriesOf(events.events)).toEqual([]);
    expect(server().requests.length).toBe(1);
  });

  test("x-should-retry: false stops a retry; 400 and 413 are never retried; OpenAI error bodies give one line", async () => {
    server().enqueue({ type: "http_error", status: 503, message: "no", headers: { "x-should-retry": "false" } });
    expect((await failureOf(clientFor("openai").stream(request(openaiModel, [userText("hi")]), () => {}))).message).toBe("openai: http 503: api_error: no");
    for (const status of [400, 413]) {
      server().requests.length = 0;
      server().enqueue({ type: "http_error", status, message: `problem ${status}` }, { type: "text", text: "unused" });
      const failure = await failureOf(clientFor("openai").stream(request(openaiModel, [userText("hi")]), () => {}));
      expect(failure.kind).toBe("http");
      expect(failure.status).toBe(status);
      expect(failure.message).toStartWith(`openai: http ${status}: `);
      expect(failure.message).toContain(`problem ${status}`);
      expect(failure.message).not.toContain("\n");
      expect(server().requests.length).toBe(1);
      await clientFor("openai").stream(request(openaiModel, [userText("drain")]), () => {});
    }
  });

  test("an abort during a backoff wait ends the call at once, without another request", async () => {
    server().enqueue({ type: "http_error", status: 429, message: "wait", headers: { "retry-after": "50" } }, { type: "text", text: "unused" });
    const controller = new AbortController();
    const pending = clientFor("anthropic").stream(request(anthropicModel, [userText("hi")], { signal: controller.signal }), (event) => {
      if (event.type === "retry") setTimeout(() => controller.abort(), 20);
    });
    const result = await pending;
    expect(result.stop).toBe("aborted");
    expect(server().requests.length).toBe(1);
    expect(server().pending()).toBe(1);
    await clientFor("anthropic").stream(request(anthropicModel, [userText("drain")]), () => {});
  });

  test("a non-JSON error body is capped and kept to one line", async () => {
    server().enqueue({ type: "http_error", status: 400, rawBody: `<html>\n<body>${"x".repeat(10_000)}</body>\n</html>` });
    const failure = await failureOf(clientFor("anthropic").stream(request(anthropicModel, [userText("hi")]), () => {}));
    expect(failure.status).toBe(400);
    expect(failure.message).not.toContain("\n");
    expect(failure.message.length).toBeLessThan(600);
  });

  test("a refused connection is retried twice, then reported naming the URL", async () => {
    const closed = startModelServer();
    const deadUrl = closed.url;
    await closed.stop();
    const events = recorder();
    const failure = await failureOf(clientFor("anthropic", { baseUrl: deadUrl, retry: { maxRetries: 5 } }).stream(request(anthropicModel, [userText("hi")]), events.onEvent));
    expect(failure.kind).toBe("network");
    expect(failure.message).toStartWith(`anthropic: cannot connect to ${deadUrl}/v1/messages: ECONNREFUSED`);
    expect(failure.message).toEndWith("(gave up after 2 retries)");
    expect(retriesOf(events.events).map((retry) => retry.message.replace(/retrying in [^(]+/, "retrying in N "))).toEqual([
      "anthropic: retrying in N (retry 1 of 2): connection refused",
      "anthropic: retrying in N (retry 2 of 2): connection refused",
    ]);
  });

  test("a connection reset before the response is retried", async () => {
    const proxy = startResettingProxy(server().url, 1);
    try {
      server().enqueue({ type: "text", text: "through the proxy" });
      const events = recorder();
      const result = await clientFor("anthropic", { baseUrl: proxy.url }).stream(request(anthropicModel, [userText("hi")]), events.onEvent);
      expect(result.message.content).toEqual([{ type: "text", text: "through the proxy" }]);
      expect(proxy.resets()).toBe(1);
      expect(retriesOf(events.events).map((retry) => retry.message)).toEqual([expect.stringMatching(/\): connection reset$/)]);
    } finally {
      proxy.stop();
    }
  });
});

describe("stream limits", () => {
  test("comment keepalives do not restart the idle timeout", async () => {
    server().enqueue({ type: "keepalive_only", kind: "comment" });
    const failure = await failureOf(clientFor("anthropic", { stallTimeoutMs: 300 }).stream(request(anthropicModel, [userText("hi")]), () => {}));
    expect(failure.kind).toBe("stalled");
    expect(failure.message).toBe("anthropic: stream stalled: no event for 300 ms (only keepalive comments)");
  });

  for (const provider of ["anthropic", "openai"] as const) {
    const model = provider === "anthropic" ? anthropicModel : openaiModel;
    test(`${provider}: keepalive events keep a stream alive past the idle timeout, up to the keepalive timeout`, async () => {
      server().enqueue({ type: "text", text: "after a long think", keepalive: { kind: "event", forMs: 600, everyMs: 30 } });
      const result = await clientFor(provider, { stallTimeoutMs: 200, keepaliveTimeoutMs: 5000 }).stream(request(model, [userText("hi")]), () => {});
      expect(result.message.content).toEqual([{ type: "text", text: "after a long think" }]);

      server().enqueue({ type: "keepalive_only", kind: "event", everyMs: 30 });
      const failure = await failureOf(clientFor(provider, { stallTimeoutMs: 200, keepaliveTimeoutMs: 400 }).stream(request(model, [userText("hi")]), () => {}));
      expect(failure.kind).toBe("stalled");
      expect(failure.message).toBe(`${provider}: stream stalled: no model output for 400 ms (only keepalive events)`);
    });
  }

  test("responses: response.in_progress keepalives end at the keepalive timeout too", async () => {
    server().enqueue({ type: "keepalive_only", kind: "event", everyMs: 30 });
    const failure = await failureOf(clientFor("openai", { stallTimeoutMs: 200, keepaliveTimeoutMs: 400 }).stream(request(responsesModel, [userText("hi")]), () => {}));
    expect(failure.message).toBe("openai: stream stalled: no model output for 400 ms (only keepalive events)");
  });

  test("an endless response ends at the response size cap", async () => {
    server().enqueue({ type: "endless" });
    const events = recorder();
    const failure = await failureOf(clientFor("anthropic", { maxResponseBytes: 1024 * 1024 }).stream(request(anthropicModel, [userText("hi")]), events.onEvent));
    expect(failure.kind).toBe("too_large");
    expect(failure.message).toBe("anthropic: response larger than 1 MiB (the per-response limit)");
    // Every complete event within the first 1 MiB reached the caller, however the bytes were chunked.
    expect(events.text().length).toBeGreaterThan(1024 * 1024 - 2 * 17 * 1024);
  });

  test("an event over 16 Mi characters is refused before it is assembled", async () => {
    server().enqueue({ type: "oversized_event", chars: 17 * 1024 * 1024 });
    const failure = await failureOf(clientFor("openai").stream(request(openaiModel, [userText("hi")]), () => {}));
    expect(failure.kind).toBe("too_large");
    expect(failure.message).toBe("openai: stream event larger than 16 Mi characters (the per-event limit)");
  });

  test("the defaults: 120 s idle, 600 s keepalive, 256 MiB per response, 16 Mi characters per event", () => {
    expect(DEFAULT_STALL_TIMEOUT_MS).toBe(120_000);
    expect(resolveKeepaliveTimeoutMs(undefined, {})).toBe(600_000);
    expect(resolveKeepaliveTimeoutMs(undefined, { ZOT_STREAM_KEEPALIVE_TIMEOUT_MS: "900" })).toBe(900);
    expect(resolveMaxResponseBytes(undefined, {})).toBe(256 * 1024 * 1024);
    expect(resolveMaxResponseBytes(undefined, { ZOT_STREAM_MAX_BYTES: "4096" })).toBe(4096);
    expect(resolveMaxResponseBytes(undefined, { ZOT_STREAM_MAX_BYTES: "-1" })).toBe(256 * 1024 * 1024);
    expect(resolveMaxOutputChars({})).toBe(16 * 1024 * 1024);
    expect(resolveMaxOutputChars({ ZOT_STREAM_MAX_OUTPUT_CHARS: "1000" })).toBe(1000);
    expect(resolveMaxOutputChars({ ZOT_STREAM_MAX_OUTPUT_CHARS: "x" })).toBe(16 * 1024 * 1024);
    expect(SSE_MAX_EVENT_CHARS).toBe(16 * 1024 * 1024);
    expect(SSE_MAX_LINE_CHARS).toBe(10 * 1024 * 1024);
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
