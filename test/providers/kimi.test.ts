/**
 * The kimi provider (API key only) through the compiled binary against the
 * stand-in server's Chat Completions dialect: --provider kimi with
 * KIMI_API_KEY / MOONSHOT_API_KEY / auth.json / `zot login kimi`, the
 * credential fallback order (anthropic, openai, kimi), config.json naming
 * kimi, models.json's `moonshot` alias, --list-models, an empty assistant
 * turn left out of the request, the in-stream error worded as the original's.
 * (The catalog entry's base URL is checked in catalog.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requestMessages, useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

type Body = { model?: string; messages?: { role: string; content: unknown }[] };
const bodyOf = (index: number): Body => (env.server.requests[index]?.body ?? {}) as Body;
const kimiArgs = (): string[] => ["--provider", "kimi", "--base-url", env.server.openaiBaseUrl];

describe("kimi credentials", () => {
  test("--provider kimi with KIMI_API_KEY: Bearer key, model kimi-for-coding, {base}/chat/completions", async () => {
    env.server.enqueue({ type: "text", text: "hello from kimi" });
    const result = await env.run(["-p", "hi", "--no-session", ...kimiArgs()], { env: { KIMI_API_KEY: "sk-kimi-env" } });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("hello from kimi\n");
    const request = env.server.requests[0];
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer sk-kimi-env");
    expect(bodyOf(0).model).toBe("kimi-for-coding");
  });

  test("MOONSHOT_API_KEY when KIMI_API_KEY is not set; KIMI_API_KEY first when both are", async () => {
    env.server.enqueue({ type: "text", text: "one" }, { type: "text", text: "two" });
    const moonshot = await env.run(["-p", "hi", "--no-session", ...kimiArgs()], { env: { MOONSHOT_API_KEY: "sk-moonshot" } });
    expect(moonshot.stderr).toBe("");
    expect(moonshot.code).toBe(0);
    expect(env.server.requests[0]?.headers.authorization).toBe("Bearer sk-moonshot");
    await env.run(["-p", "hi", "--no-session", ...kimiArgs()], { env: { MOONSHOT_API_KEY: "sk-moonshot", KIMI_API_KEY: "sk-kimi" } });
    expect(env.server.requests[1]?.headers.authorization).toBe("Bearer sk-kimi");
  });

  test("the key from auth.json's kimi entry (the original's format)", async () => {
    writeFileSync(join(env.home, "auth.json"), JSON.stringify({ kimi: { api_key: "sk-kimi-stored" } }), { mode: 0o600 });
    env.server.enqueue({ type: "text", text: "stored" });
    const result = await env.run(["-p", "hi", "--no-session", ...kimiArgs()]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(env.server.requests[0]?.headers.authorization).toBe("Bearer sk-kimi-stored");
  });

  test("zot login kimi stores the key (0600, other entries kept), a later run uses it, zot logout kimi removes it", async () => {
    const authPath = join(env.home, "auth.json");
    writeFileSync(authPath, JSON.stringify({ anthropic: { api_key: "sk-ant" } }), { mode: 0o600 });
    const login = await env.run(["login", "kimi"], { stdin: "sk-kimi-login\n" });
    expect(login.stderr).toBe("");
    expect(login.code).toBe(0);
    expect(login.stdout).toBe(`logged in to kimi: key stored in ${authPath}\n`);
    expect(JSON.parse(readFileSync(authPath, "utf8"))).toEqual({ anthropic: { api_key: "sk-ant" }, kimi: { api_key: "sk-kimi-login" } });
    expect(statSync(authPath).mode & 0o777).toBe(0o600);

    env.server.enqueue({ type: "text", text: "logged in" });
    const run = await env.run(["-p", "hi", "--no-session", ...kimiArgs()]);
    expect(run.code).toBe(0);
    expect(env.server.requests[0]?.headers.authorization).toBe("Bearer sk-kimi-login");

    const noted = await env.run(["login", "kimi"], { stdin: "sk-kimi-2", env: { MOONSHOT_API_KEY: "sk-m" } });
    expect(noted.stderr).toBe("zot: note: MOONSHOT_API_KEY is set and comes before the stored key\n");

    const logout = await env.run(["logout", "kimi"]);
    expect(logout.code).toBe(0);
    expect(logout.stdout).toBe(`logged out of kimi: removed from ${authPath}\n`);
    expect(JSON.parse(readFileSync(authPath, "utf8"))).toEqual({ anthropic: { api_key: "sk-ant" } });
  });

  test("without a key: the error names both variables, the flag, zot login kimi and auth.json", async () => {
    const result = await env.run(["-p", "hi", "--no-session", ...kimiArgs()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `no API key for kimi: set KIMI_API_KEY or MOONSHOT_API_KEY, pass --api-key, run \`zot login kimi\`, or write {"kimi":{"api_key":"…"}} to ${join(env.home, "auth.json")}`,
    );
    expect(env.server.requests).toHaveLength(0);
  });
});

describe("kimi in provider resolution", () => {
  test("no --provider and no key for anthropic or openai, KIMI_API_KEY set: the run falls back to kimi (order anthropic, openai, kimi)", async () => {
    env.server.enqueue({ type: "text", text: "fell back to kimi" }, { type: "text", text: "openai first" });
    const kimi = await env.run(["-p", "hi", "--no-session", "--base-url", env.server.openaiBaseUrl], { env: { KIMI_API_KEY: "sk-kimi" } });
    expect(kimi.stderr).toBe("");
    expect(kimi.code).toBe(0);
    expect(kimi.stdout).toBe("fell back to kimi\n");
    expect(bodyOf(0).model).toBe("kimi-for-coding");
    expect(env.server.requests[0]?.headers.authorization).toBe("Bearer sk-kimi");
    // openai comes before kimi.
    const openai = await env.run(["-p", "hi", "--no-session", "--base-url", env.server.openaiBaseUrl], { env: { KIMI_API_KEY: "sk-kimi", OPENAI_API_KEY: "sk-openai" } });
    expect(openai.code).toBe(0);
    expect(bodyOf(1).model).toBe("gpt-5");
    expect(env.server.requests[1]?.headers.authorization).toBe("Bearer sk-openai");
  });

  test('config.json "provider": "kimi" (written by the original) is used, with its model', async () => {
    writeFileSync(join(env.home, "config.json"), JSON.stringify({ provider: "kimi", model: "kimi-for-coding", theme: "dark", last_changelog_shown: "0.9.1" }, null, 2) + "\n");
    env.server.enqueue({ type: "text", text: "from config" });
    const result = await env.run(["-p", "hi", "--no-session", "--base-url", env.server.openaiBaseUrl], { env: { KIMI_API_KEY: "sk-kimi", ANTHROPIC_API_KEY: "sk-ant" } });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(env.server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(bodyOf(0).model).toBe("kimi-for-coding");
    expect(env.server.requests[0]?.headers.authorization).toBe("Bearer sk-kimi");
  });

  test("a config.json provider zot does not know: the first of anthropic, kimi, openai with a key replaces it (kimi before openai), model dropped, warned", async () => {
    writeFileSync(join(env.home, "config.json"), JSON.stringify({ provider: "gemini", model: "gpt-5" }));
    env.server.enqueue({ type: "text", text: "kimi picked" });
    const result = await env.run(["-p", "hi", "--no-session", "--base-url", env.server.openaiBaseUrl], { env: { OPENAI_API_KEY: "sk-openai", KIMI_API_KEY: "sk-kimi" } });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`zot: warning: ${join(env.home, "config.json")}: unknown provider "gemini"`);
    expect(result.stderr).toContain("using kimi and its default model");
    expect(bodyOf(0).model).toBe("kimi-for-coding");
    expect(env.server.requests[0]?.headers.authorization).toBe("Bearer sk-kimi");
  });

  test("models.json's moonshot alias adds a kimi model: listed by --list-models, used by --provider kimi --model", async () => {
    const models = { providers: { moonshot: { models: [{ id: "kimi-k2-custom", name: "Custom K2", contextWindow: 131072, maxTokens: 16384 }] } } };
    writeFileSync(join(env.home, "models.json"), JSON.stringify(models));
    const list = await env.run(["--list-models"]);
    expect(list.stderr).toBe("");
    expect(list.code).toBe(0);
    const rows = list.stdout.split("\n");
    expect(rows.find((row) => row.startsWith("kimi ") && row.includes("kimi-for-coding"))).toMatch(/^kimi\s+kimi-for-coding\s+262144\s+32768\s+catalog\s+Kimi for Coding$/);
    expect(rows.find((row) => row.includes("kimi-k2-custom"))).toMatch(/^kimi\s+kimi-k2-custom\s+131072\s+16384\s+user\s+Custom K2$/);

    env.server.enqueue({ type: "text", text: "custom" });
    const run = await env.run(["-p", "hi", "--no-session", ...kimiArgs(), "--model", "kimi-k2-custom"], { env: { KIMI_API_KEY: "sk-kimi" } });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(bodyOf(0).model).toBe("kimi-k2-custom");
  });
});

describe("kimi requests", () => {
  test("assistant turns with neither text nor tool calls (reasoning only, blank text) are left out of the request (Kimi rejects them)", async () => {
    // A session as the original writes it, with such turns in it.
    const dir = join(env.home, "sessions", createHash("sha256").update(env.cwd).digest("hex").slice(0, 16));
    mkdirSync(dir, { recursive: true });
    const time = "2025-06-01T12:00:01+02:00";
    const rows = [
      { type: "meta", meta: { id: "0a1b2c3d-1111-2222-3333-444455556666", cwd: env.cwd, model: "kimi-for-coding", provider: "kimi", started: time, version: "0.9.1" } },
      { type: "message", message: { role: "user", content: [{ text: "first question" }], time } },
      { type: "message", message: { role: "assistant", content: [{ reasoning_id: "rs_1", summary: "thinking it over", encrypted_content: "opaque" }], time } },
      { type: "message", message: { role: "user", content: [{ text: "still there?" }], time } },
      { type: "message", message: { role: "assistant", content: [{ text: "   " }], time } },
    ];
    const path = join(dir, "20250601-100000-0a1b2c3d.jsonl");
    writeFileSync(path, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
    env.server.enqueue({ type: "text", text: "second answer" });
    const result = await env.run(["-p", "second question", "--session", path, ...kimiArgs()], { env: { KIMI_API_KEY: "sk-kimi" } });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const sent = requestMessages(env.server.requests[0]).filter((message) => message.role !== "system");
    expect(sent).toEqual([
      { role: "user", content: "first question" },
      { role: "user", content: "still there?" },
      { role: "user", content: "second question" },
    ]);
  });

  test("an in-stream error reads `openai: <message>`, as the original words it for kimi", async () => {
    env.server.enqueue({ type: "stream_error", message: "quota exceeded" });
    const result = await env.run(["-p", "hi", "--no-session", ...kimiArgs()], { env: { KIMI_API_KEY: "sk-kimi" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("openai: quota exceeded");
  });
});
