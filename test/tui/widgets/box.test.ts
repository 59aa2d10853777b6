import { describe, expect, test } from "bun:test";
import { visibleWidth } from "../../../src/tui/text.ts";
import { createTheme } from "../../../src/tui/theme.ts";
import { box } from "../../../src/tui/widgets/box.ts";
import { ScrollView } from "../../../src/tui/widgets/scroll-view.ts";
import { formatElapsed, spinnerFrame } from "../../../src/tui/widgets/spinner.ts";

const plain = createTheme(false);
const colour = createTheme(true);

describe("box", () => {
  test("title left, titleRight right, body framed, every row exactly the width", () => {
    expect(box({ theme: plain, title: "bash npm test", titleRight: "4s", body: ["ok", "done"], width: 24 })).toEqual([
      "╭─ bash npm test ─ 4s ─╮",
      "│ ok                   │",
      "│ done                 │",
      "╰──────────────────────╯",
    ]);
  });

  test("fits every width with hostile content and every tone", () => {
    for (const tone of ["normal", "running", "success", "error", "warning"] as const) {
      for (let width = 1; width <= 120; width++) {
        const rows = box({ theme: colour, title: "日本語 title\x1b[2J", titleRight: "👍🏽 1m 05s", body: ["x".repeat(200), "a\tb\nc", "ｗｉｄｅ".repeat(20)], width, tone });
        for (const row of rows) expect(visibleWidth(row)).toBeLessThanOrEqual(width);
        if (width >= 5) for (const row of rows) expect(visibleWidth(row)).toBe(width);
        expect(rows.join("")).not.toContain("\x1b[2J");
      }
    }
  });
});

describe("ScrollView", () => {
  test("title with the range, the window, the hint; scroll, page, top, bottom clamp", () => {
    const view = new ScrollView({ theme: plain, title: "bash output", height: 3 });
    view.setLines(Array.from({ length: 10 }, (_, i) => `line ${i + 1}`));
    expect(view.render(60)).toEqual(["bash output  lines 1–3 of 10", "line 1", "line 2", "line 3", "↑/↓ scroll · PgUp/PgDn page · Home/End · Esc close"]);
    view.scroll(1);
    expect(view.render(60)[1]).toBe("line 2");
    view.page(1);
    expect(view.render(60)[0]).toBe("bash output  lines 4–6 of 10");
    view.toBottom();
    expect(view.render(60).slice(1, 4)).toEqual(["line 8", "line 9", "line 10"]);
    view.scroll(5);
    expect(view.offset).toBe(7);
    view.toTop();
    view.scroll(-3);
    expect(view.offset).toBe(0);
    expect(view.render(60)).toBe(view.render(60));
    for (let width = 1; width <= 100; width++) for (const row of view.render(width)) expect(visibleWidth(row)).toBeLessThanOrEqual(width);
  });
});

describe("spinner and elapsed time", () => {
  test("frames change every 100 ms and cycle", () => {
    expect(spinnerFrame(0)).toBe(spinnerFrame(99));
    expect(spinnerFrame(0)).not.toBe(spinnerFrame(100));
    expect(spinnerFrame(0)).toBe(spinnerFrame(1000));
    expect(spinnerFrame(-5)).toBe(spinnerFrame(0));
  });

  test("formatElapsed", () => {
    expect(formatElapsed(4_200)).toBe("4s");
    expect(formatElapsed(65_000)).toBe("1m 05s");
    expect(formatElapsed(3_720_000)).toBe("1h 02m");
    expect(formatElapsed(-1)).toBe("0s");
    expect(formatElapsed(Number.NaN)).toBe("0s");
    expect([1_949, 1_950, 400, 9_949, 9_950, 12_345, 65_000].map((ms) => formatElapsed(ms, { tenths: true }))).toEqual(["1.9s", "2.0s", "0.4s", "9.9s", "10s", "12s", "1m 05s"]);
  });
});

describe("theme", () => {
  test("colors=false is plain text; colors=true wraps in SGR", () => {
    expect(plain.error("x")).toBe("x");
    expect(plain.colors).toBe(false);
    expect(colour.error("x")).toBe("\x1b[31mx\x1b[39m");
    expect(colour.dim("")).toBe("");
  });
});
