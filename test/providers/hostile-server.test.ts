/**
 * A misbehaving model endpoint (corporate proxy, flaky gateway, malicious
 * base URL) end to end: dist/zot against the stand-in server's `raw`
 * replies. A redirect is reported and never followed (the API key stays
 * with the configured host); a 200 that is not an event stream (an HTML
 * proxy page, a JSON body) is an error naming the URL, the content type and
 * what the body says; usage numbers that are negative, huge or not numbers
 * never reach the cost and token totals; and the other faults of this
 * acceptance run (compression, bounds on tool calls, blocks and error
 * lines, a reset after a tool ran). Both dialects, print and --json.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { startModelServer, type ModelServer } from "../support/model-server.ts";
import { parseJsonLines, toolResultsSent, useModeEnv, type ModeEnv, type ProviderKind } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const extraServers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(extraServers.splice(0).map((server) => server.stop()));
});

const DIALECTS: readonly ProviderKind[] = ["anthropic", "openai"];

describe("redirects are reported, never followed", () => {
  for (const provider of DIALECTS) {
    test(`${provider}: a 307 to another host does not carry the API key there`, async () => {
      const other = startModelServer();
      extraServers.push(other);
      other.enqueue({ type: "text", text: "answered by the redirect target" });
      // Another origin: localhost instead of 127.0.0.1, another port.
      const target = other.url.replace("127.0.0.1", "localhost");
      env.server.enqueue({
        type: "raw",
        status: 307,
        headers: { location: provider === "anthropic" ? `${target}/v1/messages` : `${target}/v1/chat/completions` },
        body: "",
      });
      const result = await env.run(["-p", "hi", ...env.providerArgs(provider)]);
      expect(other.requests).toHaveLength(0);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      const path = provider === "anthropic" ? "/v1/messages" : "/v1/chat/completions";
      expect(result.stderr).toBe(
        `zot: ${provider}: http 307: redirect not followed (${env.server.url}${path} → ${target}${path}); set the base URL to the final address (zot never sends the API key on to a redirect target)\n`,
      );
      expect(env.server.requests).toHaveLength(1);
    });
  }

  test("a 302 to the same host (which would turn the POST into a GET) and a redirect loop end at once, not retried", async () => {
    env.server.enqueue({ type: "raw", status: 302, headers: { location: "/elsewhere" }, body: "" });
    const result = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`zot: anthropic: http 302: redirect not followed (${env.server.url}/v1/messages → ${env.server.url}/elsewhere)`);
    env.server.enqueue({ type: "raw", status: 308, headers: { location: `${env.server.url}/v1/messages` }, body: "" });
    const loop = await env.run(["--json", "hi", ...env.providerArgs()]);
    expect(loop.code).toBe(1);
    const error = parseJsonLines(loop.stdout).find((event) => event.type === "error");
    expect(String(error?.message)).toStartWith("anthropic: http 308: redirect not followed");
    // One request each: nothing followed, nothing retried.
    expect(env.server.requests).toHaveLength(2);
    expect(env.server.requests.map((request) => request.path)).toEqual(["/v1/messages", "/v1/messages"]);
  });
});

describe("a 200 that is not an event stream", () => {
  for (const provider of DIALECTS) {
    const path = provider === "anthropic" ? "/v1/messages" : "/v1/chat/completions";
    test(`${provider}: an HTML proxy page, a JSON body and an empty body are named as such, with the URL`, async () => {
      env.server.enqueue({
        type: "raw",
        headers: { "content-type": "text/html; charset=utf-8" },
        body: "<!DOCTYPE html>\n<html><head><title>Login</title><style>p{color:red}</style></head>\n<body><p>Corporate proxy: please log in</p></body></html>",
      });
      const html = await env.run(["-p", "hi", ...env.providerArgs(provider)]);
      expect(html.code).toBe(1);
      expect(html.stderr).toBe(
        `zot: ${provider}: http 200 from ${env.server.url}${path} is not an event stream (content-type text/html; charset=utf-8: Login Corporate proxy: please log in)\n`,
      );
      env.server.enqueue({ type: "raw", headers: { "content-type": "application/json" }, body: JSON.stringify({ error: { type: "quota", message: "out of credit" } }) });
      const json = await env.run(["--json", "hi", ...env.providerArgs(provider)]);
      expect(json.code).toBe(1);
      const error = parseJsonLines(json.stdout).find((event) => event.type === "error");
      expect(error?.message).toBe(`${provider}: http 200 from ${env.server.url}${path} is not an event stream (content-type application/json: quota: out of credit)`);
      env.server.enqueue({ type: "raw", headers: { "content-type": "text/event-stream" }, body: "" });
      const empty = await env.run(["-p", "hi", ...env.providerArgs(provider)]);
      expect(empty.code).toBe(1);
      expect(empty.stderr).toBe(`zot: ${provider}: http 200 from ${env.server.url}${path} is not an event stream (the body is empty; content-type text/event-stream)\n`);
      // Not retried.
      expect(env.server.requests).toHaveLength(3);
    });
  }

  test("--json: the check waits for the first bytes without holding assistant_start back (headers, a blank line, then nothing)", async () => {
    // A blank line (Bun.serve sends the headers with the first chunk), then nothing.
    let sent = false;
    const silent = new ReadableStream<Uint8Array>({
      pull: (out) => {
        if (sent) return new Promise(() => undefined);
        sent = true;
        out.enqueue(new TextEncoder().encode("\n"));
      },
    });
    env.server.enqueue({ type: "raw", headers: { "content-type": "text/event-stream" }, body: silent });
    const result = await env.run(["--json", "hi", ...env.providerArgs()], { env: { ZOT_STREAM_IDLE_TIMEOUT_MS: "1000" } });
    expect(result.code).toBe(1);
    const events = parseJsonLines(result.stdout);
    expect(events.map((event) => event.type)).toContain("assistant_start");
    expect(events.find((event) => event.type === "error")?.message).toBe("anthropic: stream stalled: no event for 1 s");
  });

  test("a stall in the middle of an event (one byte a second, say) is not called keepalive comments", async () => {
    const start = 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"usage":{"input_tokens":1}}}\n\n';
    const pieces = [start, 'event: content_block_start\ndata: {"type":"cont'];
    const trickle = new ReadableStream<Uint8Array>({
      pull: (out) => {
        const piece = pieces.shift();
        if (piece === undefined) return new Promise(() => undefined);
        out.enqueue(new TextEncoder().encode(piece));
      },
    });
    env.server.enqueue({ type: "raw", headers: { "content-type": "text/event-stream" }, body: trickle });
    const result = await env.run(["-p", "hi", ...env.providerArgs()], { env: { ZOT_STREAM_IDLE_TIMEOUT_MS: "700" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("zot: anthropic: stream stalled: no event for 700 ms (an event was still arriving)\n");
  });

  test("an event stream with a BOM, CRLF line ends and data: without a space, under another content type, still streams", async () => {
    const lines = [
      "event: message_start",
      'data:{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"usage":{"input_tokens":3,"output_tokens":1}}}',
      "",
      "event: content_block_start",
      'data:{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
      "",
      "event: content_block_delta",
      'data:{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"fine"}}',
      "",
      'data:{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}',
      "",
      'data:{"type":"message_stop"}',
      "",
    ];
    env.server.enqueue({ type: "raw", headers: { "content-type": "text/plain" }, body: `\ufeff\r\n${lines.join("\r\n")}\r\n` });
    const result = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("fine\n");
    expect(result.code).toBe(0);
  });
});

/** A complete one-text-block answer in the dialect, its usage fields exactly as given (JSON text). */
function answerWithUsage(dialect: string, text: string, usage: { start: string; end: string; openai: string }): string {
  if (dialect === "anthropic") {
    return [
      `event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"usage":${usage.start}}}\n\n`,
      `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n`,
      `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })}\n\n`,
      `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n`,
      `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":${usage.end}}\n\n`,
      `event: message_stop\ndata: {"type":"message_stop"}\n\n`,
    ].join("");
  }
  return [
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: "assistant", content: text } }] })}\n\n`,
    `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`,
    `data: {"choices":[],"usage":${usage.openai}}\n\n`,
    "data: [DONE]\n\n",
  ].join("");
}

describe("usage numbers that are not token counts", () => {
  const cases = [
    { name: "negative", start: '{"input_tokens":-500,"output_tokens":-1}', end: '{"output_tokens":-100}', openai: '{"prompt_tokens":-500,"completion_tokens":-100}' },
    { name: "1e308", start: '{"input_tokens":1e308,"output_tokens":1e308,"cache_read_input_tokens":1e308}', end: '{"output_tokens":1e308}', openai: '{"prompt_tokens":1e308,"completion_tokens":1e308}' },
    { name: "strings and objects", start: '{"input_tokens":"10","output_tokens":"x"}', end: '{"output_tokens":{"a":1}}', openai: '{"prompt_tokens":"abc","completion_tokens":[1],"prompt_tokens_details":{"cached_tokens":"7"}}' },
  ];
  for (const provider of DIALECTS) {
    test(`${provider}: are ignored: the answer stands, tokens and cost stay finite and not negative, the session resumes`, async () => {
      for (const usage of cases) env.server.enqueue({ type: "raw", headers: { "content-type": "text/event-stream" }, body: (dialect) => answerWithUsage(dialect, `answer ${usage.name}`, usage) });
      for (const [index, usage] of cases.entries()) {
        const result = await env.run(["--json", ...(index > 0 ? ["-c"] : []), `hi ${usage.name}`, ...env.providerArgs(provider)]);
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
        const events = parseJsonLines(result.stdout);
        expect(events.find((event) => event.type === "assistant_message")).toMatchObject({ content: [{ type: "text", text: `answer ${usage.name}` }] });
        const reported = events.find((event) => event.type === "usage");
        for (const counts of [reported, reported?.cumulative as Record<string, unknown>]) {
          for (const field of ["input", "output", "cache_read", "cache_write", "cost_usd"]) {
            expect({ usage: usage.name, field, value: counts?.[field] }).toEqual({ usage: usage.name, field, value: 0 });
          }
        }
      }
      // Three runs, one session: each resumed the one before.
      expect(env.sessionFiles()).toHaveLength(1);
    });
  }
});

describe("thousands of tool calls in one response", () => {
  const calls = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `call_${i}`, name: "read", arguments: { path: `missing-${i}.txt` } }));
  for (const provider of DIALECTS) {
    test(`${provider}: more than 1024 end the call before any runs; the session stays resumable`, async () => {
      env.server.enqueue({ type: "tool_calls", calls: calls(1025), argChunks: 1 });
      const result = await env.run(["-p", "hi", ...env.providerArgs(provider)]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`zot: ${provider}: more than 1024 tool calls in one response (the per-response limit)\n`);
      env.server.enqueue({ type: "text", text: "resumed" });
      const resumed = await env.run(["-c", "-p", "again", ...env.providerArgs(provider)]);
      expect(resumed.stderr).toBe("");
      expect(resumed.stdout).toBe("resumed\n");
      expect(toolResultsSent(env.server.requests[1]).size).toBe(0);
      expect(env.sessionFiles()).toHaveLength(1);
    });
  }

  /** A chat-completions stream whose tool-call deltas never name the call (no id, no name). */
  const anonymousCalls = (deltas: readonly { index: number; arguments: string }[]) =>
    [
      'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n',
      ...deltas.map((delta) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: delta.index, function: { arguments: delta.arguments } }] } }] })}\n\n`),
      'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
      "data: [DONE]\n\n",
    ].join("");

  test("openai: calls that are never named count too: by index against the 1024 calls, their arguments against the output cap", async () => {
    const sse = { type: "raw" as const, headers: { "content-type": "text/event-stream" } };
    env.server.enqueue({ ...sse, body: anonymousCalls(Array.from({ length: 1025 }, (_, index) => ({ index, arguments: "x" }))) });
    const many = await env.run(["-p", "hi", ...env.providerArgs("openai")]);
    expect(many.code).toBe(1);
    expect(many.stderr).toBe("zot: openai: more than 1024 tool calls in one response (the per-response limit)\n");
    env.server.enqueue({ ...sse, body: anonymousCalls(Array.from({ length: 20 }, () => ({ index: 0, arguments: "y".repeat(100) }))) });
    const long = await env.run(["-p", "hi", ...env.providerArgs("openai")], { env: { ZOT_STREAM_MAX_OUTPUT_CHARS: "1000" } });
    expect(long.code).toBe(1);
    expect(long.stderr).toBe("zot: openai: model output longer than 1000 characters in one response (the per-response limit)\n");
  });

  test("1024 run, and their results go back in the next request", async () => {
    env.server.enqueue({ type: "tool_calls", calls: calls(1024), argChunks: 1 }, { type: "text", text: "all read" });
    const result = await env.run(["-p", "hi", ...env.providerArgs("openai")]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("all read\n");
    expect(result.code).toBe(0);
    expect(toolResultsSent(env.server.requests[1]).size).toBe(1024);
  });
});

