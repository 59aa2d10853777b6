/**
 * Extension panels and interactive tools end to end: dist/zot in a real PTY
 * with the fixture extensions test/fixtures/extensions/py-panels (Python:
 * /todos, /hostile, the interactive tool ask_user; advertises tool_cancel)
 * and ts-panels (TypeScript: /board, the interactive tool pick_option; no
 * tool_cancel, never closes its tool's panel itself). Both log every frame
 * they receive to $ZOT_PANEL_LOG, which is what the key-order assertions
 * read. Covered: open_panel / panel_render / panel_close both ways, the
 * spec's key names, typed order for a burst in one write and for a paste,
 * Esc and Ctrl+C dismissing, one panel at a time, a panel taller than the
 * screen scrolling, hostile lines sanitized and cut, an interactive tool's
 * panel opened by its panel_render, answered, dismissed (a cancelled result
 * the model sees; tool_cancel only where advertised) and closed by the host
 * when its call is over.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { WAIT_MS, type TuiPty } from "../support/tui-pty.ts";
import { toolResultsSent, type ModeEnv } from "./helpers.ts";
import { PROMPT, TEST_MS, busy, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

const EXTENSIONS = join(import.meta.dir, "..", "fixtures", "extensions");
const PY = join(EXTENSIONS, "py-panels");
const TS = join(EXTENSIONS, "ts-panels");

type Logged = Record<string, unknown> & { ext: string; type: string };

let env: ModeEnv;
let logPath: string;
useChatEnv((created) => {
  env = created;
  logPath = join(env.base, "panel.log");
});

/** The frames the fixtures logged so far: complete lines only (an extension may be writing the last one). */
function logged(): Logged[] {
  if (!existsSync(logPath)) return [];
  const lines = readFileSync(logPath, "utf8").split("\n");
  lines.pop(); // "" after the last newline, or a line still being written
  return lines.filter((line) => line !== "").map((line) => JSON.parse(line) as Logged);
}

function framesTo(ext: string, type: string): Logged[] {
  return logged().filter((frame) => frame.ext === ext && frame.type === type);
}

/** The panel_key frames an extension got, as "name" or "rune:text". */
function keysTo(ext: string): string[] {
  return framesTo(ext, "panel_key").map((frame) => (frame.key === "rune" ? `rune:${String(frame.text)}` : String(frame.key)));
}

function start(extensions: readonly string[], options: { columns?: number; rows?: number } = {}): Promise<TuiPty> {
  return startChat(env, { ...options, args: extensions.flatMap((dir) => ["--ext", dir]), env: { ZOT_PANEL_LOG: logPath } });
}

/** A command of each fixture, with its description as the slash popup shows it. */
const COMMAND_OF: Readonly<Record<string, readonly [string, string]>> = {
  "py-panels": ["/todo", "a todo panel (python)"],
  "ts-panels": ["/boar", "a key board panel (typescript)"],
};

/**
 * Waits until the extensions' registrations are in (commands and tools join
 * together): the slash popup lists a command of each (it is filtered as
 * typed, so the prefix is typed again until it does). Leaves the editor empty.
 */
async function ready(tui: TuiPty, exts: readonly string[]): Promise<void> {
  const onScreen = (text: string): boolean => tui.screen.screen().some((row) => row.includes(text));
  for (const ext of exts) {
    const [prefix, description] = COMMAND_OF[ext] ?? ["", ""];
    const deadline = performance.now() + WAIT_MS;
    for (;;) {
      tui.type(prefix);
      const found = await tui.waitFor(() => (onScreen(description) ? "yes" : onScreen("no matches") ? "no" : undefined), "the slash popup");
      tui.press("ctrl+u");
      await tui.waitFor(() => !onScreen(description) && !onScreen("no matches"), "the popup to close");
      if (found === "yes") break;
      if (performance.now() > deadline) throw new Error(`${ext}'s commands never appeared in the slash popup\n${tui.dump()}`);
      await Bun.sleep(50); // not yet registered: look again
    }
  }
}

/** The rows of the panel titled `title` on the screen (top border to bottom border), or undefined. */
function panelRows(tui: TuiPty, title: string): string[] | undefined {
  const screen = tui.screen.screen();
  const top = screen.findIndex((row) => row.startsWith(`╭─ ${title} `));
  if (top === -1) return undefined;
  const bottom = screen.findIndex((row, index) => index > top && row.startsWith("╰"));
  return bottom === -1 ? undefined : screen.slice(top, bottom + 1);
}

function waitPanel(tui: TuiPty, title: string, what = `the ${title} panel`): Promise<string[]> {
  return tui.waitFor(() => panelRows(tui, title), what);
}

