/**
 * Compatibility with the original Go zot (docs/compat.md), through dist/zot:
 * scripts, session files and clients written for the original run unchanged.
 * Each test here pins one row of docs/compat.md that was fixed or that a
 * script depends on.
 */
import { afterAll, afterEach, beforeEach, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTempDirs } from "../support/temp.ts";
import { createModeEnv, requestMessages, requestTexts, toolResultsSent, type ModeEnv } from "../modes/helpers.ts";

afterAll(removeTempDirs);

let env: ModeEnv;
beforeEach(() => {
  env = createModeEnv();
});
afterEach(async () => {
  await env.dispose();
});

test("--max-steps 0 means no limit, as in the original (51 tool steps, past the default 50)", async () => {
  const steps = 51;
  for (let i = 0; i < steps; i++) {
    env.server.enqueue({ type: "tool_calls", calls: [{ id: `call_${i}`, name: "read", arguments: { path: "missing.txt" } }] });
  }
  env.server.enqueue({ type: "text", text: "finally" });
  const result = await env.run(["-p", "loop", "--max-steps", "0", "--no-session", ...env.providerArgs()]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("finally\n");
  expect(env.server.requests).toHaveLength(steps + 1);
}, 60_000);

test("-r reads the session number from a pipe, as the original does (echo 1 | zot -p -r prompt)", async () => {
  env.server.enqueue({ type: "text", text: "first" }, { type: "text", text: "picked" });
  expect((await env.run(["-p", "remember the word kumquat", ...env.providerArgs()])).code).toBe(0);
  const result = await env.run(["-p", "-r", "what was the word?", ...env.providerArgs()], { stdin: "1\n" });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("picked\n");
  expect(result.stderr).toContain("  1) ");
  expect(result.stderr).toContain("remember the word kumquat");
  expect(requestTexts(env.server.requests[1])).toContain("kumquat");
  expect(env.sessionFiles()).toHaveLength(1);
});

test("-r with nothing on stdin picks nothing and exits 1 without calling the model", async () => {
  env.server.enqueue({ type: "text", text: "first" });
  expect((await env.run(["-p", "hello", ...env.providerArgs()])).code).toBe(0);
  const result = await env.run(["-p", "-r", "again", ...env.providerArgs()], { stdin: "" });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain("zot: no session picked");
  expect(env.server.requests).toHaveLength(1);
});

/** A session file exactly as the original writes it: untyped blocks, CRLF, a model-switch meta row, rename, usage rows. */
function writeOriginalSession(cwd: string): string {
  const dir = join(env.home, "sessions", createHash("sha256").update(cwd).digest("hex").slice(0, 16));
  mkdirSync(dir, { recursive: true });
  const meta = { id: "0a1b2c3d-1111-2222-3333-444455556666", cwd, model: "claude-sonnet-4-5", provider: "anthropic", started: "2025-06-01T12:00:00.123456789+02:00", version: "0.9.1 (abcdef1, 2025-05-30)" };
  const usage = (cost: number) => ({ input_tokens: 100, output_tokens: 20, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: cost });
  const rows: unknown[] = [
    { type: "meta", meta },
    { type: "message", message: { role: "user", content: [{ text: "list files" }, { mime_type: "image/png", data: Buffer.from("not really a png").toString("base64") }], time: "2025-06-01T12:00:01.5+02:00" } },
    { type: "message", message: { role: "assistant", content: [{ reasoning_id: "rs_1", encrypted_content: "opaque" }, { text: "ok" }, { id: "toolu_A", name: "bash", arguments: { command: "ls" } }], time: "2025-06-01T12:00:02+02:00" } },
    { type: "usage", usage: usage(0.5), cumulative: usage(0.5) },
    { type: "message", message: { role: "tool", content: [{ call_id: "toolu_A", content: [{ text: "a.txt\nb.txt" }], is_error: false }], time: "2025-06-01T12:00:03+02:00" } },
    { type: "message", message: { role: "assistant", content: [{ text: "There are two files, a.txt and b.txt." }], time: "2025-06-01T12:00:04+02:00", meta: { k: "v" } } },
    { type: "meta", meta: { ...meta, model: "claude-opus-4-1" } },
    { type: "rename", title: "file listing" },
    { type: "usage", usage: usage(1.25), cumulative: usage(1.25) },
  ];
  const path = join(dir, "20250601-100000-0a1b2c3d.jsonl");
  writeFileSync(path, rows.map((row) => JSON.stringify(row)).join("\r\n") + "\r\n");
  return path;
}

test("a session file written by the original resumes with --session and -c, and its cost continues", async () => {
  const path = writeOriginalSession(env.cwd);
  env.server.enqueue({ type: "text", text: "two" }, { type: "text", text: "three" });
  const bySession = await env.run(["-p", "how many?", "--session", path, ...env.providerArgs()]);
  expect(bySession.stderr).toBe("");
  expect(bySession.code).toBe(0);
  const sent = requestMessages(env.server.requests[0]);
  expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
  expect(JSON.stringify(sent[0])).toContain('"media_type":"image/png"');
  expect(JSON.stringify(sent[1])).toContain('"name":"bash"');
  expect(JSON.stringify(sent[2])).toContain("a.txt\\nb.txt");
  const continued = await env.run(["--json", "and now?", "-c", ...env.providerArgs()]);
  expect(continued.code).toBe(0);
  expect(requestTexts(env.server.requests[1])).toContain("how many?");
  const usageLine = continued.stdout.split("\n").find((line) => line.startsWith('{"type":"usage"'));
  expect((JSON.parse(usageLine ?? "{}") as { cumulative?: { cost_usd?: number } }).cumulative?.cost_usd).toBeGreaterThan(1.25);
  // The original's rows are kept as they were; zot appends after them.
  expect(readFileSync(path, "utf8").startsWith('{"type":"meta"')).toBe(true);
  expect(env.sessionFiles()).toEqual([path]);
});

test("config.json from the original naming provider kimi runs on kimi (with its model and KIMI_API_KEY), not on another provider", async () => {
  writeFileSync(join(env.home, "config.json"), JSON.stringify({ provider: "kimi", model: "kimi-for-coding", theme: "dark", last_changelog_shown: "0.9.1" }, null, 2) + "\n");
  env.server.enqueue({ type: "text", text: "on kimi" });
  const result = await env.run(["-p", "hi", "--base-url", env.server.openaiBaseUrl], { env: { KIMI_API_KEY: "sk-kimi", ANTHROPIC_API_KEY: "sk-ant" } });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("on kimi\n");
  expect(env.server.requests[0]?.path).toBe("/v1/chat/completions");
  expect(env.server.requests[0]?.headers.authorization).toBe("Bearer sk-kimi");
  expect((env.server.requests[0]?.body as { model?: string }).model).toBe("kimi-for-coding");
  // Without a kimi key the credential fallback (anthropic, openai, kimi) picks the provider that has one.
  env.server.enqueue({ type: "text", text: "fell back" });
  const fallback = await env.run(["-p", "hi", "--base-url", env.server.anthropicBaseUrl], { env: { ANTHROPIC_API_KEY: "sk-ant" } });
  expect(fallback.stderr).toBe("");
  expect(fallback.code).toBe(0);
  expect((env.server.requests[1]?.body as { model?: string }).model).toBe("claude-sonnet-4-5");
  // A provider neither zot knows: as the original, one is picked by key (here none: anthropic), with a warning naming the file.
  const configText = JSON.stringify({ provider: "antropic", model: "gpt-5" });
  writeFileSync(join(env.home, "config.json"), configText);
  env.server.enqueue({ type: "text", text: "picked anthropic" });
  const typo = await env.run(["-p", "hi", "--base-url", env.server.anthropicBaseUrl, "--api-key", "test-key"]);
  expect(typo.code).toBe(0);
  expect(typo.stdout).toBe("picked anthropic\n");
  expect(typo.stderr).toBe(
    `zot: warning: ${join(env.home, "config.json")}: unknown provider "antropic" (did you mean anthropic?) (expected anthropic, openai, kimi, ollama); using anthropic and its default model (the file is not changed)\n`,
  );
  expect((env.server.requests[2]?.body as { model?: string }).model).toBe("claude-sonnet-4-5");
  expect(readFileSync(join(env.home, "config.json"), "utf8")).toBe(configText);
});

test("--tools may name skill, as scripts for the original do: accepted, the other names still apply", async () => {
  env.server.enqueue({ type: "text", text: "ok" });
  const result = await env.run(["-p", "hi", "--no-session", "--tools", "read,skill", ...env.providerArgs()]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const tools = ((env.server.requests[0]?.body as { tools?: { name: string }[] }).tools ?? []).map((tool) => tool.name);
  expect(tools).toContain("read");
  expect(tools).not.toContain("bash");
});

test("ZOT_DEBUG_ANTHROPIC=<file> appends each Anthropic request body as one JSON line, file 0600, no key", async () => {
  const log = join(env.base, "requests.jsonl");
  env.server.enqueue({ type: "text", text: "one" }, { type: "text", text: "two" });
  for (const prompt of ["first question", "second question"]) {
    const result = await env.run(["-p", prompt, "--no-session", ...env.providerArgs()], { env: { ZOT_DEBUG_ANTHROPIC: log } });
    expect(result.code).toBe(0);
  }
  const lines = readFileSync(log, "utf8").trimEnd().split("\n");
  expect(lines).toHaveLength(2);
  const bodies = lines.map((line) => JSON.parse(line) as { model: string; messages: unknown[] });
  expect(bodies.map((body) => body.model)).toEqual(["claude-sonnet-4-5", "claude-sonnet-4-5"]);
  expect(JSON.stringify(bodies[1]?.messages)).toContain("second question");
  expect(lines.join("\n")).not.toContain("test-key");
  expect(statSync(log).mode & 0o777).toBe(0o600);
});

test("a flag value may start with '-' unless it is one of zot's flags: --append-system-prompt \"- answer in French\"", async () => {
  env.server.enqueue({ type: "text", text: "oui" });
  const result = await env.run(["-p", "hi", "--no-session", "--append-system-prompt", "- answer in French", ...env.providerArgs()]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(JSON.stringify((env.server.requests[0]?.body as { system?: unknown }).system)).toContain("- answer in French");
  const negative = await env.run(["-p", "hi", "--max-steps", "-1", ...env.providerArgs()]);
  expect(negative.code).toBe(2);
  expect(negative.stderr).toStartWith('zot: --max-steps must be a positive integer, got "-1"');
  const forgotten = await env.run(["-p", "hi", "--model", "-c", ...env.providerArgs()]);
  expect(forgotten.code).toBe(2);
  expect(forgotten.stderr).toStartWith('zot: flag --model needs a value, but the next argument "-c" is a flag');
});

test("read takes offset 0 and limit 0 as not given, as the original does (models that fill every field send them)", async () => {
  writeFileSync(join(env.cwd, "notes.txt"), "alpha\nbeta\ngamma\n");
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_zero", name: "read", arguments: { path: "notes.txt", offset: 0, limit: 0 } }, { id: "call_negative", name: "read", arguments: { path: "notes.txt", offset: -2 } }] },
    { type: "text", text: "read it" },
  );
  const result = await env.run(["-p", "read notes", "--no-session", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  const results = toolResultsSent(env.server.requests[1]);
  expect(results.get("call_zero")).toBe("alpha\nbeta\ngamma\n");
  expect(results.get("call_negative")).toContain('field "offset": must be a line number ≥ 1');
});