describe("a base URL that is not http(s)", () => {
  test("file: and data: URLs (which fetch would read) and a URL without a scheme are refused before anything is read or sent", async () => {
    const answer = answerWithUsage("anthropic", "read from a local file", { start: '{"input_tokens":1}', end: '{"output_tokens":1}', openai: "{}" });
    const file = join(env.base, "answer.sse");
    writeFileSync(file, answer);
    const local = await env.run(["-p", "hi", "--provider", "anthropic", "--api-key", "k", "--base-url", `file://${file}?`]);
    expect(local.stdout).toBe("");
    expect(local.code).toBe(1);
    expect(local.stderr).toBe(
      `zot: anthropic: file://${file}?/v1/messages is not an http:// or https:// URL (set --base-url, or the model's baseUrl in models.json, to one)\n`,
    );
    // The same from models.json, in the OpenAI dialect.
    const dataUrl = `data:text/event-stream,${encodeURIComponent(answerWithUsage("openai", "from a data URL", { start: "", end: "", openai: "{}" }))}#`;
    writeFileSync(join(env.home, "models.json"), JSON.stringify({ providers: { openai: { models: [{ id: "local-llm", baseUrl: dataUrl, contextWindow: 8192, maxTokens: 1024 }] } } }));
    const inline = await env.run(["-p", "hi", "--provider", "openai", "--model", "local-llm", "--api-key", "k"]);
    expect(inline.stdout).toBe("");
    expect(inline.code).toBe(1);
    expect(inline.stderr).toContain("zot: openai: data:text/event-stream,");
    expect(inline.stderr).toContain("is not an http:// or https:// URL");
    const hostPort = await env.run(["-p", "hi", "--provider", "ollama", "--model", "llama3", "--base-url", "localhost:11434"]);
    expect(hostPort.code).toBe(1);
    expect(hostPort.stderr).toBe(
      "zot: ollama: localhost:11434/v1/chat/completions is not an http:// or https:// URL (did you mean http://localhost:11434/v1/chat/completions? set --base-url, or the model's baseUrl in models.json, to one)\n",
    );
    const bare = await env.run(["-p", "hi", "--provider", "anthropic", "--api-key", "k", "--base-url", env.server.url.replace("http://", "")]);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toBe(
      `zot: anthropic: ${env.server.url.replace("http://", "")}/v1/messages is not a URL (set --base-url, or the model's baseUrl in models.json, to an http:// or https:// address)\n`,
    );
  });
});

