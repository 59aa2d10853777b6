/**
 * The panel mechanisms without a terminal: the panel_key frames a key
 * becomes, the scrolling window (fuzzed: never more rows than it has, every
 * line reachable), following a small change, the box's width, and
 * PanelHost's rules (one at a time, a pending call's panel waiting and never
 * displaced, dismissal, a call's end) on a real InteractiveCalls.
 */
import { describe, expect, test } from "bun:test";
import { InteractiveCalls } from "../../../src/ext/interactive-calls.ts";
import { PanelHost, type PanelFrame } from "../../../src/modes/interactive/panel-host.ts";
import {
  MAX_KEYS_PER_INPUT, type OpenPanel, offsetShowing, panelBox, panelKeys, panelWindow, replaceLines, scrollKey,
} from "../../../src/modes/interactive/panel.ts";
import { createTheme, type Key } from "../../../src/tui/index.ts";

const named = (name: string, mods: Partial<{ ctrl: boolean; alt: boolean; shift: boolean }> = {}): Key => ({
  kind: "key", name, ctrl: mods.ctrl ?? false, alt: mods.alt ?? false, shift: mods.shift ?? false,
});

function panel(lines: readonly string[], rows = 5): OpenPanel {
  return { extension: "e", id: "p", title: "T", lines, footer: "", offset: 0, rows };
}

describe("panelKeys", () => {
  test("names, runes per grapheme in order, unknown for modified keys", () => {
    expect(panelKeys(named("up")).keys).toEqual([{ key: "up" }]);
    expect(panelKeys(named("tab", { shift: true })).keys).toEqual([{ key: "tab" }]);
    expect(panelKeys(named("space")).keys).toEqual([{ key: "rune", text: " " }]);
    expect(panelKeys(named("x", { ctrl: true })).keys).toEqual([{ key: "unknown" }]);
    expect(panelKeys(named("f5")).keys).toEqual([{ key: "unknown" }]);
    expect(panelKeys({ kind: "text", text: "ab👩‍👩‍👧é" }).keys.map((k) => k.text)).toEqual(["a", "b", "👩‍👩‍👧", "é"]);
  });

  test("a paste is typed (newline enter, tab tab, other controls dropped); one input is capped", () => {
    expect(panelKeys({ kind: "paste", text: "a\tb\nc\x1b[2J\x07" }).keys).toEqual([
      { key: "rune", text: "a" }, { key: "tab" }, { key: "rune", text: "b" }, { key: "enter" }, { key: "rune", text: "c" },
      { key: "rune", text: "[" }, { key: "rune", text: "2" }, { key: "rune", text: "J" },
    ]);
    const big = panelKeys({ kind: "paste", text: "x".repeat(MAX_KEYS_PER_INPUT + 10) });
    expect(big.keys).toHaveLength(MAX_KEYS_PER_INPUT);
    expect(big.dropped).toBe(10);
  });

  test("Shift+↑/↓/PgUp/PgDn are the host's scroll keys", () => {
    expect(scrollKey(named("up", { shift: true }), 10)).toBe(-1);
    expect(scrollKey(named("pagedown", { shift: true }), 10)).toBe(9);
    expect(scrollKey(named("up"), 10)).toBeUndefined();
    expect(scrollKey({ kind: "text", text: "K" }, 10)).toBeUndefined();
  });
});

describe("panelWindow", () => {
  test("fuzz: never more rows than given, at least one line, every line reachable by offsetShowing", () => {
    for (let total = 0; total <= 30; total++) {
      for (let rows = 1; rows <= 12; rows++) {
        for (let offset = -2; offset <= total + 2; offset++) {
          const view = panelWindow(total, rows, offset);
          const used = view.end - view.start + (view.above > 0 && rows > 2 ? 1 : 0) + (view.below > 0 && rows > 2 ? 1 : 0);
          expect(used).toBeLessThanOrEqual(rows);
          expect(view.above).toBe(view.start);
          expect(view.below).toBe(total - view.end);
          if (total > 0) expect(view.end).toBeGreaterThan(view.start);
        }
        for (let line = 0; line < total; line++) {
          const start = offsetShowing(total, rows, 0, line);
          const view = panelWindow(total, rows, start);
          expect(line >= view.start && line < view.end).toBe(true);
        }
      }
    }
  });

  test("the view follows a moved selection below it, and not a bulk change", () => {
    const lines = Array.from({ length: 20 }, (_, i) => `${i === 0 ? ">" : " "} ${i}`);
    const p = panel(lines, 5);
    const moved = lines.map((line, i) => (i === 0 ? "  0" : i === 7 ? "> 7" : line));
    replaceLines(p, moved);
    const view = panelWindow(20, 5, p.offset);
    expect(7 >= view.start && 7 < view.end).toBe(true);
    const at = p.offset;
    replaceLines(p, moved.map((line) => `${line}!`));
    expect(p.offset).toBe(at);
  });

  test("the box is exactly the width and at most maxRows rows", () => {
    const p = panel(Array.from({ length: 100 }, (_, i) => `line ${i} ${"w".repeat(i)}`));
    p.footer = "footer";
    const rows = panelBox(p, 30, 8, createTheme(false));
    expect(rows).toHaveLength(8);
    for (const row of rows) expect(Bun.stringWidth(row)).toBe(30);
    expect(rows[1]).toContain("line 0");
    expect(rows[6]).toContain("footer");
    expect(rows[5]).toContain("↓ 96 more");
  });
});

