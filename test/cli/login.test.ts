/**
 * `zot login <provider>` / `zot logout [provider|all]` through the compiled
 * binary: the key from a non-terminal stdin, auth.json in the original's
 * format (0600, other entries kept, interchangeable with the original's
 * file), refusals with non-zero exits, --help, and the stored key used by a
 * later run with the environment variable and --api-key still first.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const authPath = (): string => join(env.home, "auth.json");
const auth = (): unknown => JSON.parse(readFileSync(authPath(), "utf8"));

describe("zot login", () => {
  test("stores the key read from stdin in auth.json, 0600, and a later -p run uses it", async () => {
    const result = await env.run(["login", "anthropic"], { stdin: "sk-ant-from-stdin\n" });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`logged in to anthropic: key stored in ${authPath()}\n`);
    expect(auth()).toEqual({ anthropic: { api_key: "sk-ant-from-stdin" } });
    expect(statSync(authPath()).mode & 0o777).toBe(0o600);

    env.server.enqueue({ type: "text", text: "with the stored key" });
    const run = await env.run(["-p", "hi", "--base-url", env.server.anthropicBaseUrl]);
    expect(run.stdout).toBe("with the stored key\n");
    expect(env.server.requests[0]?.headers["x-api-key"]).toBe("sk-ant-from-stdin");

    // The environment variable, then --api-key, still come first.
    env.server.enqueue({ type: "text", text: "env" }, { type: "text", text: "flag" });
    await env.run(["-p", "hi", "--base-url", env.server.anthropicBaseUrl], { env: { ANTHROPIC_API_KEY: "sk-env" } });
    expect(env.server.requests[1]?.headers["x-api-key"]).toBe("sk-env");
    await env.run(["-p", "hi", "--base-url", env.server.anthropicBaseUrl, "--api-key", "sk-flag"], { env: { ANTHROPIC_API_KEY: "sk-env" } });
    expect(env.server.requests[2]?.headers["x-api-key"]).toBe("sk-flag");
  });

  test("keeps the original's other entries (OAuth tokens, unknown providers) and replaces only this provider's login", async () => {
    const original = {
      anthropic: { oauth: { access_token: "at", refresh_token: "rt", expiry: "2030-01-01T00:00:00Z" } },
      openai: { api_key: "sk-openai-old" },
      kimi: { oauth: { access_token: "kimi-token" } },
    };
    writeFileSync(authPath(), JSON.stringify(original), { mode: 0o644 });
    const result = await env.run(["login", "anthropic"], { stdin: "sk-ant-new" });
    expect(result.code).toBe(0);
    // Setting an API key clears that provider's OAuth login (one method per provider), as the original does.
    expect(auth()).toEqual({ anthropic: { api_key: "sk-ant-new" }, openai: { api_key: "sk-openai-old" }, kimi: { oauth: { access_token: "kimi-token" } } });
    expect(statSync(authPath()).mode & 0o777).toBe(0o600);
  });

  test("refuses bad input with a message and a non-zero exit, storing nothing", async () => {
    const cases: { args: string[]; stdin?: string; code: number; stderr: RegExp }[] = [
      { args: ["login", "anthropic"], stdin: "", code: 1, stderr: /the API key is empty/ },
      { args: ["login", "anthropic"], stdin: "   \n\n", code: 1, stderr: /the API key is empty/ },
      { args: ["login", "anthropic"], stdin: "key one\n", code: 1, stderr: /spaces, line breaks or control characters/ },
      { args: ["login", "anthropic"], stdin: "line1\nline2\n", code: 1, stderr: /several lines/ },
      { args: ["login", "anthropic"], stdin: "k\x1b[31m", code: 1, stderr: /control characters/ },
      { args: ["login", "anthropic"], stdin: "a".repeat(5000), code: 1, stderr: /longer than 4096 characters/ },
      { args: ["login", "anthropic"], stdin: "a".repeat(200_000), code: 1, stderr: /more than 64 KiB/ },
      { args: ["login"], stdin: "k", code: 2, stderr: /which provider\? \(anthropic, openai or kimi\)/ },
      { args: ["login", "kimmi"], stdin: "k", code: 2, stderr: /unknown provider "kimmi" \(did you mean kimi\? expected anthropic, openai or kimi\)/ },
      { args: ["login", "ollama"], stdin: "k", code: 2, stderr: /ollama needs no API key/ },
      { args: ["login", "anthropic", "openai"], stdin: "k", code: 2, stderr: /expected one provider/ },
      { args: ["login", "anthropic", "--key=x"], stdin: "k", code: 2, stderr: /unknown flag "--key=x"/ },
    ];
    for (const { args, stdin, code, stderr } of cases) {
      const result = await env.run(args, { stdin });
      expect({ args, code: result.code }).toEqual({ args, code });
      expect(result.stderr).toMatch(stderr);
      expect(result.stderr.split("\n").filter(Boolean).length).toBeLessThanOrEqual(2);
      expect(result.stdout).toBe("");
    }
    expect(() => statSync(authPath())).toThrow();
  });

  test("an invalid auth.json is reported and left alone", async () => {
    writeFileSync(authPath(), "{not json");
    const result = await env.run(["login", "openai"], { stdin: "sk-x" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`invalid ${authPath()}`);
    expect(readFileSync(authPath(), "utf8")).toBe("{not json");
  });

  test("--help explains the command on stdout, exit 0", async () => {
    for (const command of ["login", "logout"]) {
      const result = await env.run([command, "--help"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`usage: zot ${command}`);
      expect(result.stdout).toContain("auth.json");
    }
    const main = await env.run(["--help"]);
    expect(main.stdout).toContain("zot login <provider>");
    expect(main.stdout).toContain("zot logout [provider|all]");
  });
});

describe("zot logout", () => {
  test("removes one provider, the only one, or all; other entries stay", async () => {
    writeFileSync(authPath(), JSON.stringify({ anthropic: { api_key: "a" }, openai: { api_key: "o" }, kimi: { api_key: "k" } }));
    const three = await env.run(["logout"]);
    expect(three.code).toBe(2);
    expect(three.stderr).toContain("keys of anthropic, openai and kimi are stored: name one, or all");
    // A kimi entry with only an OAuth token (the original's device-code login) is kept, and is not a stored key.
    writeFileSync(authPath(), JSON.stringify({ anthropic: { api_key: "a" }, openai: { api_key: "o" }, kimi: { oauth: { access_token: "k" } } }));
    const ambiguous = await env.run(["logout"]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("keys of anthropic and openai are stored: name one, or all");

    const one = await env.run(["logout", "openai"]);
    expect(one.code).toBe(0);
    expect(one.stdout).toBe(`logged out of openai: removed from ${authPath()}\n`);
    expect(auth()).toEqual({ anthropic: { api_key: "a" }, kimi: { oauth: { access_token: "k" } } });

    const only = await env.run(["logout"]);
    expect(only.code).toBe(0);
    expect(only.stdout).toContain("logged out of anthropic");
    expect(auth()).toEqual({ kimi: { oauth: { access_token: "k" } } });
    expect(statSync(authPath()).mode & 0o777).toBe(0o600);

    const nothing = await env.run(["logout", "anthropic"]);
    expect(nothing.code).toBe(0);
    expect(nothing.stderr).toContain("no key for anthropic is stored");

    writeFileSync(authPath(), JSON.stringify({ anthropic: { api_key: "a" }, openai: { api_key: "o" } }));
    const all = await env.run(["logout", "all"], { env: { OPENAI_API_KEY: "sk-env" } });
    expect(all.code).toBe(0);
    expect(all.stdout).toContain("logged out of anthropic, openai");
    expect(all.stderr).toContain("OPENAI_API_KEY is still set");
    expect(auth()).toEqual({});

    const unknown = await env.run(["logout", "nobody"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown provider "nobody"');
  });

  test("after logout -p fails with a message naming zot login and the environment variable", async () => {
    await env.run(["login", "anthropic"], { stdin: "sk-a" });
    await env.run(["logout", "anthropic"]);
    const result = await env.run(["-p", "hi"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`zot: no API key for anthropic: set ANTHROPIC_API_KEY, pass --api-key, run \`zot login anthropic\`, or write {"anthropic":{"api_key":"…"}} to ${join(env.home, "auth.json")}\n`);
  });

  test("a model remembered in config.json whose provider lost its key falls back to a provider that has one; a flag-named provider does not", async () => {
    writeFileSync(join(env.home, "config.json"), JSON.stringify({ provider: "openai", model: "gpt-5-mini" }));
    await env.run(["login", "anthropic"], { stdin: "sk-a" });
    env.server.enqueue({ type: "text", text: "fell back to anthropic" });
    const fallback = await env.run(["-p", "hi", "--base-url", env.server.anthropicBaseUrl]);
    expect(fallback.stdout).toBe("fell back to anthropic\n");
    expect(env.server.requests[0]?.dialect).toBe("anthropic");
    const named = await env.run(["-p", "hi", "--provider", "openai"]);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain(`no API key for openai: set OPENAI_API_KEY, pass --api-key, run \`zot login openai\`, or write {"openai":{"api_key":"…"}} to ${join(env.home, "auth.json")}`);
  });
});