describe("Retry-After values a server should not send", () => {
  test("a huge one gives up at once in words, not a 20-digit number; negative and garbage ones fall back to the backoff", async () => {
    env.server.enqueue({ type: "http_error", status: 429, message: "quota", headers: { "retry-after": "99999999999999999999" } });
    const huge = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(huge.code).toBe(1);
    expect(huge.stderr).toBe(
      "zot: anthropic: http 429: rate_limit_error: quota (not retried: the server asks to wait more than 100 years, more than the 60 s left of the 60 s retry budget)\n",
    );
    env.server.enqueue({ type: "http_error", status: 503, message: "busy", headers: { "retry-after": String(3 * 86_400) } });
    const days = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(days.stderr).toContain("(not retried: the server asks to wait 3 days, more than the 60 s left");
    env.server.enqueue(
      { type: "http_error", status: 503, message: "busy", headers: { "retry-after": "-5" } },
      { type: "http_error", status: 503, message: "busy", headers: { "retry-after": "soon", "retry-after-ms": "NaN" } },
      { type: "text", text: "third time" },
    );
    const odd = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(odd.stdout).toBe("third time\n");
    expect(odd.stderr.split("\n").filter(Boolean).map((line) => line.replace(/retrying in [\d.]+ m?s/, "retrying in N"))).toEqual([
      "zot: anthropic: retrying in N (retry 1 of 5): 503 service unavailable",
      "zot: anthropic: retrying in N (retry 2 of 5): 503 service unavailable",
    ]);
  });
});

