/**
 * The request's API key never reaches an error line, through dist/zot: a
 * server (or a proxy in front of it) that echoes the key in its error body
 * — as `Incorrect API key provided: <key>` — is shown as `[API key]` in
 * the `-p` stderr line, the `--json` `turn_end` / `error` / `retry` events
 * and the session file, for the Anthropic (`x-api-key`) and OpenAI
 * (`Authorization: Bearer`) dialects, also when the 4 KiB error-body cap
 * cuts the key in the middle (its first characters are blanked too: the
 * last case fails without that). Keys come from the environment, as in CI.
 * (test/providers/hostile-server.test.ts has the in-stream cases.)
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const KEY = "sk-ci-0123456789abcdefSECRET";

function baseUrlArgs(provider: "anthropic" | "openai"): string[] {
  return ["--provider", provider, "--base-url", provider === "anthropic" ? env.server.anthropicBaseUrl : env.server.openaiBaseUrl];
}

/** Everything the run left behind: stdout, stderr and the session files. */
function everything(result: { stdout: string; stderr: string }): string {
  return [result.stdout, result.stderr, ...env.sessionFiles().map((file) => readFileSync(file, "utf8"))].join("\n");
}

describe("an error body that echoes the API key", () => {
  test("anthropic, --json: turn_end, error and stderr say [API key]; the key is nowhere", async () => {
    env.server.enqueue({ type: "http_error", status: 401, errorType: "authentication_error", message: `Incorrect API key provided: ${KEY}` });
    const result = await env.run(["--json", "hi", ...baseUrlArgs("anthropic")], { env: { ANTHROPIC_API_KEY: `${KEY}\n` } });
    expect(result.code).toBe(1);
    expect(env.server.requests[0]?.headers["x-api-key"]).toBe(KEY);
    expect(result.stderr).toBe("zot: anthropic: http 401: authentication_error: Incorrect API key provided: [API key]\n");
    expect(result.stdout.trim().split("\n").at(-1)).toBe(
      '{"type":"error","message":"anthropic: http 401: authentication_error: Incorrect API key provided: [API key]"}',
    );
    expect(everything(result)).not.toContain(KEY);
  });

  test("openai, -p with a retry: the retry notice and the final line say [API key]", async () => {
    env.server.enqueue(
      { type: "http_error", status: 503, message: `upstream refused key ${KEY}`, headers: { "retry-after-ms": "10" } },
      { type: "http_error", status: 401, errorType: "invalid_api_key", message: `Incorrect API key provided: ${KEY}.` },
    );
    const result = await env.run(["-p", "hi", ...baseUrlArgs("openai")], { env: { OPENAI_API_KEY: KEY } });
    expect(result.code).toBe(1);
    expect(env.server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(result.stderr).toContain("zot: openai: http 401: invalid_api_key: Incorrect API key provided: [API key].\n");
    expect(everything(result)).not.toContain(KEY);
    const json = await env.run(["--json", "hi", ...baseUrlArgs("openai")], { env: { OPENAI_API_KEY: KEY } });
    expect(json.code).toBe(1);
    expect(everything(json)).not.toContain(KEY);
  });

  test("--json retry event: its error field is redacted too", async () => {
    env.server.enqueue(
      { type: "http_error", status: 529, errorType: "overloaded_error", message: `busy (key ${KEY})`, headers: { "retry-after-ms": "10" } },
      { type: "text", text: "fine" },
    );
    const result = await env.run(["--json", "hi", ...baseUrlArgs("anthropic")], { env: { ANTHROPIC_API_KEY: KEY } });
    expect(result.code).toBe(0);
    const retry = result.stdout.split("\n").find((line) => line.startsWith('{"type":"retry"'));
    expect(retry).toContain("busy (key [API key])");
    expect(everything(result)).not.toContain(KEY);
  });

  test("a body cut at the 4 KiB cap in the middle of the key loses the key's first characters too", async () => {
    // Blanks collapse to one space, so what the cap left of the key would be the line's detail.
    const body = `${" \n".repeat((4096 - 12) / 2)}${KEY}`;
    env.server.enqueue({ type: "http_error", status: 400, rawBody: body });
    const result = await env.run(["-p", "hi", ...baseUrlArgs("anthropic")], { env: { ANTHROPIC_API_KEY: KEY } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("zot: anthropic: http 400: [API key]\n");
  });
});
