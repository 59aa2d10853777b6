/**
 * The overlay widgets: TextInput, ListDialog, InputDialog, ChoiceDialog,
 * TextViewer. Keys in, lines and answers out; every render fits its width
 * and its row budget.
 */
import { describe, expect, test } from "bun:test";
import { visibleWidth } from "../../../src/tui/text.ts";
import { createTheme } from "../../../src/tui/theme.ts";
import type { Key } from "../../../src/tui/types.ts";
import { ChoiceDialog } from "../../../src/tui/widgets/choice-dialog.ts";
import { KeyClock, TYPEAHEAD_QUIET_MS } from "../../../src/tui/widgets/key-clock.ts";
import { InputDialog } from "../../../src/tui/widgets/input-dialog.ts";
import { ListDialog } from "../../../src/tui/widgets/list-dialog.ts";
import type { Overlay } from "../../../src/tui/widgets/overlay.ts";
import { TextInput } from "../../../src/tui/widgets/text-input.ts";
import { TextViewer } from "../../../src/tui/widgets/text-viewer.ts";

const theme = createTheme(false);
const key = (name: string, mods: { ctrl?: boolean; alt?: boolean } = {}): Key => ({ kind: "key", name, ctrl: mods.ctrl ?? false, alt: mods.alt ?? false, shift: false });
const text = (value: string): Key => ({ kind: "text", text: value });

function expectFits(overlay: Overlay, width: number, rows: number): void {
  const lines = overlay.render(width, rows);
  expect(lines.length).toBeLessThanOrEqual(Math.max(1, rows));
  for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
}

const models = [
  { value: "anthropic/claude-sonnet-4-5", label: "claude-sonnet-4-5", description: "anthropic · 200k" },
  { value: "anthropic/claude-haiku-4-5", label: "claude-haiku-4-5", description: "anthropic · 200k" },
  { value: "openai/gpt-5", label: "gpt-5", description: "openai · 400k" },
];

describe("TextInput", () => {
  test("edits at the caret; masked input never shows the value", () => {
    const input = new TextInput({ prompt: "key: ", masked: true });
    input.handle(text("sk-secret"));
    input.handle(key("left"));
    input.handle(key("backspace"));
    expect(input.value).toBe("sk-secrt");
    expect(input.render(40)).toBe("key: ••••••••");
    expect(input.cursor(40)).toBe(5 + 7);
    input.handle(key("w", { ctrl: true }));
    expect(input.value).toBe("t");
  });

  test("a long value scrolls to keep the caret visible within the width", () => {
    const input = new TextInput({ prompt: "› " });
    input.handle(text("x".repeat(100) + "END"));
    const line = input.render(20);
    expect(visibleWidth(line)).toBeLessThanOrEqual(20);
    expect(line.endsWith("END")).toBe(true);
    expect(input.cursor(20)).toBeLessThan(20);
  });

  test("pasted newlines and control sequences become plain text on one line", () => {
    const input = new TextInput();
    input.handle({ kind: "paste", text: "a\nb\x1b[2Jc" });
    expect(input.value).toBe("a bc");
  });
});