describe("compressed responses", () => {
  const sse = (text: string) => (dialect: string) => answerWithUsage(dialect, text, { start: '{"input_tokens":1}', end: '{"output_tokens":1}', openai: "{}" });
  const encoded = (encoding: string, body: (dialect: string) => string) => (dialect: string) => {
    const bytes = Buffer.from(body(dialect));
    if (encoding === "gzip") return gzipSync(bytes);
    if (encoding === "deflate") return deflateSync(bytes);
    return brotliCompressSync(bytes);
  };

  test("gzip, deflate and br answers stream in both dialects; a compressed error body is read too", async () => {
    for (const provider of DIALECTS) {
      for (const encoding of ["gzip", "deflate", "br"]) {
        env.server.enqueue({ type: "raw", headers: { "content-type": "text/event-stream", "content-encoding": encoding }, body: encoded(encoding, sse(`${encoding} answer`)) });
        const result = await env.run(["-p", "hi", ...env.providerArgs(provider)]);
        expect({ provider, encoding, stderr: result.stderr, stdout: result.stdout }).toEqual({ provider, encoding, stderr: "", stdout: `${encoding} answer\n` });
      }
    }
    env.server.enqueue({
      type: "raw",
      status: 400,
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: gzipSync(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "compressed complaint" } })),
    });
    const error = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(error.stderr).toBe("zot: anthropic: http 400: invalid_request_error: compressed complaint\n");
  });

  test("bytes that are not the encoding they claim end with one line naming the URL; nothing else reaches stderr", async () => {
    env.server.enqueue({ type: "raw", headers: { "content-type": "text/event-stream", "content-encoding": "gzip" }, body: sse("not compressed at all") });
    const result = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^zot: anthropic: the response from ${env.server.url}/v1/messages is not valid gzip \\(its content-encoding\\): [^\\n]+\\n$`));
    env.server.enqueue({ type: "raw", headers: { "content-type": "text/event-stream", "content-encoding": "compress" }, body: sse("lzw") });
    const unknown = await env.run(["-p", "hi", ...env.providerArgs("openai")]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`zot: openai: the response from ${env.server.url}/v1/chat/completions has content-encoding compress, which zot cannot decode\n`);
  });

  test("a compression bomb ends at the response cap, counted after decoding", async () => {
    const ping = Buffer.from('event: ping\ndata: {"type":"ping"}\n\n');
    const bomb = gzipSync(Buffer.concat(Array.from({ length: (64 * 1024 * 1024) / ping.length }, () => ping)), { level: 9 });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    env.server.enqueue({ type: "raw", headers: { "content-type": "text/event-stream", "content-encoding": "gzip" }, body: bomb });
    const result = await env.run(["-p", "hi", ...env.providerArgs()], { env: { ZOT_STREAM_MAX_BYTES: String(8 * 1024 * 1024) } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("zot: anthropic: response larger than 8 MiB (the per-response limit)\n");
  });
});

describe("an in-stream error event from the server", () => {
  for (const provider of DIALECTS) {
    test(`${provider}: a multi-line, megabyte message is one line of at most 500 characters`, async () => {
      env.server.enqueue({ type: "stream_error", errorType: "overloaded_error\n\nforged line", message: `${"E".repeat(2 * 1024 * 1024)}\nzot: done` });
      const result = await env.run(["-p", "hi", ...env.providerArgs(provider)]);
      expect(result.code).toBe(1);
      const lines = result.stderr.split("\n").filter(Boolean);
      expect(lines).toHaveLength(1);
      const [line = ""] = lines;
      expect(line.length).toBeLessThanOrEqual("zot: ".length + 500);
      expect(line).toStartWith(provider === "anthropic" ? "zot: anthropic overloaded_error forged line: EEEE" : "zot: openai: EEEE");
      expect(line).toEndWith("E…");
    });
  }
});

describe("an event zot cannot use", () => {
  test("a megabyte value in the wrong field, or a megabyte event name, is reported in one bounded line (it was dropped from stderr whole)", async () => {
    const start = '{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"usage":{"input_tokens":1}}}';
    const badIndex = JSON.stringify({ type: "content_block_start", index: "I\n".repeat(1024 * 1024), content_block: { type: "text", text: "" } });
    env.server.enqueue({ type: "raw", headers: { "content-type": "text/event-stream" }, body: `event: message_start\ndata: ${start}\n\nevent: content_block_start\ndata: ${badIndex}\n\n` });
    const wrongField = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(wrongField.code).toBe(1);
    const [line = "", ...rest] = wrongField.stderr.split("\n").filter(Boolean);
    expect(rest).toEqual([]);
    expect(line).toStartWith('zot: anthropic: unexpected content_block_start event (field "index"): Invalid type: Expected number but received "I I I');
    expect(line.length).toBeLessThanOrEqual(505);
    env.server.enqueue({ type: "raw", headers: { "content-type": "text/event-stream" }, body: `event: message_start\ndata: ${start}\n\nevent: ${"N".repeat(1024 * 1024)}\ndata: {not json\n\n` });
    const longName = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(longName.code).toBe(1);
    expect(longName.stderr).toMatch(/^zot: anthropic: unparseable N{99}… event: \{not json\n$/);
  });
});

describe("thousands of content blocks in one response", () => {
  test("anthropic blocks and Responses output items past 4096 end the call; up to it the answer stands", async () => {
    const start = '{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"usage":{"input_tokens":1}}}';
    const blocks = (count: number) =>
      [
        `event: message_start\ndata: ${start}\n\n`,
        ...Array.from({ length: count }, (_, index) => `event: content_block_start\ndata: {"type":"content_block_start","index":${index},"content_block":{"type":"text","text":""}}\n\n`),
        `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"many blocks"}}\n\n`,
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\n',
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      ].join("");
    const sse = { type: "raw" as const, headers: { "content-type": "text/event-stream" } };
    env.server.enqueue({ ...sse, body: blocks(4096) }, { ...sse, body: blocks(4097) });
    const fits = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(fits.stderr).toBe("");
    expect(fits.stdout).toBe("many blocks\n");
    const over = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(over.code).toBe(1);
    expect(over.stderr).toBe("zot: anthropic: more than 4096 content blocks in one response (the per-response limit)\n");
    const items = Array.from(
      { length: 4097 },
      (_, index) => `event: response.output_item.added\ndata: {"type":"response.output_item.added","output_index":${index},"item":{"type":"web_search_call","id":"ws_${index}"}}\n\n`,
    );
    env.server.enqueue({ ...sse, body: items.join("") });
    const responses = await env.run(["-p", "hi", "--provider", "openai", "--model", "gpt-5-codex", "--base-url", env.server.openaiBaseUrl, "--api-key", "k"]);
    expect(responses.code).toBe(1);
    expect(responses.stderr).toBe("zot: openai: more than 4096 content blocks in one response (the per-response limit)\n");
    expect(env.server.requests.at(-1)?.dialect).toBe("openai-responses");
  });
});

describe("content kept without being streamed counts toward the output cap", () => {
  const cap = { env: { ZOT_STREAM_MAX_OUTPUT_CHARS: "1000" } };
  test("anthropic: redacted thinking data and thinking signatures", async () => {
    env.server.enqueue({ type: "thinking", thinking: "hm", redacted: "R".repeat(1200), text: "answer" });
    const redacted = await env.run(["-p", "hi", ...env.providerArgs()], cap);
    expect(redacted.code).toBe(1);
    expect(redacted.stderr).toBe("zot: anthropic: model output longer than 1000 characters in one response (the per-response limit)\n");
    env.server.enqueue({ type: "thinking", thinking: "hm", signature: "S".repeat(1200), text: "answer" });
    const signed = await env.run(["-p", "hi", ...env.providerArgs()], cap);
    expect(signed.code).toBe(1);
    expect(signed.stderr).toBe("zot: anthropic: model output longer than 1000 characters in one response (the per-response limit)\n");
    // Under the cap both are kept as before.
    env.server.enqueue({ type: "thinking", thinking: "hm", redacted: "R".repeat(300), signature: "S".repeat(300), text: "answer" });
    const fits = await env.run(["-p", "hi", ...env.providerArgs()], cap);
    expect(fits.stderr).toBe("");
    expect(fits.stdout).toBe("answer\n");
  });

  test("responses: a done item's arguments beyond the streamed ones", async () => {
    const event = (type: string, fields: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
    const call = { type: "function_call", id: "fc_1", call_id: "call_1", name: "read" };
    const body = [
      event("response.created", { response: { id: "r", status: "in_progress", output: [] } }),
      event("response.output_item.added", { output_index: 0, item: { ...call, arguments: "" } }),
      event("response.output_item.done", { output_index: 0, item: { ...call, arguments: JSON.stringify({ path: "x".repeat(1200) }) } }),
      event("response.completed", { response: { id: "r", status: "completed", output: [], usage: { input_tokens: 1, output_tokens: 1 } } }),
    ].join("");
    env.server.enqueue({ type: "raw", headers: { "content-type": "text/event-stream" }, body });
    const result = await env.run(["-p", "hi", "--provider", "openai", "--model", "gpt-5-codex", "--base-url", env.server.openaiBaseUrl, "--api-key", "k"], cap);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("zot: openai: model output longer than 1000 characters in one response (the per-response limit)\n");
  });
});

describe("a wrong address", () => {
  test("404 and 405 name the URL that was asked (a base URL missing or doubling /v1), not retried", async () => {
    env.server.enqueue({ type: "raw", status: 404, headers: { "content-type": "text/plain" }, body: "404 page not found" });
    const notFound = await env.run(["-p", "hi", ...env.providerArgs("openai")]);
    expect(notFound.code).toBe(1);
    expect(notFound.stderr).toBe(`zot: openai: http 404: 404 page not found (${env.server.url}/v1/chat/completions: is the base URL right?)\n`);
    env.server.enqueue({ type: "raw", status: 405, body: "" });
    const notAllowed = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(notAllowed.stderr).toBe(`zot: anthropic: http 405: Method Not Allowed (${env.server.url}/v1/messages: is the base URL right?)\n`);
    expect(env.server.requests).toHaveLength(2);
  });
});

test("requests still offer the encodings zot decodes (Accept-Encoding as before)", async () => {
  env.server.enqueue({ type: "text", text: "ok" });
  const result = await env.run(["-p", "hi", ...env.providerArgs()]);
  expect(result.stdout).toBe("ok\n");
  expect(env.server.requests[0]?.headers["accept-encoding"]).toBe("gzip, deflate, br, zstd");
});

describe("a connection reset after zot ran a tool", () => {
  for (const provider of DIALECTS) {
    test(`${provider}: the run fails naming the URL; the tool's result is kept and -c resumes with it`, async () => {
      env.server.enqueue({ type: "tool_calls", calls: [{ id: "call_ran", name: "bash", arguments: { command: "echo ran-once" } }] }, { type: "drop", text: "half an answ" });
      const result = await env.run(["-p", "hi", ...env.providerArgs(provider)]);
      expect(result.code).toBe(1);
      const path = provider === "anthropic" ? "/v1/messages" : "/v1/chat/completions";
      expect(result.stderr).toStartWith(`zot: ${provider}: connection dropped mid-stream (${env.server.url}${path}): `);
      env.server.enqueue({ type: "text", text: "resumed" });
      const resumed = await env.run(["-c", "-p", "go on", ...env.providerArgs(provider)]);
      expect(resumed.stderr).toBe("");
      expect(resumed.stdout).toBe("resumed\n");
      expect(toolResultsSent(env.server.requests[2]).get("call_ran")).toContain("ran-once");
      expect(env.sessionFiles()).toHaveLength(1);
    });
  }
});