function waitPanelGone(tui: TuiPty, title: string): Promise<true> {
  return tui.waitFor(() => panelRows(tui, title) === undefined, `the ${title} panel to close`);
}

async function openCommandPanel(tui: TuiPty, command: string, title: string): Promise<string[]> {
  tui.type(command);
  tui.press("enter");
  return waitPanel(tui, title);
}

describe("panels", () => {
  test("a command's panel: open_panel, panel_render on every key, the spec's key names, Esc closes it with panel_close", async () => {
    const tui = await start([TS]);
    await ready(tui, ["ts-panels"]);
    const opened = await openCommandPanel(tui, "/board", "Board");
    expect(opened.some((row) => row.includes("│ keys:"))).toBe(true);
    expect(opened.some((row) => row.includes("│ esc closes"))).toBe(true);

    tui.press("up", "down", "left", "right", "enter", "tab", "backspace", "delete", "home", "end", "pageup", "pagedown");
    tui.press("ctrl+x", "alt+x");
    tui.type(" é😀");
    const expected = [
      "up", "down", "left", "right", "enter", "tab", "backspace", "delete", "home", "end", "pageup", "pagedown",
      "unknown", "unknown", "rune: ", "rune:é", "rune:😀",
    ];
    await tui.waitFor(() => keysTo("ts-panels").length >= expected.length || undefined, "every key to reach the extension");
    expect(keysTo("ts-panels")).toEqual(expected);
    // Each key re-rendered the panel (panel_render replaces its lines).
    await tui.waitForText("│ keys: up down left right enter tab backspace", "screen");
    // Nothing went into the editor (the row under the last rule).
    const screen = tui.screen.screen();
    const rule = screen.findLastIndex((row) => /^─+$/.test(row));
    expect(screen[rule + 1]?.trim()).toBe(PROMPT);

    tui.press("escape");
    await waitPanelGone(tui, "Board");
    await tui.waitFor(() => framesTo("ts-panels", "panel_close").length === 1, "panel_close to the extension");
    expect(framesTo("ts-panels", "panel_close")[0]?.panel_id).toBe("board");
    // The keyboard is the editor's again.
    tui.type("back to the editor");
    await tui.waitForText(`${PROMPT} back to the editor`, "screen");
    expect(keysTo("ts-panels")).toHaveLength(expected.length);
  }, TEST_MS);

  test("keys reach the extension strictly in the order typed: a burst in one write, a long burst, a paste", async () => {
    const tui = await start([PY]);
    await ready(tui, ["py-panels"]);
    await openCommandPanel(tui, "/todos", "Todos");

    // One write: text, arrows and text again arrive in one read.
    tui.type("the quick\x1b[Bbrown\x1b[Afox");
    const first = [..."the quick"].map((c) => `rune:${c}`).concat(["down"], [..."brown"].map((c) => `rune:${c}`), ["up"], [..."fox"].map((c) => `rune:${c}`));
    await tui.waitFor(() => keysTo("py-panels").length >= first.length || undefined, "the burst to reach the extension");
    expect(keysTo("py-panels")).toEqual(first);

    // A long burst (700 characters in one write).
    const long = Array.from({ length: 700 }, (_, i) => "abcdefghijklmnopqrstuvwxyz0123456789"[i % 36] as string).join("");
    tui.type(long);
    const second = [...first, ...[...long].map((c) => `rune:${c}`)];
    await tui.waitFor(() => keysTo("py-panels").length >= second.length || undefined, "the long burst to reach the extension");
    expect(keysTo("py-panels")).toEqual(second);

    // A paste is typed: each character a rune, a tab `tab`, a newline `enter`.
    tui.paste("lazy\tdog\nend");
    const third = [...second, ...["l", "a", "z", "y"].map((c) => `rune:${c}`), "tab", ...["d", "o", "g"].map((c) => `rune:${c}`), "enter", ...["e", "n", "d"].map((c) => `rune:${c}`)];
    await tui.waitFor(() => keysTo("py-panels").length >= third.length || undefined, "the paste to reach the extension");
    expect(keysTo("py-panels")).toEqual(third);

    // What the extension drew from them is in the same order.
    await tui.waitForText("│ typed: the quickbrownfoxabcdefgh", "screen");
    await tui.waitForText("│ last: enter", "screen");
  }, TEST_MS);

  test("one input of more than 4,096 keys: the first 4,096 go out in order, the status line says how many were not", async () => {
    const tui = await start([TS]);
    await ready(tui, ["ts-panels"]);
    await openCommandPanel(tui, "/board", "Board");
    const text = Array.from({ length: 5000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");
    tui.paste(text);
    // The status line lasts 2 s: look for it in everything zot wrote, not on the screen now.
    await tui.waitFor(() => tui.raw().includes("panel: 904 more key(s) not sent (at most 4096 from one input)"), "the status line about the dropped keys");
    await tui.waitFor(() => keysTo("ts-panels").length >= 4096 || undefined, "4096 keys to reach the extension");
    expect(keysTo("ts-panels")).toEqual([...text.slice(0, 4096)].map((c) => `rune:${c}`));
    // The panel still has the keyboard.
    tui.press("down");
    await tui.waitFor(() => keysTo("ts-panels").at(-1) === "down", "the next key");
  }, TEST_MS);

  test("Ctrl+C closes the panel (panel_close); the extension's panel_close closes it; an extension that dies takes its panel", async () => {
    const tui = await start([PY]);
    await ready(tui, ["py-panels"]);
    await openCommandPanel(tui, "/todos", "Todos");
    tui.press("ctrl+c");
    await waitPanelGone(tui, "Todos");
    await tui.waitFor(() => framesTo("py-panels", "panel_close").length === 1, "panel_close after Ctrl+C");
    // Ctrl+C only closed the panel: zot runs on.
    expect(tui.proc.exitCode).toBeNull();

    await openCommandPanel(tui, "/todos", "Todos");
    tui.type("Q"); // the extension sends panel_close itself
    await waitPanelGone(tui, "Todos");
    expect(framesTo("py-panels", "panel_close")).toHaveLength(1);

    await openCommandPanel(tui, "/todos", "Todos");
    tui.type("!"); // the extension exits
    await waitPanelGone(tui, "Todos");
    await tui.waitForText("extension py-panels", "all");
    tui.type("editor again");
    await tui.waitForText(`${PROMPT} editor again`, "screen");
  }, TEST_MS);

  test("a panel taller than the screen scrolls: its rows fit, the view follows the selection, Shift+↑/↓/PgUp/PgDn scroll it", async () => {
    const tui = await start([PY], { columns: 60, rows: 20 });
    await ready(tui, ["py-panels"]);
    const rows = await openCommandPanel(tui, "/todos 50", "Todos");
    // Top border, body, "↓ more", footer, bottom border: all on the screen with the editor and status bar below.
    expect(rows.some((row) => /│ ↓ \d+ more/.test(row))).toBe(true);
    expect(rows.some((row) => row.includes("│ ↑/↓ move"))).toBe(true);
    const screen = tui.screen.screen();
    expect(screen.some((row) => row.startsWith(PROMPT))).toBe(true);
    expect(screen.filter((row) => row.startsWith("╭─ Todos"))).toHaveLength(1);
    expect(rows.length).toBeLessThan(tui.rows);

    // Move the selection 30 items down: the view follows it.
    tui.type("\x1b[B".repeat(30));
    await tui.waitFor(() => panelRows(tui, "Todos")?.some((row) => row.includes("› [ ] item 31")), "the selection to stay in view");
    const followed = panelRows(tui, "Todos") ?? [];
    expect(followed.some((row) => /│ ↑ \d+ more/.test(row))).toBe(true);
    expect(followed.some((row) => row.includes("item 1 "))).toBe(false);

    // Shift+↑ scrolls the view (the host's), not the selection: no panel_key for it.
    const keysBefore = keysTo("py-panels").length;
    const firstItem = (): string | undefined => panelRows(tui, "Todos")?.map((row) => /item (\d+)/.exec(row)?.[1]).find((n) => n !== undefined);
    const topBefore = Number(firstItem());
    tui.type("\x1b[1;2A\x1b[1;2A\x1b[1;2A");
    await tui.waitFor(() => Number(firstItem()) === topBefore - 3, "Shift+↑ to scroll the view by three lines");
    tui.type("\x1b[1;2B");
    await tui.waitFor(() => Number(firstItem()) === topBefore - 2, "Shift+↓ to scroll it back one");
    // Shift+PgUp a few pages: the top ("typed:") is in view and nothing says "↑ more".
    tui.type("\x1b[5;2~".repeat(5));
    await tui.waitFor(() => panelRows(tui, "Todos")?.some((row) => row.includes("│ typed:")), "Shift+PgUp to reach the top");
    expect((panelRows(tui, "Todos") ?? []).some((row) => /↑ \d+ more/.test(row))).toBe(false);
    tui.type("\x1b[6;2~".repeat(10));
    await tui.waitFor(() => panelRows(tui, "Todos")?.some((row) => row.includes("item 50")), "Shift+PgDn to reach the end");
    expect(keysTo("py-panels")).toHaveLength(keysBefore);

    // A smaller window: the panel shrinks with it and still fits, borders, editor and status bar included.
    await tui.resize(60, 12);
    await tui.waitFor(() => {
      const shown = panelRows(tui, "Todos");
      return shown !== undefined && shown.length < 12 && shown.some((row) => row.includes("│ ↑/↓ move")) && tui.screen.screen().some((row) => row.startsWith(PROMPT));
    }, "the panel to fit the smaller screen");
  }, TEST_MS);

  test("panel lines are sanitized and cut to the width, never wrapped into the rest of the screen", async () => {
    const tui = await start([PY], { columns: 80, rows: 30 });
    await ready(tui, ["py-panels"]);
    const rows = await openCommandPanel(tui, "/hostile", "Hostile");
    const body = rows.slice(1, -1);
    // Every row is one framed row of the full width: nothing wrapped, nothing spilled.
    for (const row of rows) expect(Bun.stringWidth(row)).toBe(80);
    for (const row of body) {
      expect(row.startsWith("│ ")).toBe(true);
      expect(row.endsWith(" │")).toBe(true);
    }
    expect(body[0]).toContain("clearafter-clear");
    expect(body[1]).toContain("│ title-gone");
    expect(body[2]).toMatch(/│ long:L+… │$/);
    expect(body[3]).toMatch(/│ wide:界+…? +│$/);
    expect(body[4]).toContain("│ tab here");
    expect(body[5]).toContain("│ two lines");
    expect(body[6]).toContain("│ red-unterminated");
    expect(body[7]).toContain("│ next-row-plain");
    expect(body[8]).toContain("│ footnote");
    // No screen clear, no cursor jump, no window title reached the terminal.
    expect(tui.counts().screenClears).toBe(0);
    expect(tui.raw()).not.toContain("pwned-title");
    // An unterminated colour ends with its row.
    expect(tui.raw()).toMatch(/red-unterminated\x1b\[0m/);
    expect(tui.screen.logicalLines()).toHaveLength(tui.screen.all().length);
  }, TEST_MS);
});

describe("interactive tools", () => {
  test("the tool's panel_render opens its panel; keys and Enter answer; the model gets the answer (Python and TypeScript)", async () => {
    env.server.enqueue(
      { type: "tool_calls", text: "Asking.", calls: [{ name: "ask_user", arguments: { question: "Favourite colour?" } }] },
      { type: "text", text: "Blue it is." },
      { type: "tool_calls", calls: [{ name: "pick_option", arguments: { options: ["red", "green", "blue"] } }] },
      { type: "text", text: "Green was picked." },
    );
    const tui = await start([PY, TS]);
    await ready(tui, ["py-panels", "ts-panels"]);
    tui.type("ask me");
    tui.press("enter");
    const question = await waitPanel(tui, "Question");
    expect(question.some((row) => row.includes("│ Favourite colour?"))).toBe(true);
    expect(busy(tui)).toBe(true);
    tui.type("bluex");
    tui.press("backspace");
    await tui.waitFor(() => panelRows(tui, "Question")?.some((row) => row.includes("│ answer: blue ")), "the answer to be drawn");
    tui.press("enter");
    await tui.waitForText("Blue it is.");
    await waitPanelGone(tui, "Question");
    expect([...toolResultsSent(env.server.requests[1]).values()]).toEqual(["user answered: blue"]);
    expect(framesTo("py-panels", "tool_cancel")).toEqual([]);
    await waitIdle(tui);

    tui.type("pick one");
    tui.press("enter");
    await waitPanel(tui, "Pick one");
    tui.press("down");
    await tui.waitFor(() => panelRows(tui, "Pick one")?.some((row) => row.includes("│ › green")), "the selection to move");
    tui.press("enter");
    await tui.waitForText("Green was picked.");
    // ts-panels never closes its tool's panel: the host closed it when the call was answered.
    await waitPanelGone(tui, "Pick one");
    expect(framesTo("ts-panels", "panel_close")).toEqual([]);
    expect([...toolResultsSent(env.server.requests[3]).values()]).toEqual(["picked: green"]);
    await waitIdle(tui);
    tui.type("editor is back");
    await tui.waitForText(`${PROMPT} editor is back`, "screen");
  }, TEST_MS);

  test("dismissing the tool's panel resolves the call as cancelled (the model sees it); tool_cancel only to extensions that advertised it", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ name: "ask_user", arguments: { question: "Proceed?" } }] },
      { type: "text", text: "You closed the question." },
      { type: "tool_calls", calls: [{ name: "pick_option", arguments: { options: ["a", "b"] } }] },
      { type: "text", text: "You closed the picker." },
    );
    const tui = await start([PY, TS]);
    await ready(tui, ["py-panels", "ts-panels"]);
    tui.type("first");
    tui.press("enter");
    await waitPanel(tui, "Question");
    tui.press("escape");
    await tui.waitForText("You closed the question.");
    const first = [...toolResultsSent(env.server.requests[1]).values()];
    expect(first).toHaveLength(1);
    expect(first[0]).toContain("cancelled: the user closed its panel");
    expect(first[0]).not.toContain("Question cancelled"); // the extension's late result is ignored
    const call = framesTo("py-panels", "tool_call")[0];
    await tui.waitFor(() => framesTo("py-panels", "tool_cancel").length === 1, "tool_cancel to py-panels");
    expect(framesTo("py-panels", "tool_cancel")[0]?.id).toBe(call?.id);
    expect(framesTo("py-panels", "panel_close").map((frame) => frame.panel_id)).toEqual([`ask-${String(call?.id)}`]);
    // The cancellation first: a handler that ends when its panel closes has already been told why.
    const order = logged().filter((frame) => frame.ext === "py-panels" && (frame.type === "tool_cancel" || frame.type === "panel_close"));
    expect(order.map((frame) => frame.type)).toEqual(["tool_cancel", "panel_close"]);
    await waitIdle(tui);

    tui.type("second");
    tui.press("enter");
    await waitPanel(tui, "Pick one");
    tui.press("ctrl+c");
    await tui.waitForText("You closed the picker.");
    expect([...toolResultsSent(env.server.requests[3]).values()][0]).toContain("cancelled: the user closed its panel");
    expect(framesTo("ts-panels", "panel_close")).toHaveLength(1);
    // ts-panels did not advertise tool_cancel.
    expect(framesTo("ts-panels", "tool_cancel")).toEqual([]);
    await waitIdle(tui);
  }, TEST_MS);

  test("one panel at a time: a second call's panel waits behind the first; a tool's panel replaces a command's panel", async () => {
    env.server.enqueue(
      {
        type: "tool_calls",
        calls: [
          { name: "ask_user", arguments: { question: "First of two?" } },
          { name: "pick_option", arguments: { options: ["x", "y"] } },
        ],
      },
      { type: "text", text: "Both were answered." },
    );
    const tui = await start([PY, TS]);
    await ready(tui, ["py-panels", "ts-panels"]);
    let most = 0;
    const stop = tui.onParsed(() => {
      const titles = tui.screen.screen().filter((row) => /^╭─ (Question|Pick one|Todos) /.test(row)).length;
      most = Math.max(most, titles);
    });
    tui.type("two questions");
    tui.press("enter");
    // Both calls are pending; whichever panel came first is shown, the other waits.
    await tui.waitFor(() => panelRows(tui, "Question") ?? panelRows(tui, "Pick one"), "the first panel");
    await tui.waitFor(() => framesTo("ts-panels", "tool_call").length === 1 && framesTo("py-panels", "tool_call").length === 1, "both calls to be sent");
    for (let answered = 0; answered < 2; answered++) {
      const shown = await tui.waitFor(() => (panelRows(tui, "Question") ? "Question" : panelRows(tui, "Pick one") ? "Pick one" : undefined), `panel ${answered + 1}`);
      if (shown === "Question") tui.type("yes");
      tui.press("enter");
      await waitPanelGone(tui, shown);
    }
    await tui.waitForText("Both were answered.");
    expect([...toolResultsSent(env.server.requests[1]).values()].sort()).toEqual(["picked: x", "user answered: yes"]);
    await waitIdle(tui);

    // A command's panel is open; the extension submits a prompt whose tool opens a panel: it replaces the command's.
    env.server.enqueue({ type: "tool_calls", calls: [{ name: "pick_option", arguments: { options: ["only"] } }] }, { type: "text", text: "Picked from the submit." });
    await openCommandPanel(tui, "/todos", "Todos");
    tui.type("S");
    await waitPanel(tui, "Pick one");
    expect(panelRows(tui, "Todos")).toBeUndefined();
    await tui.waitFor(() => framesTo("py-panels", "panel_close").some((frame) => frame.panel_id === "todos"), "panel_close for the replaced panel");
    tui.press("enter");
    await tui.waitForText("Picked from the submit.");
    await waitIdle(tui);
    expect(panelRows(tui, "Todos")).toBeUndefined();
    stop();
    expect(most).toBe(1);
  }, TEST_MS);
});