describe("ListDialog", () => {
  test("typing filters fuzzily, Enter chooses the selected item, Esc closes", () => {
    const chosen: string[] = [];
    const dialog = new ListDialog({ theme, title: "model", items: models, onChoose: (item) => void chosen.push(item?.value ?? "none") });
    expect(dialog.render(60, 20).join("\n")).toContain("claude-haiku-4-5");
    expect(dialog.handleKey(text("gpt"))).toBe("handled");
    expect(dialog.selected()?.value).toBe("openai/gpt-5");
    expect(dialog.render(60, 20).join("\n")).not.toContain("claude-haiku-4-5");
    expect(dialog.handleKey(key("enter"))).toBe("close");
    expect(chosen).toEqual(["openai/gpt-5"]);
    expect(dialog.handleKey(key("escape"))).toBe("close");
  });

  test("PgUp/PgDn move a page and stop at the ends (never wrap); Home/End go to the first and last", () => {
    const items = Array.from({ length: 11 }, (_, i) => ({ value: `s${i}`, label: `session ${i}` }));
    const dialog = new ListDialog({ theme, title: "sessions", items, onChoose: () => undefined });
    dialog.render(60, 8);
    for (let i = 0; i < 5; i++) dialog.handleKey(key("down"));
    expect(dialog.selected()?.value).toBe("s5");
    dialog.handleKey(key("pagedown"));
    expect(Number(dialog.selected()?.value.slice(1))).toBeGreaterThan(5);
    dialog.handleKey(key("pagedown"));
    dialog.handleKey(key("pagedown"));
    expect(dialog.selected()?.value).toBe("s10");
    dialog.handleKey(key("pageup"));
    expect(Number(dialog.selected()?.value.slice(1))).toBeLessThan(10);
    dialog.handleKey(key("home"));
    expect(dialog.selected()?.value).toBe("s0");
    dialog.handleKey(key("pageup"));
    expect(dialog.selected()?.value).toBe("s0");
    dialog.handleKey(key("end"));
    expect(dialog.selected()?.value).toBe("s10");
    // A list shorter than a page: PgDn reaches its end (it used to wrap back to where it was).
    const short = new ListDialog({ theme, title: "few", items: items.slice(0, 5), onChoose: () => undefined });
    short.handleKey(key("pagedown"));
    expect(short.selected()?.value).toBe("s4");
  });

  test("without a filter, letter keys act on the selected item and may keep it open", () => {
    const acted: string[] = [];
    const dialog = new ListDialog({
      theme,
      title: "sessions",
      items: models,
      filter: false,
      onChoose: () => "close",
      keys: { d: (item) => (acted.push(`delete ${item?.value}`), "handled") },
    });
    dialog.handleKey(key("down"));
    expect(dialog.handleKey(text("d"))).toBe("handled");
    expect(acted).toEqual(["delete anthropic/claude-haiku-4-5"]);
    expect(dialog.handleKey(text("z"))).toBe("handled");
    expect(dialog.handleKey(key("c", { ctrl: true }))).toBe("pass");
  });

  test("setItems keeps the selection on the same value; initial selects an item", () => {
    const dialog = new ListDialog({ theme, title: "t", items: models, initial: "openai/gpt-5", onChoose: () => undefined });
    expect(dialog.selected()?.value).toBe("openai/gpt-5");
    dialog.setItems([models[2]!, models[0]!]);
    expect(dialog.selected()?.value).toBe("openai/gpt-5");
  });

  test("fits any width and a short row budget", () => {
    const many = Array.from({ length: 200 }, (_, i) => ({ value: String(i), label: `item ${i} ${"日本語".repeat(i % 7)}`, description: "d".repeat(i) }));
    const dialog = new ListDialog({ theme, title: "many", items: many, hint: "Enter picks", onChoose: () => undefined });
    for (const width of [1, 3, 10, 40, 200]) for (const rows of [1, 3, 5, 30]) expectFits(dialog, width, rows);
  });
});

describe("InputDialog", () => {
  test("Enter submits the value; a refused value keeps it open with the error shown", () => {
    const dialog = new InputDialog({
      theme,
      title: "API key for anthropic",
      masked: true,
      onSubmit: (value) => {
        if (value.length < 4) {
          dialog.setError("too short");
          return "handled";
        }
        return "close";
      },
    });
    dialog.handleKey(text("abc"));
    expect(dialog.handleKey(key("enter"))).toBe("handled");
    const shown = dialog.render(50, 20).join("\n");
    expect(shown).toContain("too short");
    expect(shown).not.toContain("abc");
    dialog.handleKey(text("d"));
    expect(dialog.handleKey(key("enter"))).toBe("close");
    expect(dialog.value).toBe("abcd");
  });

  test("the caret is on the input row, also when explanation rows are dropped for room", () => {
    const dialog = new InputDialog({ theme, title: "name", lines: Array.from({ length: 10 }, (_, i) => `line ${i}`), onSubmit: () => undefined });
    dialog.handleKey(text("hello"));
    const lines = dialog.render(40, 6);
    expect(lines.length).toBeLessThanOrEqual(6);
    const caret = dialog.cursor(40);
    expect(lines[caret.row]).toContain("hello");
  });
});