describe("an error body that echoes the API key", () => {
  for (const provider of DIALECTS) {
    test(`${provider}: the key is blanked in the error line (stderr, --json)`, async () => {
      const key = "sk-test-0123456789abcdef";
      const echo = { type: "http_error" as const, status: 401, message: `invalid key ${key} (header x-api-key: ${key})` };
      env.server.enqueue(echo, echo);
      const args = ["--provider", provider, "--base-url", provider === "anthropic" ? env.server.anthropicBaseUrl : env.server.openaiBaseUrl, "--api-key", key];
      const printed = await env.run(["-p", "hi", ...args]);
      expect(printed.code).toBe(1);
      expect(printed.stderr).toBe(`zot: ${provider}: http 401: authentication_error: invalid key [API key] (header x-api-key: [API key])\n`);
      const json = await env.run(["--json", "hi", ...args]);
      expect(json.stdout).not.toContain(key);
      expect(json.stdout).toContain("invalid key [API key]");
      // An in-stream error event too.
      env.server.enqueue({ type: "stream_error", errorType: "auth", message: `key ${key} revoked` });
      const streamed = await env.run(["-p", "hi", ...args]);
      expect(streamed.code).toBe(1);
      expect(streamed.stderr).toContain("key [API key] revoked");
      expect(streamed.stderr).not.toContain(key);
    });
  }
});

