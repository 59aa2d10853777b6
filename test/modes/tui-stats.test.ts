/**
 * ZOT_TUI_STATS=<file>: at exit the interactive mode writes what its
 * renderer did (the benchmark reads it): frames and bytes that agree with
 * what reached the terminal, no clears, one timing per frame, a private file.
 * Without the variable no file appears.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { type ModeEnv } from "./helpers.ts";
import { TEST_MS, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

interface Stats {
  readonly frames: number;
  readonly bytes: number;
  readonly screenClears: number;
  readonly renderMs: number;
  readonly frameMs: readonly number[];
}

describe("ZOT_TUI_STATS", () => {
  test("the renderer's figures are written at exit and match the terminal's bytes", async () => {
    const file = join(env.home, "tui-stats.json");
    env.server.enqueue({ type: "text", text: "one two three four five six seven", chunks: 7, delayMs: 20 });
    const tui = await startChat(env, { env: { ZOT_TUI_STATS: file } });
    await waitIdle(tui, "the editor");
    tui.type("hello\r");
    await tui.waitFor(() => tui.screen.all().some((row) => row.includes("seven")), "the answer");
    await waitIdle(tui);
    tui.type("/exit\r");
    expect(await tui.exitCode()).toBe(0);
    const stats = JSON.parse(readFileSync(file, "utf8")) as Stats;
    expect(stats.frames).toBeGreaterThan(3);
    expect(stats.screenClears).toBe(0);
    expect(stats.frameMs.length).toBeGreaterThan(3);
    expect(stats.frameMs.length).toBeLessThanOrEqual(stats.frames);
    expect(stats.renderMs).toBeGreaterThan(0);
    // Every renderer byte reached the terminal (which also got the mode switches around them).
    expect(stats.bytes).toBeGreaterThan(0);
    expect(stats.bytes).toBeLessThanOrEqual(tui.counts().bytes);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  }, TEST_MS);

  test("without the variable nothing is written", async () => {
    const tui = await startChat(env);
    await waitIdle(tui, "the editor");
    tui.type("/exit\r");
    expect(await tui.exitCode()).toBe(0);
    expect(readdirSync(env.home).filter((name) => name.includes("stats"))).toEqual([]);
    expect(existsSync(join(env.cwd, "tui-stats.json"))).toBe(false);
  }, TEST_MS);
});
