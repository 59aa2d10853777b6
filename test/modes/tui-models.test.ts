/**
 * Models and credentials on the chat screen end to end (dist/zot in a real
 * PTY against the stand-in model server, which speaks both dialects, so a
 * switch from Anthropic to OpenAI is real): the /model picker (only
 * logged-in providers, context and price shown, filter by typing), the
 * cross-provider switch carrying the conversation and the cost over and
 * being remembered in config.json and the session, `/model <id>`, the
 * login dialog opening when there is no key at all (masked input, auth.json
 * 0600), /logout, the rescue offer after an authentication or rate-limit
 * failure, and `zot login` asking for the key on a terminal with echo off.
 * The OpenAI model reaches the stand-in server through a models.json
 * `baseUrl` (the launch --base-url belongs to the launch provider only).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TuiPty } from "../support/tui-pty.ts";
import { requestMessages, requestTexts, type ModeEnv } from "./helpers.ts";
import { TEST_MS, rowsWith, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

/** models.json pointing both providers' test models at the stand-in server. */
function writeModelsFile(): void {
  const models = {
    providers: {
      anthropic: { models: [{ id: "claude-sonnet-4-5", baseUrl: env.server.anthropicBaseUrl }] },
      openai: { models: [{ id: "gpt-5-mini", baseUrl: env.server.openaiBaseUrl }] },
    },
  };
  writeFileSync(join(env.home, "models.json"), JSON.stringify(models));
}

const authPath = (): string => join(env.home, "auth.json");
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));