describe("OpenAI-compatible servers' own in-stream error shapes", () => {
  test('a vLLM-style {"object":"error"} chunk and an SSE event named error end with the server\'s message, not "stream ended before [DONE]"', async () => {
    const opening = 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"par"}}]}\n\n';
    const sse = { type: "raw" as const, headers: { "content-type": "text/event-stream" } };
    env.server.enqueue(
      { ...sse, body: `${opening}data: {"object":"error","message":"CUDA out of memory","type":"InternalServerError","code":500}\n\n` },
      { ...sse, body: `${opening}event: error\ndata: {"message":"upstream timed out"}\n\n` },
    );
    const vllm = await env.run(["-p", "hi", ...env.providerArgs("openai")]);
    expect(vllm.code).toBe(1);
    expect(vllm.stderr).toBe("zot: openai: CUDA out of memory\n");
    const named = await env.run(["-p", "hi", ...env.providerArgs("openai")]);
    expect(named.code).toBe(1);
    expect(named.stderr).toBe("zot: openai: upstream timed out\n");
  });

  test("anthropic: an event named error with a proxy's shape ({\"error\": \"…\"}, {\"message\": \"…\"}) ends with its message", async () => {
    const start = 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"usage":{"input_tokens":1}}}\n\n';
    const sse = { type: "raw" as const, headers: { "content-type": "text/event-stream" } };
    env.server.enqueue(
      { ...sse, body: `${start}event: error\ndata: {"type":"error","error":"upstream exploded"}\n\n` },
      { ...sse, body: `${start}event: error\ndata: {"message":"no type field"}\n\n` },
      { type: "stream_error", errorType: "overloaded_error", message: "Overloaded" },
    );
    const stringError = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(stringError.stderr).toBe("zot: anthropic error: upstream exploded\n");
    const untyped = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(untyped.stderr).toBe("zot: anthropic error: no type field\n");
    // Anthropic's own shape reads as before.
    const own = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(own.stderr).toBe("zot: anthropic overloaded_error: Overloaded\n");
  });
});

describe("an error body that never ends", () => {
  test("is read for at most 5 s, and what came is the message (it held each attempt for the idle timeout)", async () => {
    let sent = false;
    const trickle = new ReadableStream<Uint8Array>({
      pull: (out) => {
        if (sent) return new Promise(() => undefined);
        sent = true;
        out.enqueue(new TextEncoder().encode("upstream is thinking about it"));
      },
    });
    env.server.enqueue({ type: "raw", status: 503, headers: { "content-type": "text/plain" }, body: trickle });
    // An idle timeout far beyond the test's time: only the error-body bound can end this run in time.
    const result = await env.run(["-p", "hi", ...env.providerArgs()], { env: { ZOT_MAX_RETRIES: "0", ZOT_STREAM_IDLE_TIMEOUT_MS: "600000" }, timeoutMs: 25_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("zot: anthropic: http 503: upstream is thinking about it (retries disabled)\n");
  }, 30_000);
});
