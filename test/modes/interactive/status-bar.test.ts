/** The status bar: busy activity with spinner and elapsed time, tokens, cost, context %, tags, widths, what gives way on narrow terminals. */
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
  test("every line fits the width, however narrow, whatever it carries", () => {
    const states: Partial<StatusState>[] = [
      {},
      { hint: "press Ctrl+C again to exit" },
      { busy: { since: 0, activity: "waiting for extension guard, audit" }, streamingTokens: 5_000, autoCompacting: true },
      { ...tagged, cwd: longCwd },
      { ...tagged, extensionsLoading: ["a-very-long-extension-name", "another", "third"], cwd: cjkCwd },
      { jailed: true, cwd: "/ルート" + "/長いディレクトリ名".repeat(6), home: undefined },
    ];
    for (const state of states) {
      for (let width = 1; width <= 130; width++) {
        const lines = render(state, width, 70_000);
        expect(lines).toHaveLength(2);
        for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
      }
    }
  });
});

const tagged: Partial<StatusState> = { jailed: true, noYolo: true, extensionsLoading: ["guard"], extensionsFailed: ["bad"] };
const longCwd = "/home/ann/src/clients/acme-corporation/monorepo/packages/web-frontend";
const cjkCwd = "/home/ann/プロジェクト/フロントエンド/アプリ";
const busy: Partial<StatusState> = { busy: { since: 5_000, activity: "waiting for the model" } };
/** Line `index` at each width, the busy spinner (one column, its frame follows the clock) left out. */
const at = (state: Partial<StatusState>, widths: readonly number[], index: 0 | 1): string[] =>
  widths.map((width) => {
    const line = render(state, width, 70_000)[index]!;
    expect(visibleWidth(line)).toBeLessThanOrEqual(width);
    return state.busy !== undefined && index === 0 ? line.replace(/^[⠀-⣿] /, "") : line;
  });

describe("status bar on narrow terminals: what gives way first", () => {
  test("idle: the key hints drop whole from the right, then tokens, then cost; the context % stays longest", () => {
    expect(at({}, [100, 60, 45, 40, 30, 20, 12, 5], 0)).toEqual([
      "/ commands · @ files · Ctrl+O tool output · ↑12.3k ↓678 · $0.0123 · ctx 10%",
      "/ commands · @ files · ↑12.3k ↓678 · $0.0123 · ctx 10%",
      "/ commands · ↑12.3k ↓678 · $0.0123 · ctx 10%",
      "↑12.3k ↓678 · $0.0123 · ctx 10%",
      "$0.0123 · ctx 10%",
      "$0.0123 · ctx 10%",
      "ctx 10%",
      "",
    ]);
  });

  test("busy: the activity and its elapsed time stay; the activity text is cut before the elapsed time", () => {
    expect(at(busy, [100, 50, 40, 30, 20, 12], 0)).toEqual([
      "waiting for the model 1m 05s · ↑12.3k ↓678 · $0.0123 · ctx 10%",
      "waiting for the model 1m 05s · $0.0123 · ctx 10%",
      "waiting for the model 1m 05s · ctx 10%",
      "waiting for the model 1m 05s",
      "waiting fo… 1m 05s",
      "wa… 1m 05s",
    ]);
    expect(render(busy, 12, 70_000)[0]).toMatch(/^[⠀-⣿] wa… 1m 05s$/);
  });

  test("a transient hint outranks the numbers; auto-compaction stays marked on the context", () => {
    expect(at({ hint: "press Ctrl+C again to exit" }, [60, 40, 30, 20], 0)).toEqual([
      "press Ctrl+C again to exit · ↑12.3k ↓678 · $0.0123 · ctx 10%",
      "press Ctrl+C again to exit · ctx 10%",
      "press Ctrl+C again to exit",
      "press Ctrl+C again …",
    ]);
    expect(at({ ...busy, autoCompacting: true }, [50], 0)).toEqual(["waiting for the model 1m 05s · ctx 10% (auto)"]);
  });

  test("line 2: tags stay; the cwd shortens to its last segments, then goes; then the model id is cut", () => {
    const state = { jailed: true, noYolo: true, extensionsFailed: ["bad"], cwd: longCwd };
    expect(at(state, [120, 100, 60, 40, 30, 20, 12], 1)).toEqual([
      "anthropic/claude-sonnet-4-5 · …/monorepo/packages/web-frontend · jailed · no-yolo · extension failed: bad",
      "anthropic/claude-sonnet-4-5 · …/packages/web-frontend · jailed · no-yolo · extension failed: bad",
      "anthropic/claude-sonne… · jailed · no-yolo · ext failed: bad",
      "jailed · no-yolo · ext failed: bad",
      "jailed · no-yolo · ext failed",
      "jailed · no-yolo",
      "jailed",
    ]);
  });

  test("line 2: extensions loading and failed both stay as long as they can", () => {
    expect(at({ ...tagged, cwd: longCwd }, [110, 90, 70, 56, 48, 44], 1)).toEqual([
      "anthropic/claude-sonnet-4-5 · …/web-frontend · jailed · no-yolo · ext loading: guard · ext failed: bad",
      "anthropic/claude-sonnet-4-5 · jailed · no-yolo · ext loading: guard · ext failed: bad",
      "anthropic/c… · jailed · no-yolo · ext loading: guard · ext failed: bad",
      "jailed · no-yolo · ext loading: guard · ext failed: bad",
      "anthropic/… · jailed · no-yolo · ext failed: bad",
      "jailed · no-yolo · ext failed: bad",
    ]);
  });

  test("as docs/interactive.md shows it: jailed, --no-yolo, idle, at 40 and 24 columns", () => {
    expect(render({ jailed: true, noYolo: true }, 40)).toEqual(["↑12.3k ↓678 · $0.0123 · ctx 10%", "anthropic/claude-son… · jailed · no-yolo"]);
    // The model id has fewer than 8 columns left and goes; the cwd takes the columns left over.
    expect(render({ jailed: true, noYolo: true }, 24)).toEqual(["$0.0123 · ctx 10%", "…/zot · jailed · no-yolo"]);
  });

  test("line 2: a CJK cwd is measured in columns and shortened by whole segments", () => {
    expect(at({ cwd: cjkCwd }, [100, 60, 40, 36, 20, 12], 1)).toEqual([
      "anthropic/claude-sonnet-4-5 · ~/プロジェクト/フロントエンド/アプリ",
      "anthropic/claude-sonnet-4-5 · …/フロントエンド/アプリ",
      "anthropic/claude-sonnet-4-5 · …/アプリ",
      "anthropic/claude-sonnet-4-5",
      "anthropic/claude-so…",
      "anthropic/c…",
    ]);
    expect(at({ cwd: cjkCwd, jailed: true }, [49], 1)).toEqual(["anthropic/claude-sonnet-4-5 · …/アプリ · jailed"]);
  });
});
