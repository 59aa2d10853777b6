/**
 * An API key that cannot be a key, through dist/zot, as CI sets them: a
 * line break inside (two secrets pasted together), a control character,
 * quotes around it (an env file's `KEY="sk-…"` taken literally), a space
 * in auth.json. The run stops before any request with one line naming
 * where the key came from (the variable, --api-key, the auth.json field),
 * never the key; surrounding blanks and a trailing newline are trimmed and
 * work as before.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const SECRET = "sk-ci-0123456789abcdef";

function anthropicArgs(): string[] {
  return ["--provider", "anthropic", "--base-url", env.server.anthropicBaseUrl];
}

describe("a key that cannot be a key stops the run before any request", () => {
  test("a line break inside ANTHROPIC_API_KEY: --json's only line is the error naming the variable", async () => {
    env.server.enqueue({ type: "text", text: "never" });
    const result = await env.run(["--json", "hi", ...anthropicArgs()], { env: { ANTHROPIC_API_KEY: `${SECRET}\n${SECRET}` } });
    expect(result.code).toBe(1);
    const message = `ANTHROPIC_API_KEY: the API key contains a line break (character 23 of 45); no API key has one: check how it is set`;
    expect(result.stdout).toBe(`${JSON.stringify({ type: "error", message })}\n`);
    expect(result.stderr).toBe(`zot: ${message}\n`);
    expect(env.server.requests.length).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  test("quotes around the key (docker --env-file keeps them), a control character in --api-key", async () => {
    const quoted = await env.run(["-p", "hi", ...anthropicArgs()], { env: { ANTHROPIC_API_KEY: `"${SECRET}"` } });
    expect(quoted.code).toBe(1);
    expect(quoted.stderr).toBe("zot: ANTHROPIC_API_KEY: the API key is wrapped in quotes, which would be sent as part of it; set it without them\n");
    const control = await env.run(["-p", "hi", ...anthropicArgs(), "--api-key", `${SECRET}\x01`]);
    expect(control.code).toBe(1);
    expect(control.stderr).toBe("zot: --api-key: the API key contains a control character (character 23 of 23); no API key has one: check how it is set\n");
    expect(env.server.requests.length).toBe(0);
    expect(quoted.stderr + control.stderr).not.toContain(SECRET);
  });

  test("a space inside the key of auth.json: the error names the file and the field", async () => {
    const authFile = join(env.home, "auth.json");
    writeFileSync(authFile, JSON.stringify({ anthropic: { api_key: `${SECRET} ${SECRET}` } }), { mode: 0o600 });
    const result = await env.run(["-p", "hi", ...anthropicArgs()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`zot: ${authFile}: field "anthropic.api_key": the API key contains a space (character 23 of 45); no API key has one: check how it is set\n`);
    expect(env.server.requests.length).toBe(0);
  });

  test("blanks and a trailing newline around the key are trimmed: the run works", async () => {
    env.server.enqueue({ type: "text", text: "fine" });
    const result = await env.run(["-p", "hi", ...anthropicArgs()], { env: { ANTHROPIC_API_KEY: ` ${SECRET}\r\n` } });
    expect(result.stdout).toBe("fine\n");
    expect(result.code).toBe(0);
    expect(env.server.requests[0]?.headers["x-api-key"]).toBe(SECRET);
  });
});
