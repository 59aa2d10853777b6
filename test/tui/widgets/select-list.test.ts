import { describe, expect, test } from "bun:test";
import { visibleWidth } from "../../../src/tui/text.ts";
import { createTheme } from "../../../src/tui/theme.ts";
import { SelectList } from "../../../src/tui/widgets/select-list.ts";

const theme = createTheme(false);
const items = [
  { value: "/help", label: "/help", description: "commands and keys", group: "built-in" },
  { value: "/model", label: "/model", description: "switch model", group: "built-in" },
  { value: "/deploy", label: "/deploy", description: "ship it", group: "extensions" },
  { value: "/lint", label: "/lint", group: "extensions" },
];

describe("SelectList", () => {
  test("label and description, the selection marked, a divider where the group changes", () => {
    const list = new SelectList({ theme });
    list.setItems(items);
    expect(list.render(40)).toEqual([
      "── built-in ────────────────────────────",
      "› /help  commands and keys",
      "  /model  switch model",
      "── extensions ──────────────────────────",
      "  /deploy  ship it",
      "  /lint",
    ]);
    expect(list.selected()?.value).toBe("/help");
  });

  test("move wraps and keeps the selection visible", () => {
    const list = new SelectList({ theme, maxVisible: 2 });
    list.setItems(items);
    list.move(-1);
    expect(list.selected()?.value).toBe("/lint");
    expect(list.render(40)).toEqual(["── extensions ──────────────────────────", "  /deploy  ship it", "› /lint"]);
    list.move(1);
    expect(list.selected()?.value).toBe("/help");
    expect(list.render(40)[1]).toBe("› /help  commands and keys");
  });

  test("no matches; no divider when there is only one group; cached render", () => {
    const list = new SelectList({ theme });
    list.setItems([]);
    expect(list.render(20)).toEqual(["  no matches"]);
    expect(list.selected()).toBeUndefined();
    list.setItems([{ value: "a", label: "a", group: "g" }]);
    expect(list.render(20)).toEqual(["› a"]);
    expect(list.render(20)).toBe(list.render(20));
  });

  test("every row fits every width, coloured, with hostile labels", () => {
    const list = new SelectList({ theme: createTheme(true) });
    list.setItems([
      { value: "1", label: "日本語のラベル👨‍👩‍👧‍👦\x1b[2Jx", description: "a\nb\x1b]0;t\x07 " + "d".repeat(200), group: "ｗｉｄｅ" },
      { value: "2", label: "x".repeat(300), group: "other" },
    ]);
    for (let width = 1; width <= 200; width++) for (const row of list.render(width)) expect(visibleWidth(row)).toBeLessThanOrEqual(width);
    expect(list.render(80).join("")).not.toContain("\x1b[2J");
  });
});
