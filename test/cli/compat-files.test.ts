/**
 * The original Go zot's files and flags as a migrating user brings them,
 * through dist/zot (docs/compat.md, "Files"): config.json with the blank or
 * null values the original writes and reads as "not set"; auth.json with
 * `"api_key": null` and entries of providers zot does not know (kept as
 * they are by `zot login`); the credential fallback with --model; the
 * original's `[QUIRK]` key for a models.json model with its own base URL;
 * Ollama's `Bearer ollama`; `--system-prompt ""` as not given; and the cap
 * on a project context file.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

type Body = { model?: string; system?: { text?: string }[] | string; messages?: unknown[] };
const body = (index: number): Body => (env.server.requests[index]?.body ?? {}) as Body;
const systemText = (index: number): string => {
  const system = body(index).system;
  return typeof system === "string" ? system : (system ?? []).map((block) => block.text ?? "").join("");
};

test('config.json with "model": "" (which the original itself writes) or null runs on the provider\'s default model', async () => {
  for (const model of ["", "   ", null]) {
    writeFileSync(join(env.home, "config.json"), JSON.stringify({ provider: "anthropic", model, reasoning: "", theme: "" }));
    env.server.enqueue({ type: "text", text: "ok" });
    const result = await env.run(["-p", "hi", "--no-session", "--base-url", env.server.anthropicBaseUrl, "--api-key", "k"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  }
  expect(env.server.requests.map((request) => (request.body as Body).model)).toEqual(["claude-sonnet-4-5", "claude-sonnet-4-5", "claude-sonnet-4-5"]);
});

test('auth.json: "api_key": null is no key (the fallback finds the next provider), and zot login keeps an unknown entry as it is', async () => {
  const auth = join(env.home, "auth.json");
  writeFileSync(auth, JSON.stringify({ anthropic: { api_key: null }, openai: { api_key: "sk-stored" }, zzz: [1, 2], note: "hello" }));
  env.server.enqueue({ type: "text", text: "on openai" });
  const run = await env.run(["-p", "hi", "--no-session", "--base-url", env.server.openaiBaseUrl]);
  expect(run.stderr).toBe("");
  expect(run.stdout).toBe("on openai\n");
  expect(env.server.requests[0]?.headers.authorization).toBe("Bearer sk-stored");
  const login = await env.run(["login", "anthropic"], { stdin: "sk-new\n" });
  expect(login.code).toBe(0);
  // Before: the array came back as {"0": 1, "1": 2}, and a string entry made every run fail.
  expect(JSON.parse(readFileSync(auth, "utf8"))).toEqual({ anthropic: { api_key: "sk-new" }, openai: { api_key: "sk-stored" }, zzz: [1, 2], note: "hello" });
});

test("--model without --provider: a missing key falls back to the provider whose catalog has that model, never to another model", async () => {
  env.server.enqueue({ type: "text", text: "gpt here" });
  const onOpenai = await env.run(["-p", "hi", "--no-session", "--model", "gpt-4o", "--base-url", env.server.openaiBaseUrl], { env: { OPENAI_API_KEY: "sk-o" } });
  expect(onOpenai.stderr).toBe("");
  expect(onOpenai.stdout).toBe("gpt here\n");
  expect(body(0).model).toBe("gpt-4o");
  // The original would have run openai's default model here; zot says what is missing instead.
  const claude = await env.run(["-p", "hi", "--no-session", "--model", "claude-haiku-4-5"], { env: { OPENAI_API_KEY: "sk-o" } });
  expect(claude.code).toBe(1);
  expect(claude.stderr).toStartWith("zot: no API key for anthropic: ");
  expect(env.server.requests).toHaveLength(1);
});

test("a models.json model with its own base URL and no key anywhere is sent the key `ollama`, as the original's [QUIRK]; ollama sends it too", async () => {
  writeFileSync(
    join(env.home, "models.json"),
    JSON.stringify({ providers: { openai: { models: [{ id: "local-llm", baseUrl: `${env.server.openaiBaseUrl}/v1`, contextWindow: 8192, maxTokens: 1024 }] } } }),
  );
  env.server.enqueue({ type: "text", text: "local" }, { type: "text", text: "llama" });
  const local = await env.run(["-p", "hi", "--no-session", "--provider", "openai", "--model", "local-llm"]);
  expect(local.stderr).toBe("");
  expect(local.stdout).toBe("local\n");
  expect(env.server.requests[0]?.headers.authorization).toBe("Bearer ollama");
  const ollama = await env.run(["-p", "hi", "--no-session", "--provider", "ollama", "--model", "qwen", "--base-url", env.server.openaiBaseUrl]);
  expect(ollama.stdout).toBe("llama\n");
  expect(env.server.requests[1]?.headers.authorization).toBe("Bearer ollama");
});

test('--system-prompt "" is not given, as with the original (SYSTEM.md stays); a huge AGENTS.md is cut to 64 Ki characters, with a warning', async () => {
  writeFileSync(join(env.home, "SYSTEM.md"), "You are the house assistant.\n");
  writeFileSync(join(env.cwd, "AGENTS.md"), `start ${"x".repeat(200_000)} end`);
  env.server.enqueue({ type: "text", text: "ok" });
  const result = await env.run(["-p", "hi", "--no-session", "--system-prompt", "", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  expect(result.stderr).toBe("zot: warning: AGENTS.md is 200010 characters; the system prompt carries its first 65536\n");
  const system = systemText(0);
  expect(system).toStartWith("You are the house assistant.");
  expect(system).toContain("[AGENTS.md is cut here: the first 65536 of its 200010 characters]");
  expect(system).not.toContain(" end");
  expect(system.length).toBeLessThan(70_000);
});
