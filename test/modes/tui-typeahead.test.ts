/**
 * Typing ahead into a question that pops up by itself, end to end (dist/zot
 * in a real PTY): someone typing their next prompt while a --no-yolo
 * confirmation opens must not answer it with the letters they happen to
 * type (`a` = always allow this tool, `A` = allow every tool, `y`, a digit,
 * Enter). The keys of the burst are ignored; an answer after a pause counts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { toolResultsSent, type ModeEnv } from "./helpers.ts";
import { TEST_MS, rowsWith, startChat, waitBusy, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

describe("typing ahead into a question", () => {
  test("keys typed in a burst while the --no-yolo question opens do not answer it; a key after a pause does", async () => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    env.server.enqueue(
      { type: "tool_calls", text: "Checking.", calls: [{ name: "bash", arguments: { command: "echo ran > typed-ahead.txt" } }], holdUntil: held },
      { type: "text", text: "after the question" },
    );
    const tui = await startChat(env, { args: ["--no-yolo"] });
    tui.type("go");
    tui.press("enter");
    await waitBusy(tui);

    // The user types the next prompt, one key at a time (a key every 30 ms), while the tool call arrives.
    const typing = setInterval(() => tui.type("q"), 30);
    try {
      await tui.waitForText("qqq", "screen");
      release();
      await tui.waitForText("[y] allow once");
      // Still typing: letters that are answers, a digit and Enter, each right after a typed key.
      for (const key of ["A", "a", "y", "3", "\r"]) {
        tui.type(key);
        await Bun.sleep(30);
      }
    } finally {
      clearInterval(typing);
    }
    await tui.settle();
    expect(rowsWith(tui.screen.all(), /allowed/)).toEqual([]);
    expect(rowsWith(tui.screen.screen(), "[y] allow once").length).toBe(1);
    expect(existsSync(join(env.cwd, "typed-ahead.txt"))).toBe(false);

    // After a pause the answer counts (pressed again until it does: the pause must pass first).
    for (;;) {
      tui.type("n");
      const denied = await tui.waitForText("bash: denied", "all", 1_000).catch(() => undefined);
      if (denied !== undefined) break;
    }
    await tui.waitForText("after the question");
    await waitIdle(tui);
    expect(existsSync(join(env.cwd, "typed-ahead.txt"))).toBe(false);
    expect([...toolResultsSent(env.server.requests[1]).values()]).toContain("user declined");
  }, TEST_MS);
});