describe("ChoiceDialog", () => {
  test("answer keys are exact, Esc answers with the escape value, other typing is swallowed", () => {
    const answers: string[] = [];
    const choices = [
      { key: "y", label: "allow once", value: "once" },
      { key: "a", label: "always this tool", value: "tool" },
      { key: "A", label: "always all", value: "all" },
      { key: "n", label: "deny", value: "deny" },
    ];
    const dialog = new ChoiceDialog({ theme, title: "bash", lines: ["npm test"], choices, escape: "cancel", onChoose: (value) => void answers.push(value) });
    expect(dialog.handleKey(text("x"))).toBe("handled");
    expect(dialog.handleKey({ kind: "paste", text: "y" })).toBe("handled");
    expect(dialog.handleKey(text("A"))).toBe("close");
    expect(dialog.handleKey(key("escape"))).toBe("close");
    expect(dialog.handleKey(key("right"))).toBe("handled");
    expect(dialog.handleKey(key("enter"))).toBe("close");
    // ↓ / ↑ move the highlight too (the original's confirm dialog keys).
    expect(dialog.handleKey(key("down"))).toBe("handled");
    expect(dialog.handleKey(key("down"))).toBe("handled");
    expect(dialog.handleKey(key("up"))).toBe("handled");
    expect(dialog.handleKey(key("enter"))).toBe("close");
    expect(answers).toEqual(["all", "cancel", "tool", "all"]);
    expect(dialog.render(60, 10).join("\n")).toContain("[y] allow once");
    for (const width of [1, 8, 30]) expectFits(dialog, width, 3);
  });

  test("short of rows it keeps what is asked before the rest of the answers; neededRows is the whole box", () => {
    const choices = [
      { key: "y", label: "allow once", value: "once" },
      { key: "a", label: "always this tool", value: "tool" },
      { key: "A", label: "always all", value: "all" },
      { key: "n", label: "deny", value: "deny" },
    ];
    const dialog = new ChoiceDialog({ theme, title: "allow?", lines: ["bash  rm -rf build"], choices, onChoose: () => {} });
    // At 30 columns the answers take three rows: the box is six.
    expect(dialog.neededRows(30)).toBe(6);
    expect(dialog.render(30, 6).length).toBe(6);
    const short = dialog.render(30, 5);
    expect(short.length).toBe(5);
    expect(short[1]).toContain("rm -rf build");
    expect(short[2]).toContain("[y] allow once");
    expect(short.at(-1)).toContain("╰");
    for (const rows of [1, 2, 3, 4]) expectFits(dialog, 30, rows);
    expect(dialog.render(30, 3)[1]).toContain("rm -rf build");
  });
});

describe("ChoiceDialog with a key clock (typing ahead)", () => {
  test("an answer right after a typed key is ignored; after a pause, Enter, a paste or Esc it counts", () => {
    let now = 1_000;
    const clock = new KeyClock(() => now);
    const chosen: string[] = [];
    const dialog = (): ChoiceDialog =>
      new ChoiceDialog({ theme, title: "allow?", choices: [{ key: "y", label: "yes", value: "yes" }, { key: "n", label: "no", value: "no" }], escape: "cancel", typeahead: clock, onChoose: (value) => chosen.push(value) });
    const press = (target: ChoiceDialog, input: Key, after: number): string => {
      now += after;
      clock.keyArrived(input);
      return target.handleKey(input);
    };
    const open = dialog();
    // The first key ever counts (nothing was typed before it).
    expect(press(open, text("y"), 0)).toBe("close");
    const typing = dialog();
    press(typing, text("q"), 1_000);
    expect(press(typing, text("y"), 50)).toBe("handled");
    expect(press(typing, key("enter"), TYPEAHEAD_QUIET_MS - 1)).toBe("handled");
    // Enter is not typing: the next answer counts even right after it.
    expect(press(typing, text("n"), 10)).toBe("close");
    const paused = dialog();
    press(paused, key("backspace"), 1_000);
    expect(press(paused, text("y"), TYPEAHEAD_QUIET_MS)).toBe("close");
    const escaped = dialog();
    press(escaped, text("q"), 1_000);
    expect(press(escaped, key("escape"), 1)).toBe("close");
    expect(chosen).toEqual(["yes", "no", "yes", "cancel"]);
  });
});

describe("TextViewer typing", () => {
  test("typing is swallowed unless typingCloses, which closes and passes it on (q still just closes)", () => {
    const plain = new TextViewer({ theme, title: "skill", lines: ["body"] });
    expect(plain.handleKey(text("x"))).toBe("handled");
    const help = new TextViewer({ theme, title: "help", lines: ["/help"], typingCloses: true });
    expect(help.handleKey(text("x"))).toBe("close-pass");
    expect(help.handleKey({ kind: "paste", text: "pasted" })).toBe("close-pass");
    expect(help.handleKey(text("q"))).toBe("close");
    expect(help.handleKey(key("down"))).toBe("handled");
  });
});

describe("TextViewer", () => {
  test("scrolls within its rows and follows growing text while at the end", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `row ${i}`);
    const viewer = new TextViewer({ theme, title: "output", lines, atEnd: true, closeKeys: ["ctrl+o"] });
    const first = viewer.render(40, 10);
    expect(first.length).toBeLessThanOrEqual(10);
    expect(first.join("\n")).toContain("row 99");
    viewer.setLines([...lines, "row 100"]);
    expect(viewer.render(40, 10).join("\n")).toContain("row 100");
    viewer.handleKey(key("home"));
    expect(viewer.render(40, 10).join("\n")).toContain("row 0");
    viewer.setLines([...lines, "row 100", "row 101"]);
    expect(viewer.render(40, 10).join("\n")).not.toContain("row 101");
    expect(viewer.handleKey(key("o", { ctrl: true }))).toBe("close");
    expect(viewer.handleKey(text("q"))).toBe("close");
    for (const width of [1, 5, 80]) expectFits(viewer, width, 4);
  });
});