describe("PanelHost", () => {
  function host(calls = new InteractiveCalls()) {
    const sent: [string, PanelFrame][] = [];
    const panels = new PanelHost({ send: (extension, frame) => (sent.push([extension, frame]), true), calls: () => calls, frame: () => {}, hint: () => {} });
    calls.endListeners.add((call, end) => panels.callEnded(call, end));
    return { panels, sent, calls };
  }
  const content = (extension: string, id: string) => ({ extension, id, title: id, lines: [id], footer: "" });

  test("an unknown panel_id opens nothing unless its extension has an interactive call pending", () => {
    const { panels, calls } = host();
    panels.render("a", { panel_id: "q", lines: ["?"] });
    expect(panels.current).toBeUndefined();
    calls.begin("t1", "a", "ask");
    panels.render("b", { panel_id: "q", lines: ["?"] });
    expect(panels.current).toBeUndefined();
    panels.render("a", { panel_id: "q", lines: ["?"] });
    expect(panels.current?.callId).toBe("t1");
    expect(panels.current?.title).toBe("a");
  });

  test("a newer command panel replaces the open one (panel_close); the same id updates it in place", () => {
    const { panels, sent } = host();
    panels.open(content("a", "p1"));
    panels.open({ ...content("a", "p1"), lines: ["again"] });
    expect(sent).toEqual([]);
    expect(panels.current?.lines).toEqual(["again"]);
    panels.open(content("b", "p2"));
    expect(sent).toEqual([["a", { type: "panel_close", panel_id: "p1" }]]);
    expect(panels.current?.id).toBe("p2");
  });

  test("a pending call's panel is never displaced: later panels wait, oldest first; dismissal cancels the call, then closes the panel", () => {
    const { panels, sent, calls } = host();
    const first = calls.begin("t1", "a", "ask");
    calls.begin("t2", "b", "pick");
    panels.render("a", { panel_id: "q1", lines: ["1"] });
    panels.render("b", { panel_id: "q2", lines: ["2"] });
    panels.open(content("c", "cmd"));
    expect(panels.current?.id).toBe("q1");
    // A waiting panel takes its renders.
    panels.render("b", { panel_id: "q2", lines: ["2b"] });
    expect(panels.dismiss()).toBe(true);
    expect(first.signal.aborted).toBe(true);
    // panel_close waits for the call to end (its tool_cancel goes first).
    expect(sent).toEqual([]);
    calls.end("t1", "abandoned");
    expect(sent).toEqual([["a", { type: "panel_close", panel_id: "q1" }]]);
    expect(panels.current?.id).toBe("q2");
    expect(panels.current?.lines).toEqual(["2b"]);
    // The call is answered: its panel closes without a frame; the command's panel comes next.
    calls.end("t2", "answered");
    expect(panels.current?.id).toBe("cmd");
    expect(sent).toHaveLength(1);
  });

  test("a call abandoned another way closes its panel with panel_close; an extension that stops loses its panels", () => {
    const { panels, sent, calls } = host();
    calls.begin("t1", "a", "ask");
    panels.render("a", { panel_id: "q1", lines: ["1"] });
    calls.end("t1", "abandoned");
    expect(panels.current).toBeUndefined();
    expect(sent).toEqual([["a", { type: "panel_close", panel_id: "q1" }]]);
    panels.open(content("a", "p"));
    panels.extensionGone("a");
    expect(panels.current).toBeUndefined();
    expect(sent).toHaveLength(1);
  });

  test("keys go out in order; a send that fails drops the panel", () => {
    let alive = true;
    const sent: PanelFrame[] = [];
    const panels = new PanelHost({ send: (_e, frame) => (alive ? (sent.push(frame), true) : false), calls: () => undefined, frame: () => {}, hint: () => {} });
    panels.open(content("a", "p"));
    panels.handleKey({ kind: "text", text: "xyz" });
    expect(sent.map((frame) => (frame.type === "panel_key" ? frame.text : ""))).toEqual(["x", "y", "z"]);
    alive = false;
    panels.handleKey(named("down"));
    expect(panels.current).toBeUndefined();
  });
});
