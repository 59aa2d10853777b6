/** The slash popup and the @ file picker on the real Editor: grouping, filtering, completion, Esc, directories, chips. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTheme, Editor, type Key } from "../../../src/tui/index.ts";
import { FileIndex } from "../../../src/modes/interactive/file-index.ts";
import { Popup, type CommandEntry } from "../../../src/modes/interactive/popup.ts";
import { removeTempDirs, tempDir } from "../../support/temp.ts";

afterAll(removeTempDirs);

const theme = createTheme(false);
const key = (name: string, mods: Partial<{ ctrl: boolean; alt: boolean; shift: boolean }> = {}): Key => ({ kind: "key", name, ctrl: false, alt: false, shift: false, ...mods });
const COMMANDS: CommandEntry[] = [
  { name: "help", description: "commands and keys" },
  { name: "model", description: "switch model" },
  { name: "exit", description: "quit" },
  { name: "zeta", description: "last by name", extension: "ext-b" },
  { name: "hello", description: "say hello", extension: "ext-a" },
];

function setup(cwd = "/nonexistent") {
  const editor = new Editor({ theme });
  const index = new FileIndex(cwd);
  const popup = new Popup({ theme, editor, commands: () => COMMANDS, files: () => index });
  const type = (text: string): void => {
    editor.handle({ kind: "text", text });
    popup.update();
  };
  const shown = (): string => popup.list.render(60).join("\n");
  return { editor, index, popup, type, shown };
}

describe("a recalled prompt", () => {
  test("recalled() keeps the popup shut for a /command the history put in the draft, until it is edited", () => {
    const { editor, popup, type } = setup();
    editor.setText("/exit");
    popup.recalled();
    expect(popup.open).toBe(false);
    // ↑/↓ are not the popup's: they go on walking the history.
    expect(popup.handle(key("up"))).toBe("pass");
    popup.update();
    expect(popup.open).toBe(false);
    type(" ");
    expect(popup.open).toBe(false);
    editor.setText("/he");
    popup.update();
    expect(popup.open).toBe(true);
  });
});

describe("slash popup", () => {
  test("built-ins first, then extension commands under a divider, sorted, with descriptions; filtered as you type", () => {
    const { popup, type, shown } = setup();
    type("/");
    expect(popup.open).toBe(true);
    const rows = shown();
    expect(rows.indexOf("/help")).toBeLessThan(rows.indexOf("/exit"));
    expect(rows.indexOf("/exit")).toBeLessThan(rows.indexOf("extensions"));
    expect(rows.indexOf("extensions")).toBeLessThan(rows.indexOf("/hello"));
    expect(rows.indexOf("/hello")).toBeLessThan(rows.indexOf("/zeta"));
    expect(rows).toContain("say hello [ext-a]");
    type("he");
    expect(popup.list.selected()?.value).toBe("help");
    expect(shown()).not.toContain("/model");
  });

  test("↑/↓ select, Tab completes the name; Enter on a whole name submits; Esc closes until the word changes", () => {
    const { editor, popup, type } = setup();
    type("/he");
    expect(popup.handle(key("down"))).toBe("handled");
    expect(popup.list.selected()?.value).toBe("hello");
    expect(popup.handle(key("tab"))).toBe("handled");
    expect(editor.text).toBe("/hello ");
    expect(popup.open).toBe(false);

    editor.clear();
    type("/exit");
    expect(popup.handle(key("enter"))).toBe("submit");

    editor.clear();
    type("/mo");
    expect(popup.handle(key("escape"))).toBe("handled");
    popup.update();
    expect(popup.open).toBe(false);
    type("d");
    expect(popup.open).toBe(true);
    expect(popup.handle(key("enter"))).toBe("handled");
    expect(editor.text).toBe("/model ");
  });

  test("keys pass through when closed; nothing matching sends the word", () => {
    const { popup, type } = setup();
    expect(popup.handle(key("up"))).toBe("pass");
    type("/nope");
    expect(popup.open).toBe(true);
    expect(popup.list.selected()).toBeUndefined();
    expect(popup.handle(key("enter"))).toBe("submit");
  });
});

describe("@ file picker", () => {
  test("indexes on the first @, lists the top level, → enters a directory, ← goes back, Enter inserts a chip expanded on submit", async () => {
    const root = tempDir("zot-popup-");
    mkdirSync(join(root, "src", "modes"), { recursive: true });
    writeFileSync(join(root, "src", "modes", "chat.ts"), "x");
    writeFileSync(join(root, "README.md"), "x");
    const { editor, index, popup, type, shown } = setup(root);
    type("look at @");
    expect(popup.open).toBe(true);
    expect(popup.footer).toBe("indexing files…");
    await index.build();
    popup.refresh();
    expect(shown()).toContain("src/");
    expect(shown()).toContain("README.md");
    expect(popup.list.selected()?.value).toBe("src/");
    expect(popup.handle(key("right"))).toBe("handled");
    expect(popup.list.selected()?.value).toBe("src/modes/");
    popup.handle(key("right"));
    expect(editor.text).toBe("look at @src/modes/");
    // ← goes back to the parent directory (the original's picker), and ← at the top level moves the cursor instead.
    expect(popup.handle(key("left"))).toBe("handled");
    expect(editor.text).toBe("look at @src/");
    expect(popup.list.selected()?.value).toBe("src/modes/");
    expect(popup.handle(key("left"))).toBe("handled");
    expect(editor.text).toBe("look at @");
    expect(popup.handle(key("left"))).toBe("pass");
    popup.handle(key("right"));
    popup.handle(key("right"));
    expect(popup.list.selected()?.value).toBe("src/modes/chat.ts");
    expect(popup.handle(key("enter"))).toBe("handled");
    expect(popup.open).toBe(false);
    expect(editor.text).toContain("[file:src/modes/chat.ts]");
    const sent = editor.handle(key("enter"));
    expect(sent).toEqual({ kind: "submit", text: "look at src/modes/chat.ts " });
  });

  test("fuzzy over the whole tree", async () => {
    const root = tempDir("zot-popup-");
    mkdirSync(join(root, "a", "b"), { recursive: true });
    writeFileSync(join(root, "a", "b", "deep-file.ts"), "x");
    const { index, popup, type } = setup(root);
    await index.build();
    type("@deepf");
    expect(popup.list.selected()?.value).toBe("a/b/deep-file.ts");
  });
});