function sessionRows(): Record<string, unknown>[] {
  const [file] = env.sessionFiles();
  if (file === undefined) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Starts zot with no provider flags at all (keys from env / auth.json, URLs from models.json). */
function startBare(extraEnv: Record<string, string> = {}, args: string[] = []): Promise<TuiPty> {
  return TuiPty.start({ home: env.home, cwd: env.cwd, args, env: extraEnv, columns: 110, rows: 34 });
}

async function send(tui: TuiPty, text: string): Promise<void> {
  tui.type(text);
  tui.press("enter");
}

describe("/model", () => {
  test("the picker lists logged-in providers' models with context and price; a cross-provider switch carries the conversation and cost and is remembered", async () => {
    writeModelsFile();
    env.server.enqueue({ type: "text", text: "claude answers", usage: { input: 1000, output: 100 } });
    // Anthropic by the launch flags; OpenAI by its environment variable.
    const tui = await startChat(env, { env: { OPENAI_API_KEY: "sk-openai-env" }, columns: 110, rows: 34 });
    await send(tui, "first question");
    await tui.waitForText("claude answers");
    await waitIdle(tui);
    // 1000 × $3 + 100 × $15 per Mtok.
    await tui.waitForText("$0.0045", "screen");

    await send(tui, "/model");
    await tui.waitForText("anthropic/claude-opus-4-1", "screen");
    const screen = tui.screen.screen();
    expect(rowsWith(screen, /openai\/gpt-5-mini .*GPT-5 mini · 400k ctx · \$0\.25\/\$2 per Mtok/)).toHaveLength(1);
    expect(rowsWith(screen, /claude-sonnet-4-5 .*200k ctx · \$3\/\$15 per Mtok/)).toHaveLength(1);
    tui.type("gpt5mini");
    await tui.waitForText(/1 of \d+/, "screen");
    tui.press("enter");
    await tui.waitForText("model: openai/gpt-5-mini (the conversation and its cost carry over)");
    await tui.waitForText("openai/gpt-5-mini ·", "screen");

    env.server.enqueue({ type: "text", text: "gpt answers", usage: { input: 2000, output: 100 } });
    await send(tui, "second question");
    await tui.waitForText("gpt answers");
    await waitIdle(tui);
    const second = env.server.requests[1];
    expect(second?.dialect).toBe("openai-chat");
    expect(second?.headers.authorization).toBe("Bearer sk-openai-env");
    expect((second?.body as { model?: string }).model).toBe("gpt-5-mini");
    // The conversation came along: the earlier turn is in the OpenAI request.
    const texts = requestTexts(second);
    expect(texts).toContain("first question");
    expect(texts).toContain("claude answers");
    // Cumulative cost: 0.0045 + (2000 × 0.25 + 100 × 2) / 1e6 = 0.0052.
    await tui.waitForText("$0.0052", "screen");

    expect(readJson(join(env.home, "config.json"))).toEqual({ provider: "openai", model: "gpt-5-mini" });
    const metas = sessionRows().filter((row) => row.type === "meta");
    expect(metas.at(-1)).toMatchObject({ meta: { provider: "openai", model: "gpt-5-mini" } });
    const usage = sessionRows().filter((row) => row.type === "usage").at(-1) as { cumulative?: { cost_usd?: number } };
    expect(usage.cumulative?.cost_usd).toBeCloseTo(0.0052, 6);
  }, TEST_MS);

  test("a provider without a key is not listed; /model <id> switches directly and refuses unknown or keyless models", async () => {
    writeModelsFile();
    const tui = await startChat(env, { columns: 110, rows: 34 });
    await send(tui, "/model");
    await tui.waitForText("anthropic/claude-opus-4-1", "screen");
    expect(rowsWith(tui.screen.screen(), "openai/")).toEqual([]);
    tui.press("escape");
    await tui.waitFor(() => rowsWith(tui.screen.screen(), "claude-opus-4-1").length === 0, "the picker to close");

    await send(tui, "/model gpt-5-mini");
    await tui.waitForText("/model gpt-5-mini: not logged in to openai: /login openai, or set OPENAI_API_KEY");
    await send(tui, "/model no-such-model");
    await tui.waitForText('unknown model "no-such-model"');
    await send(tui, "/model claude-haiku-4-5");
    await tui.waitForText("model: anthropic/claude-haiku-4-5");
    await tui.waitForText("anthropic/claude-haiku-4-5 ·", "screen");
    // A same-provider switch keeps the launch --base-url and --api-key.
    env.server.enqueue({ type: "text", text: "haiku answers" });
    await send(tui, "hello haiku");
    await tui.waitForText("haiku answers");
    expect(env.server.requests[0]?.headers["x-api-key"]).toBe("test-key");
    expect((env.server.requests[0]?.body as { model?: string }).model).toBe("claude-haiku-4-5");
    expect(readJson(join(env.home, "config.json"))).toEqual({ provider: "anthropic", model: "claude-haiku-4-5" });
  }, TEST_MS);
});

describe("login and logout", () => {
  test("with no key at all zot opens the login dialog; the masked key goes to auth.json (0600) and is used at once", async () => {
    writeModelsFile();
    const tui = await startBare();
    await tui.waitForText("no API key found: pick a provider to log in", "screen");
    tui.press("enter");
    await tui.waitForText("API key for anthropic", "screen");
    tui.type("sk-ant-typed-secret");
    await tui.waitForText("•".repeat(19), "screen");
    expect(rowsWith(tui.screen.all(), "sk-ant-typed-secret")).toEqual([]);
    tui.press("enter");
    await tui.waitForText("logged in to anthropic");
    expect(readJson(authPath())).toEqual({ anthropic: { api_key: "sk-ant-typed-secret" } });
    expect(statSync(authPath()).mode & 0o777).toBe(0o600);

    env.server.enqueue({ type: "text", text: "logged-in answer" });
    await send(tui, "hello");
    await tui.waitForText("logged-in answer");
    expect(env.server.requests[0]?.headers["x-api-key"]).toBe("sk-ant-typed-secret");
    expect(rowsWith(tui.screen.all(), "sk-ant-typed-secret")).toEqual([]);
  }, TEST_MS);

  test("an empty or spaced key is refused in the dialog; Esc leaves zot running without a key and says how to log in", async () => {
    const tui = await startBare();
    await tui.waitForText("no API key found", "screen");
    tui.press("down", "enter");
    await tui.waitForText("API key for openai", "screen");
    tui.press("enter");
    await tui.waitForText("the API key is empty", "screen");
    tui.type("two words");
    tui.press("enter");
    await tui.waitForText("spaces, line breaks or control characters", "screen");
    tui.press("escape");
    await tui.waitFor(() => rowsWith(tui.screen.screen(), "API key for openai").length === 0, "the dialog to close");
    expect(() => statSync(authPath())).toThrow();
    // A prompt without a key fails with the way to log in; nothing was sent.
    await send(tui, "hello");
    await tui.waitForText("run `zot login anthropic`");
    expect(env.server.requests).toHaveLength(0);
    await send(tui, "/login openai");
    await tui.waitForText("API key for openai", "screen");
  }, TEST_MS);

  test("/logout removes the stored key; the next prompt fails and the rescue offer retries it with the other provider", async () => {
    writeModelsFile();
    writeFileSync(authPath(), JSON.stringify({ anthropic: { api_key: "sk-ant-stored" }, kimi: { oauth: { access_token: "k" } } }));
    const tui = await startBare({ OPENAI_API_KEY: "sk-openai-env" });
    await send(tui, "/logout");
    await tui.waitForText("remove its key from auth.json", "screen");
    tui.press("enter");
    await tui.waitForText("logged out of anthropic (removed from auth.json)");
    await tui.waitForText("not logged in to anthropic: /login anthropic, or set ANTHROPIC_API_KEY");
    expect(readJson(authPath())).toEqual({ kimi: { oauth: { access_token: "k" } } });

    await send(tui, "after logout");
    await tui.waitForText("no API key: retry with another model?", "screen");
    // Only the providers with a key are offered (rows of the dialog box).
    expect(rowsWith(tui.screen.screen(), /│.*anthropic\//)).toEqual([]);
    expect(rowsWith(tui.screen.screen(), /│.*openai\/gpt-5-mini/)).toHaveLength(1);
    env.server.enqueue({ type: "text", text: "openai rescued it" });
    tui.type("gpt-5-mini");
    tui.press("enter");
    await tui.waitForText("openai rescued it");
    expect(env.server.requests).toHaveLength(1);
    expect(env.server.requests[0]?.dialect).toBe("openai-chat");
  }, TEST_MS);

  test("zot login on a terminal asks for the key with echo off", async () => {
    const tui = await TuiPty.start({
      home: env.home,
      cwd: env.cwd,
      args: ["login", "openai"],
      readyWhen: (raw) => raw.includes("(input hidden)"),
    });
    tui.type("sk-typed-on-tty");
    tui.press("enter");
    expect(await tui.exitCode()).toBe(0);
    await tui.waitForText("logged in to openai");
    expect(rowsWith(tui.screen.all(), "sk-typed-on-tty")).toEqual([]);
    expect(readJson(authPath())).toEqual({ openai: { api_key: "sk-typed-on-tty" } });
  }, TEST_MS);
});

describe("the rescue offer", () => {
  test("after a 401 it offers other logged-in models; choosing one retries the same prompt there, once, without the launch key", async () => {
    writeModelsFile();
    env.server.enqueue(
      { type: "text", text: "first answer" },
      { type: "http_error", status: 401, errorType: "authentication_error", message: "invalid x-api-key" },
    );
    const tui = await startChat(env, { env: { OPENAI_API_KEY: "sk-openai-env" }, columns: 110, rows: 34 });
    await send(tui, "warm up");
    await tui.waitForText("first answer");
    await waitIdle(tui);
    await send(tui, "the prompt that fails");
    await tui.waitForText("http 401: authentication_error: invalid x-api-key");
    await tui.waitForText("authentication failed: retry with another model?", "screen");
    // The failed model is not offered again, nor its provider, whose only key was the launch --api-key.
    expect(rowsWith(tui.screen.screen(), /│.*anthropic\//)).toEqual([]);
    expect(rowsWith(tui.screen.screen(), /│.*openai\/gpt-5-mini/)).toHaveLength(1);
    env.server.enqueue({ type: "text", text: "the retried answer" });
    tui.type("openai/gpt-5-mini");
    tui.press("enter");
    await tui.waitForText("the retried answer");
    await waitIdle(tui);
    const retried = env.server.requests[2];
    expect(retried?.dialect).toBe("openai-chat");
    expect(retried?.headers.authorization).toBe("Bearer sk-openai-env");
    const users = requestMessages(retried).filter((message) => message.role === "user" && JSON.stringify(message.content).includes("the prompt that fails"));
    expect(users).toHaveLength(1);
    expect(requestTexts(retried)).toContain("first answer");
  }, TEST_MS);

  test("a rate limit offers it too; Esc declines; a 400 offers nothing", async () => {
    writeModelsFile();
    env.server.enqueue(
      { type: "http_error", status: 429, errorType: "rate_limit_error", message: "slow down", headers: { "x-should-retry": "false" } },
      { type: "http_error", status: 400, errorType: "invalid_request_error", message: "bad request" },
    );
    const tui = await startChat(env, { env: { OPENAI_API_KEY: "sk-openai-env" }, columns: 110, rows: 34 });
    await send(tui, "limited");
    await tui.waitForText("rate limited: retry with another model?", "screen");
    tui.press("escape");
    await tui.waitFor(() => rowsWith(tui.screen.screen(), "retry with another model").length === 0, "the offer to close");
    await waitIdle(tui);
    await send(tui, "malformed");
    await tui.waitForText("http 400: invalid_request_error: bad request");
    await waitIdle(tui);
    expect(rowsWith(tui.screen.screen(), "retry with another model")).toEqual([]);
    expect(env.server.requests).toHaveLength(2);
  }, TEST_MS);
});
