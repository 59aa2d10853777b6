/**
 * A 200 answer that is no event stream (a proxy's login page, a web server
 * that is not the API at --base-url), through dist/zot: the error says what
 * came instead — its content-type and first characters — and asks about
 * --base-url or a proxy, for both dialects and in --json; it said only
 * "stream ended before message_stop (response incomplete)", which points
 * at the model. A real event stream that ends early keeps that message.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const PAGE = "<html><head><title>Proxy login</title></head><body>Sign in to continue</body></html>";
let portal: ReturnType<typeof Bun.serve>;

beforeEach(() => {
  portal = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }) });
});
afterEach(async () => {
  await portal.stop(true);
});

const expected = (label: string, path: string): string =>
  `${label}: the response from http://127.0.0.1:${portal.port}${path} is not an event stream (content-type text/html, starting "<html><head><title>Proxy login</title></head><body>Sign in …"); is --base-url right, or is a proxy answering?`;

describe("a 200 that is no event stream", () => {
  test("anthropic, -p: named with its content-type and first characters", async () => {
    const result = await env.run(["-p", "hi", "--base-url", `http://127.0.0.1:${portal.port}`, "--api-key", "test-key"]);
    expect([result.code, result.stdout]).toEqual([1, ""]);
    expect(result.stderr).toBe(`zot: ${expected("anthropic", "/v1/messages")}\n`);
  });

  test("openai, --json: the same in turn_end and the error line", async () => {
    const result = await env.run(["--json", "hi", "--provider", "openai", "--base-url", `http://127.0.0.1:${portal.port}/v1`, "--api-key", "test-key"]);
    expect(result.code).toBe(1);
    const message = expected("openai", "/v1/chat/completions");
    expect(result.stdout.trim().split("\n").at(-1)).toBe(JSON.stringify({ type: "error", message }).replaceAll("<", "\\u003c").replaceAll(">", "\\u003e"));
  });

  test("an event stream that stops before its end keeps the truncated message", async () => {
    env.server.enqueue({ type: "no_terminal", text: "partial" });
    const result = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("zot: anthropic: stream ended before message_stop (response incomplete)\n");
  });
});
