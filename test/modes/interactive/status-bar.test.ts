/** The status bar: busy activity with spinner and elapsed time, tokens, cost, context %, tags, widths. */
import { describe, expect, test } from "bun:test";
import { createTheme, visibleWidth } from "../../../src/tui/index.ts";
import { contextPercent, formatTokens, renderStatusBar, shortCwd, type StatusState } from "../../../src/modes/interactive/status-bar.ts";

const base: StatusState = {
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  cwd: "/home/ann/src/zot",
  home: "/home/ann",
  inputTokens: 12_345,
  outputTokens: 678,
  streamingTokens: 0,
  costUsd: 0.0123,
  contextTokens: 20_000,
  contextWindow: 200_000,
  autoCompacting: false,
  jailed: false,
  noYolo: false,
  extensionsLoading: [],
  extensionsFailed: [],
};
const theme = createTheme(false);
const render = (state: Partial<StatusState>, width = 120, now = 10_000) => renderStatusBar({ ...base, ...state }, width, now, theme);

describe("status bar", () => {
  test("idle: key hints, tokens, cost and context %; model, short cwd", () => {
    const [first, second] = render({});
    expect(first).toContain("↑12.3k ↓678 · $0.0123 · ctx 10%");
    expect(second).toBe("anthropic/claude-sonnet-4-5 · ~/src/zot");
  });

  test("busy: spinner, activity and elapsed; the streaming output estimate is marked", () => {
    const [first] = render({ busy: { since: 5_000, activity: "running bash" }, streamingTokens: 400 }, 120, 70_000);
    expect(first).toMatch(/^[⠀-⣿] running bash 1m 05s · ↑12.3k ↓~1.1k/);
  });

  test("tags: jailed, no-yolo, extensions loading and failed; auto-compaction marks the context", () => {
    const [first, second] = render({ jailed: true, noYolo: true, extensionsLoading: ["a", "b", "c"], extensionsFailed: ["bad"], autoCompacting: true });
    expect(first).toContain("ctx 10% (auto)");
    expect(second).toContain("jailed · no-yolo · extensions loading: a, b +1 · extension failed: bad");
  });

  test("every line fits the width, however narrow", () => {
    for (const width of [1, 5, 20, 39, 80]) {
      for (const line of render({ busy: { since: 0, activity: "waiting for the model" }, jailed: true }, width)) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
    }
  });

  test("numbers and paths are short", () => {
    expect([formatTokens(999), formatTokens(1_234), formatTokens(123_456), formatTokens(2_500_000)]).toEqual(["999", "1.2k", "123k", "2.5M"]);
    expect(shortCwd("/home/ann", "/home/ann")).toBe("~");
    expect(shortCwd("/srv/a/very/long/path/to/the/project/root/dir", undefined, 20)).toBe("…/project/root/dir");
    expect(contextPercent(undefined, 100)).toBeUndefined();
    expect(contextPercent(50, 0)).toBeUndefined();
    expect(contextPercent(150_000, 200_000)).toBe(75);
  });
});
