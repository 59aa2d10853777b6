/**
 * kimi on the chat screen (dist/zot in a real PTY against the stand-in
 * server): the first-run login dialog lists kimi; the masked key goes to
 * auth.json's kimi entry (0600) and the run moves to kimi-for-coding, whose
 * requests carry the key. kimi-for-coding reaches the stand-in server through
 * a models.json `baseUrl` under the original's `kimi-code` alias.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TuiPty } from "../support/tui-pty.ts";
import type { ModeEnv } from "./helpers.ts";
import { TEST_MS, rowsWith, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

describe("/login kimi", () => {
  test("the first-run login dialog offers kimi; its key goes to auth.json and the run switches to kimi-for-coding", async () => {
    writeFileSync(join(env.home, "models.json"), JSON.stringify({ providers: { "kimi-code": { models: [{ id: "kimi-for-coding", baseUrl: env.server.openaiBaseUrl }] } } }));
    const tui = await TuiPty.start({ home: env.home, cwd: env.cwd, args: [], env: {}, columns: 160, rows: 34 });
    await tui.waitForText("no API key found: pick a provider to log in", "screen");
    await tui.waitForText(/kimi\s+not logged in/, "screen");
    tui.press("down", "down", "enter");
    await tui.waitForText("API key for kimi", "screen");
    await tui.waitForText("KIMI_API_KEY or MOONSHOT_API_KEY, when set, still comes first", "screen");
    tui.type("sk-kimi-typed");
    tui.press("enter");
    await tui.waitForText("logged in to kimi");
    const authPath = join(env.home, "auth.json");
    expect(JSON.parse(readFileSync(authPath, "utf8"))).toEqual({ kimi: { api_key: "sk-kimi-typed" } });
    expect(statSync(authPath).mode & 0o777).toBe(0o600);

    env.server.enqueue({ type: "text", text: "kimi answer" });
    tui.type("hello");
    tui.press("enter");
    await tui.waitForText("kimi answer");
    expect(env.server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(env.server.requests[0]?.headers.authorization).toBe("Bearer sk-kimi-typed");
    expect((env.server.requests[0]?.body as { model?: string }).model).toBe("kimi-for-coding");
    expect(rowsWith(tui.screen.all(), "sk-kimi-typed")).toEqual([]);
  }, TEST_MS);
});
