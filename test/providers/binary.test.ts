/**
 * Provider errors and stream limits end to end: dist/zot against the
 * stand-in model server (and a dead port, and a proxy that resets
 * connections). Retries of 429/529/500 with Retry-After, announced on
 * stderr (print), as `retry` events (--json, RPC); the count and wait
 * budget; SIGINT during a backoff wait; connection errors naming the URL
 * (and the Ollama hint); comment-only and ping-only streams ending as
 * "stalled"; an oversized event (default cap) and an endless response
 * ending as too large. Small bounds come from env vars; the defaults are
 * unit-tested in faults.test.ts and retry.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { startModelServer } from "../support/model-server.ts";
import { startResettingProxy } from "../support/resetting-proxy.ts";
import { parseJsonLines, useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

/** The stderr lines, the `retrying in N` delays normalised away. */
function stderrLines(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.replace(/retrying in \d+(\.\d)? (ms|s) /, "retrying in N "));
}

describe("retries before the stream starts", () => {
  test("print: 500, 429 and 529 are retried with a notice each, then the answer", async () => {
    env.server.enqueue(
      { type: "http_error", status: 500, message: "oops" },
      { type: "http_error", status: 429, message: "slow down", headers: { "retry-after": "1" } },
      { type: "http_error", status: 529, message: "overloaded", headers: { "retry-after-ms": "40" } },
      { type: "text", text: "fourth time lucky" },
    );
    const result = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(result.stdout).toBe("fourth time lucky\n");
    expect(result.code).toBe(0);
    const lines = result.stderr.split("\n").filter((line) => line !== "");
    // No Retry-After: the first backoff step (1 s nominal, 750 ms–1 s with jitter).
    expect(lines[0]).toMatch(/^zot: anthropic: retrying in (\d{3} ms|1 s) \(retry 1 of 5\): 500 server error$/);
    expect(lines[1]).toBe("zot: anthropic: retrying in 1 s (retry 2 of 5): 429 rate limited");
    expect(lines[2]).toBe("zot: anthropic: retrying in 40 ms (retry 3 of 5): 529 overloaded");
    expect(lines).toHaveLength(3);
    expect(env.server.requests).toHaveLength(4);
  });

  test("print: the retry count is bounded, and the final error says so", async () => {
    for (let i = 0; i < 6; i++) env.server.enqueue({ type: "http_error", status: 429, message: `slow down ${i}`, headers: { "retry-after-ms": "1" } });
    env.server.enqueue({ type: "text", text: "never reached" });
    const result = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(stderrLines(result.stderr)).toEqual([
      ...[1, 2, 3, 4, 5].map((n) => `zot: anthropic: retrying in N (retry ${n} of 5): 429 rate limited`),
      "zot: anthropic: http 429: rate_limit_error: slow down 5 (gave up after 5 retries)",
    ]);
    expect(env.server.requests).toHaveLength(6);
  });

  test("print: a Retry-After beyond the 60 s budget gives up at once and says why", async () => {
    env.server.enqueue({ type: "http_error", status: 429, message: "daily quota", headers: { "retry-after": "3600" } }, { type: "text", text: "no" });
    const result = await env.run(["-p", "hi", ...env.providerArgs("openai")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "zot: openai: http 429: rate_limit_error: daily quota (not retried: the server asks to wait 3600 s, more than the 60 s left of the 60 s retry budget)\n",
    );
    expect(env.server.requests).toHaveLength(1);
  });

  test("ZOT_MAX_RETRIES=0 turns retries off", async () => {
    env.server.enqueue({ type: "http_error", status: 503, message: "busy" }, { type: "text", text: "no" });
    const result = await env.run(["-p", "hi", ...env.providerArgs()], { env: { ZOT_MAX_RETRIES: "0" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("zot: anthropic: http 503: api_error: busy (retries disabled)\n");
    expect(env.server.requests).toHaveLength(1);
  });

  test("x-should-retry: false is honoured: the stand-in's empty queue fails the run at once", async () => {
    const result = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("zot: anthropic: http 500: api_error: model-server: no scripted reply queued\n");
    expect(env.server.requests).toHaveLength(1);
  });

  test("--json: a retry event between turn_start and assistant_start; stdout carries nothing else new", async () => {
    env.server.enqueue({ type: "http_error", status: 529, message: "overloaded", headers: { "retry-after-ms": "25" } }, { type: "text", text: "ok" });
    const result = await env.run(["--json", "hi", ...env.providerArgs()]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const events = parseJsonLines(result.stdout);
    expect(events.map((event) => event.type)).toEqual([
      "user_message",
      "turn_start",
      "retry",
      "assistant_start",
      "text_delta",
      "text_delta",
      "usage",
      "assistant_message",
      "turn_end",
      "done",
    ]);
    expect(events[2]).toEqual({
      type: "retry",
      provider: "anthropic",
      attempt: 1,
      max_retries: 5,
      delay_ms: 25,
      status: 529,
      error: "anthropic: http 529: overloaded_error: overloaded",
      message: "anthropic: retrying in 25 ms (retry 1 of 5): 529 overloaded",
    });
    expect(Object.keys(events[2] ?? {})[0]).toBe("type");
  });

  test("rpc: the retry event is part of the prompt's stream", async () => {
    env.server.enqueue({ type: "http_error", status: 500, message: "hiccup", headers: { "retry-after": "0" } }, { type: "text", text: "fine" });
    const result = await env.run(["rpc", ...env.providerArgs()], { stdin: `${JSON.stringify({ id: "1", type: "prompt", message: "hi" })}\n` });
    expect(result.code).toBe(0);
    const lines = parseJsonLines(result.stdout);
    const types = lines.map((line) => line.type);
    expect(types.indexOf("retry")).toBeGreaterThan(types.indexOf("turn_start"));
    expect(types.indexOf("retry")).toBeLessThan(types.indexOf("assistant_start"));
    expect(lines.find((line) => line.type === "retry")).toMatchObject({ attempt: 1, delay_ms: 0, status: 500, message: "anthropic: retrying in 0 ms (retry 1 of 5): 500 server error" });
    expect(types.at(-1)).toBe("done");
  });

  test("SIGINT during a backoff wait ends the run at once", async () => {
    env.server.enqueue({ type: "http_error", status: 429, message: "wait", headers: { "retry-after": "50" } }, { type: "text", text: "unused" });
    const proc = Bun.spawn([await zotBinary(), "-p", "hi", ...env.providerArgs()], {
      cwd: env.cwd,
      env: cleanEnv(env.home),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    // 15 s is far less than the 50 s wait.
    const killer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    try {
      let stderr = "";
      const decoder = new TextDecoder();
      const reader = proc.stderr.getReader();
      while (!stderr.includes("retrying in 50 s")) {
        const { done, value } = await reader.read();
        if (done) break;
        stderr += decoder.decode(value, { stream: true });
      }
      expect(stderr).toBe("zot: anthropic: retrying in 50 s (retry 1 of 5): 429 rate limited\n");
      proc.kill("SIGINT");
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        stderr += decoder.decode(value, { stream: true });
      }
      expect(await proc.exited).toBe(130);
      expect(stderr).toEndWith("zot: interrupted\n");
      expect(env.server.requests).toHaveLength(1);
    } finally {
      clearTimeout(killer);
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await proc.exited;
    }
  });

  test("a connection reset before the response is retried with a notice", async () => {
    const proxy = startResettingProxy(env.server.url, 1);
    try {
      env.server.enqueue({ type: "text", text: "through" });
      const result = await env.run(["-p", "hi", "--provider", "anthropic", "--base-url", proxy.url, "--api-key", "k"]);
      expect(result.stdout).toBe("through\n");
      expect(stderrLines(result.stderr)).toEqual(["zot: anthropic: retrying in N (retry 1 of 5): connection reset"]);
      expect(proxy.resets()).toBe(1);
    } finally {
      proxy.stop();
    }
  });

  test("a drop mid-stream is not retried", async () => {
    env.server.enqueue({ type: "drop", text: "half" }, { type: "text", text: "unused" });
    const result = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toStartWith(`zot: anthropic: connection dropped mid-stream (${env.server.url}/v1/messages): `);
    expect(result.stderr).not.toContain("retrying");
    expect(env.server.requests).toHaveLength(1);
  });
});

describe("connection errors name the URL", () => {
  async function deadUrl(): Promise<string> {
    const server = startModelServer();
    const url = server.url;
    await server.stop();
    return url;
  }

  test("ollama: says an Ollama server is expected there, after two retries", async () => {
    const url = await deadUrl();
    const result = await env.run(["-p", "hi", "--provider", "ollama", "--model", "llama3", "--base-url", `${url}/v1`]);
    expect(result.code).toBe(1);
    const lines = stderrLines(result.stderr);
    expect(lines.slice(0, 2)).toEqual([
      "zot: ollama: retrying in N (retry 1 of 2): connection refused",
      "zot: ollama: retrying in N (retry 2 of 2): connection refused",
    ]);
    expect(lines[2]).toStartWith(`zot: ollama: cannot connect to ${url}/v1/chat/completions: ECONNREFUSED`);
    expect(lines[2]).toEndWith("(gave up after 2 retries) — is an Ollama server running there? (`ollama serve`)");
    expect(lines).toHaveLength(3);
  });

  test("anthropic: the URL without credentials, no Ollama hint", async () => {
    const url = await deadUrl();
    const withUser = url.replace("http://", "http://user:secret@");
    const result = await env.run(["-p", "hi", "--provider", "anthropic", "--api-key", "k", "--base-url", withUser], { env: { ZOT_MAX_RETRIES: "0" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toStartWith(`zot: anthropic: cannot connect to ${url}/v1/messages: ECONNREFUSED`);
    expect(result.stderr).not.toContain("secret");
    expect(result.stderr).not.toContain("Ollama");
  });
});

describe("stream limits", () => {
  test("comment-only keepalives end as stalled after the idle timeout", async () => {
    env.server.enqueue({ type: "keepalive_only", kind: "comment" });
    const result = await env.run(["-p", "hi", ...env.providerArgs()], { env: { ZOT_STREAM_IDLE_TIMEOUT_MS: "500" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("zot: anthropic: stream stalled: no event for 500 ms (only keepalive comments)\n");
  });

  test("Anthropic ping events outlast the idle timeout but not the keepalive timeout", async () => {
    env.server.enqueue({ type: "text", text: "thought long", keepalive: { kind: "event", forMs: 900, everyMs: 50 } });
    const limits = { ZOT_STREAM_IDLE_TIMEOUT_MS: "300", ZOT_STREAM_KEEPALIVE_TIMEOUT_MS: "5000" };
    const thinking = await env.run(["-p", "hi", ...env.providerArgs()], { env: limits });
    expect(thinking.stderr).toBe("");
    expect(thinking.stdout).toBe("thought long\n");

    env.server.enqueue({ type: "keepalive_only", kind: "event", everyMs: 50 });
    const result = await env.run(["-p", "hi", ...env.providerArgs()], { env: { ...limits, ZOT_STREAM_KEEPALIVE_TIMEOUT_MS: "800" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("zot: anthropic: stream stalled: no model output for 800 ms (only keepalive events)\n");
  });

  test("an event over the default 16 Mi characters ends the run as too large", async () => {
    env.server.enqueue({ type: "oversized_event", chars: 17 * 1024 * 1024 });
    const result = await env.run(["--json", "hi", ...env.providerArgs()]);
    expect(result.code).toBe(1);
    const events = parseJsonLines(result.stdout);
    expect(events.at(-1)).toEqual({ type: "error", message: "anthropic: stream event larger than 16 Mi characters (the per-event limit)" });
  });

  test("an endless response ends at ZOT_STREAM_MAX_BYTES", async () => {
    env.server.enqueue({ type: "endless" });
    const result = await env.run(["-p", "hi", ...env.providerArgs("openai")], { env: { ZOT_STREAM_MAX_BYTES: String(2 * 1024 * 1024) } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("zot: openai: response larger than 2 MiB (the per-response limit)\n");
  });

  test("an endless answer ends at ZOT_STREAM_MAX_OUTPUT_CHARS even when the byte bound is far away", async () => {
    env.server.enqueue({ type: "endless", chunkChars: 64 * 1024 });
    const result = await env.run(["-p", "hi", ...env.providerArgs()], {
      env: { ZOT_STREAM_MAX_BYTES: String(64 * 1024 * 1024 * 1024), ZOT_STREAM_MAX_OUTPUT_CHARS: String(2 * 1024 * 1024) },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("zot: anthropic: model output longer than 2 Mi characters in one response (the per-response limit)\n");
  });
});
