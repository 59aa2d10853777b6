/**
 * The extension UI surface and the --no-yolo dialog end to end: dist/zot in
 * a PTY (TuiPty, xterm.js as the screen) against the stand-in model server,
 * with real extensions (test/modes/fixtures/extui-notes in Python,
 * extui-twin in TypeScript, and a broken shell extension made per test).
 * Covers: the confirmation dialog (tool name and key argument; once,
 * always this tool, always all, deny, Esc; /yolo and the status bar tag),
 * notes by level, clear_notes per extension, notes dismissed by a prompt,
 * Esc and /clear; submit queued while busy, insert at the cursor, display
 * kept out of the model's context and the session; /reload-ext (failures in
 * the chat until a clean reload or /clear, the 5 s status, tools and the
 * before_agent_start chain rebuilt, the session kept, nothing replayed);
 * colliding commands under the popup's divider and as /<extension>:<command>.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WAIT_MS, type TuiPty } from "../support/tui-pty.ts";
import { MODES_FIXTURES, requestTexts, requestToolNames, toolResultsSent, type ModeEnv } from "./helpers.ts";
import { PROMPT, TEST_MS, editorRow, rowsWith, startChat, waitIdle, useChatEnv, waitForCommand } from "./tui-chat.ts";

const DIALOG_TITLE = "allow this tool call?";
const DIALOG_ANSWERS = "[y] allow once  [a] always this tool  [A] always all  [n] deny";

let env: ModeEnv;
let notesDir: string;
let twinDir: string;

useChatEnv((created) => {
  env = created;
  notesDir = join(env.base, "extui-notes");
  twinDir = join(env.base, "extui-twin");
  cpSync(join(MODES_FIXTURES, "extui-notes"), notesDir, { recursive: true });
  cpSync(join(MODES_FIXTURES, "extui-twin"), twinDir, { recursive: true });
});

/** The status bar's second line (provider/model · cwd · tags): the last screen row that starts with the model. */
function statusTags(tui: TuiPty): string {
  return tui.screen.screen().filter((row) => row.startsWith("anthropic/claude-sonnet-4-5 · ")).at(-1) ?? "";
}

/** Waits until the `/` popup lists each `/name` (the extensions are ready), clearing the draft after each. */
async function waitForCommands(tui: TuiPty, names: readonly string[]): Promise<void> {
  for (const name of names) await waitForCommand(tui, name);
}

function screenHas(tui: TuiPty, text: string | RegExp): boolean {
  return rowsWith(tui.screen.screen(), text).length > 0;
}

async function run(tui: TuiPty, line: string): Promise<void> {
  tui.type(line);
  tui.press("enter");
}

/** A project-local extension that exits 3 before hello, saying why on stderr. */
function brokenExtension(): string {
  const dir = join(env.cwd, ".zot", "extensions", "broken");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "run.sh"), "#!/bin/sh\necho 'boom: config missing' >&2\nexit 3\n");
  chmodSync(join(dir, "run.sh"), 0o755);
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: "broken", exec: "./run.sh", language: "sh" }));
  return dir;
}

function notesEvents(): { pid: number; event: string; text: string | null }[] {
  const path = join(notesDir, "events.log");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

function systemPrompt(index: number): string {
  return JSON.stringify((env.server.requests[index]?.body as { system?: unknown } | undefined)?.system ?? "");
}

describe("--no-yolo confirmation dialog", () => {
  test("shows the tool and its key argument; once, always this tool, deny and Esc reach the model", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ name: "bash", arguments: { command: "echo once-run" } }] },
      { type: "text", text: "after once" },
      { type: "tool_calls", calls: [{ name: "bash", arguments: { command: "echo always-first" } }] },
      { type: "tool_calls", calls: [{ name: "bash", arguments: { command: "echo always-second" } }] },
      { type: "text", text: "after always" },
      { type: "tool_calls", calls: [{ name: "read", arguments: { path: "denied.txt" } }] },
      { type: "text", text: "after deny" },
      { type: "tool_calls", calls: [{ name: "write", arguments: { path: "never.txt", content: "x" } }] },
      { type: "text", text: "after escape" },
    );
    const tui = await startChat(env, { args: ["--no-yolo"] });
    expect(statusTags(tui)).toContain("no-yolo");

    await run(tui, "first");
    await tui.waitForText(DIALOG_TITLE, "screen");
    expect(screenHas(tui, /│ bash {2}echo once-run\s+│/)).toBe(true);
    expect(screenHas(tui, DIALOG_ANSWERS)).toBe(true);
    tui.type("y");
    await tui.waitForText("bash: allowed once");
    await tui.waitForText("after once");
    expect([...toolResultsSent(env.server.requests[1]).values()].join()).toContain("once-run");

    await run(tui, "second");
    await tui.waitFor(() => screenHas(tui, /│ bash {2}echo always-first/), "the dialog for the first call");
    tui.type("a");
    await tui.waitForText("after always");
    // The second bash call was not asked for: it ran on the remembered answer.
    expect([...toolResultsSent(env.server.requests[4]).values()].join()).toContain("always-second");
    expect(rowsWith(tui.screen.all(), "bash: allowed (always for this tool)").length).toBe(1);

    await run(tui, "third");
    await tui.waitFor(() => screenHas(tui, /│ read {2}denied\.txt/), "the dialog for read");
    tui.press("right", "right", "right", "enter"); // → deny
    await tui.waitForText("read: denied");
    await tui.waitForText("after deny");
    expect([...toolResultsSent(env.server.requests[6]).values()]).toContain("user declined");

    await run(tui, "fourth");
    await tui.waitFor(() => screenHas(tui, /│ write {2}never\.txt/), "the dialog for write");
    tui.press("escape");
    await tui.waitForText("write: cancelled");
    await tui.waitForText("after escape");
    expect([...toolResultsSent(env.server.requests[8]).values()]).toContain("user cancelled");
    expect(existsSync(join(env.cwd, "never.txt"))).toBe(false);
    await waitIdle(tui);
    expect(screenHas(tui, DIALOG_TITLE)).toBe(false);
  }, TEST_MS);

  test("always all (3) and /yolo stop the asking, and the status bar tag goes with them", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ name: "write", arguments: { path: "one.txt", content: "1" } }] },
      { type: "tool_calls", calls: [{ name: "write", arguments: { path: "two.txt", content: "2" } }] },
      { type: "text", text: "wrote both" },
    );
    const first = await startChat(env, { args: ["--no-yolo"] });
    await run(first, "write them");
    await first.waitFor(() => screenHas(first, /│ write {2}one\.txt/), "the dialog");
    first.type("3");
    await first.waitForText("wrote both");
    expect(existsSync(join(env.cwd, "two.txt"))).toBe(true);
    await first.waitFor(() => !statusTags(first).includes("no-yolo") && statusTags(first) !== "", "the no-yolo tag to go");
    await first.stop();

    env.server.enqueue({ type: "tool_calls", calls: [{ name: "write", arguments: { path: "three.txt", content: "3" } }] }, { type: "text", text: "wrote three" });
    const second = await startChat(env, { args: ["--no-yolo"] });
    expect(statusTags(second)).toContain("no-yolo");
    await run(second, "/yolo");
    await second.waitForText("yolo on");
    await second.waitFor(() => !statusTags(second).includes("no-yolo") && statusTags(second) !== "", "the no-yolo tag to go");
    await run(second, "write three");
    await second.waitForText("wrote three");
    expect(existsSync(join(env.cwd, "three.txt"))).toBe(true);
    expect(rowsWith(second.screen.all(), "write: allowed")).toEqual([]);
  }, TEST_MS);
});

describe("notes", () => {
  test("by level, clear_notes drops only its own, a prompt, Esc and /clear dismiss them", async () => {
    env.server.enqueue({ type: "text", text: "answer one" });
    const tui = await startChat(env, { args: ["--ext", notesDir, "--ext", twinDir] });
    await waitForCommands(tui, ["clearmine", "twinnote"]);
    for (const level of ["error", "warn", "success", "info"]) await run(tui, `/note ${level} ${level}-note`);
    await run(tui, "/twinnote");
    for (const level of ["error", "warn", "success", "info"]) await tui.waitForText(`[extui-notes] ${level}-note`, "screen");
    await tui.waitForText("[extui-twin] twin note", "screen");

    // Each level is drawn in its own style (the SGR written right before the note's text).
    const raw = tui.raw();
    const styleOf = (text: string): string => {
      const matches = [...raw.matchAll(new RegExp(`((?:\\x1b\\[[0-9;]*m)+)\\[extui-notes\\] ${text}`, "g"))];
      return matches.at(-1)?.[1] ?? "";
    };
    const styles = ["error", "warn", "success", "info"].map((level) => styleOf(`${level}-note`));
    expect(styles.every((style) => style !== "")).toBe(true);
    expect(new Set(styles).size).toBe(4);

    await run(tui, "/clearmine");
    await tui.waitFor(() => !screenHas(tui, "[extui-notes] error-note") && !screenHas(tui, "[extui-notes] info-note"), "extui-notes' notes to go");
    expect(screenHas(tui, "[extui-twin] twin note")).toBe(true);

    tui.press("escape");
    await tui.waitFor(() => !screenHas(tui, "[extui-twin] twin note"), "Esc to dismiss the notes");

    await run(tui, "/twinnote");
    await tui.waitForText("[extui-twin] twin note", "screen");
    await run(tui, "hello there");
    await tui.waitFor(() => !screenHas(tui, "[extui-twin] twin note"), "the prompt to dismiss the notes");
    await tui.waitForText("answer one");
    expect(requestTexts(env.server.requests[0])).not.toContain("note");

    await run(tui, "/twinnote");
    await tui.waitForText("[extui-twin] twin note", "screen");
    await run(tui, "/clear");
    await tui.waitFor(() => !screenHas(tui, "[extui-twin] twin note") && screenHas(tui, "conversation cleared"), "/clear to dismiss the notes");
  }, TEST_MS);
});

describe("submit, insert, display", () => {
  test("submit while busy is queued, insert lands at the cursor, display stays out of the model and the session", async () => {
    const wait = "while [ ! -e go.flag ]; do sleep 0.05; done; echo released";
    env.server.enqueue(
      { type: "tool_calls", calls: [{ name: "bash", arguments: { command: wait } }] },
      { type: "text", text: "first answer" },
      { type: "text", text: "answer to the submitted prompt" },
      { type: "text", text: "answer after display" },
    );
    const tui = await startChat(env, { args: ["--ext", notesDir] });
    await waitForCommands(tui, ["ins", "disp", "status"]);

    await run(tui, "please submit");
    // The extension's submit arrives while the turn waits for go.flag: it is queued.
    await tui.waitForText(/↳ queued:\s+submitted by notes/, "screen");
    await run(tui, "/ins");
    await tui.waitForText(/↳ queued:\s+\/ins/, "screen");
    tui.type("AAA BBB");
    tui.press("left", "left", "left");
    writeFileSync(join(env.cwd, "go.flag"), "");
    await tui.waitForText("answer to the submitted prompt");
    expect(requestTexts(env.server.requests[2])).toContain("submitted by notes");
    expect(rowsWith(tui.screen.all(), /› submitted by notes\s+\[extui-notes\]/).length).toBe(1);
    // The queued /ins ran after it and inserted at the caret, which stays after the inserted text.
    await tui.waitFor(() => editorRow(tui).includes("AAA inserted-text BBB"), "the insert at the cursor");
    tui.type("X");
    await tui.waitFor(() => editorRow(tui).includes("AAA inserted-text XBBB"), "the caret after the inserted text");
    tui.press("ctrl+u");
    await waitIdle(tui);

    // A short display is a status line its extension may withdraw with clear_notes while nothing follows it…
    await run(tui, "/status awaiting-approval");
    await tui.waitForText("[extui-notes] status: awaiting-approval", "screen");
    writeFileSync(join(notesDir, "clear.flag"), "");
    await tui.waitFor(() => rowsWith(tui.screen.all(), "status: awaiting-approval").length === 0, "clear_notes to withdraw the display");
    await run(tui, "/disp for-your-eyes-only");
    await tui.waitForText("[extui-notes] displayed: for-your-eyes-only");
    await run(tui, "after display");
    await tui.waitForText("answer after display");
    // …but once the chat has moved on it is scrollback, which clear_notes leaves alone.
    await run(tui, "/clearmine");
    await run(tui, "/note info cleared-after");
    await tui.waitForText("[extui-notes] cleared-after", "screen");
    expect(rowsWith(tui.screen.all(), "[extui-notes] displayed: for-your-eyes-only").length).toBe(1);
    expect(requestTexts(env.server.requests[3])).not.toContain("for-your-eyes-only");
    const sessions = env.sessionFiles();
    expect(sessions.length).toBe(1);
    expect(readFileSync(sessions[0]!, "utf8")).not.toContain("for-your-eyes-only");
    expect(readFileSync(sessions[0]!, "utf8")).toContain("submitted by notes");
  }, TEST_MS);
});

describe("submit flood", () => {
  test("an extension's submits beyond 8 waiting are dropped, said once; the 8 run in order", async () => {
    env.server.enqueue(...Array.from({ length: 8 }, (_, i) => ({ type: "text" as const, text: `flood answer ${i}` })));
    const tui = await startChat(env, { args: ["--ext", notesDir] });
    await waitForCommands(tui, ["flood"]);
    await run(tui, "/flood 200");
    await tui.waitForText("flood answer 7");
    await waitIdle(tui);
    await Bun.sleep(300);
    expect(env.server.requests.length).toBe(8);
    // The i-th request is the conversation up to the prompt "flood i": they ran in the order sent.
    for (const [i, request] of env.server.requests.entries()) {
      expect(requestTexts(request)).toContain(`"flood ${i}"`);
      expect(requestTexts(request)).not.toContain(`"flood ${i + 1}"`);
    }
    expect(rowsWith(tui.screen.all(), "submit from extui-notes dropped: 8 of its prompts are already queued").length).toBe(1);
  }, TEST_MS);
});

describe("extension commands", () => {
  test("under their own divider; a colliding one stays reachable as /<extension>:<command>", async () => {
    const tui = await startChat(env, { args: ["--ext", notesDir, "--ext", twinDir] });
    await waitForCommands(tui, ["dup", "extui-twin:dup"]);
    // Built-ins first, then the divider, then the extensions' commands with their descriptions.
    tui.type("/clea");
    await tui.waitForText(/── extensions ─/, "screen");
    const all = tui.screen.screen();
    const divider = all.findIndex((row) => /── extensions ─/.test(row));
    expect(divider).toBeGreaterThan(all.findIndex((row) => /^[\s›]*\/clear\s/.test(row)));
    expect(all[divider + 1]).toMatch(/^\s*\/clearmine\s+clear this extension's notes \[extui-notes\]/);
    tui.press("ctrl+u");
    // Filtered: both /dup commands, the shadowed one under its qualified name.
    tui.type("/dup");
    await tui.waitFor(() => screenHas(tui, /^[\s›]*\/extui-twin:dup\s/), "the filtered popup");
    expect(screenHas(tui, /^[\s›]*\/dup\s+the notes dup \[extui-notes\]/)).toBe(true);
    expect(screenHas(tui, /^[\s›]*\/extui-twin:dup\s+the twin dup \[extui-twin\]/)).toBe(true);
    tui.press("ctrl+u");

    await run(tui, "/extui-twin:dup");
    await tui.waitForText("[extui-twin] dup from twin");
    await run(tui, "/dup");
    await tui.waitForText("[extui-notes] dup from notes");
    await run(tui, "/extui-notes:dup");
    await tui.waitFor(() => rowsWith(tui.screen.all(), "[extui-notes] dup from notes").length === 2, "the holder's qualified name to run it");
    await run(tui, "/nobody:dup");
    await tui.waitForText("unknown command /nobody:dup");
  }, TEST_MS);
});

describe("/reload-ext", () => {
  test("failures stay in the chat until a clean reload; the status goes after 5 s; tools and the prompt chain are rebuilt; the session goes on", async () => {
    const broken = brokenExtension();
    env.server.enqueue({ type: "text", text: "first answer" }, { type: "text", text: "second answer" });
    // The project-local "broken" extension starts only in a trusted project (issue 15): trusted for this run.
    const tui = await startChat(env, { args: ["--ext", notesDir, "--trust"] });
    await tui.waitForText("extension load errors", "screen");
    await tui.waitForText('extension "broken" failed to load: exited before hello (exit status 3)', "screen");
    // The multi-line message keeps its line breaks.
    expect(screenHas(tui, /^\s+directory: .*\.zot\/extensions\/broken$/)).toBe(true);
    expect(statusTags(tui)).toContain("extension failed: broken");
    await waitForCommands(tui, ["disp"]);

    await run(tui, "first");
    await tui.waitForText("first answer");
    expect(requestTexts(env.server.requests[0])).not.toContain("failed to load");
    expect(systemPrompt(0)).not.toContain("failed to load");
    expect(systemPrompt(0)).toContain("[mark: v1]");
    expect(requestToolNames(env.server.requests[0])).toContain("notes_tool");
    const firstPid = notesEvents().find((entry) => entry.event === "session_start")?.pid;

    writeFileSync(join(notesDir, "tool.txt"), "notes_tool_two\n");
    writeFileSync(join(notesDir, "mark.txt"), "v2\n");
    await run(tui, "/reload-ext");
    const summary = "reloaded: 1 stopped, 1 loaded (1 ready), 1 error(s)";
    // The temporary status: the summary and the error (in red) above the editor, the chat's copy held back meanwhile.
    await tui.waitFor(() => rowsWith(tui.screen.screen(), summary).length === 2, "the reload status under the chat's summary line");
    expect(screenHas(tui, "extension load errors")).toBe(false);
    expect(tui.raw()).toMatch(/\x1b\[31m[^\n]*extension "broken" failed to load/);
    // After 5 s the status goes and the failures show in the chat again.
    await tui.waitFor(() => rowsWith(tui.screen.screen(), summary).length === 1 && screenHas(tui, "extension load errors"), "the status to dismiss itself");
    expect(screenHas(tui, 'extension "broken" failed to load')).toBe(true);

    await run(tui, "second");
    await tui.waitForText("second answer");
    expect(systemPrompt(1)).toContain("[mark: v2]");
    expect(systemPrompt(1)).not.toContain("[mark: v1]");
    const tools = requestToolNames(env.server.requests[1]);
    expect(tools).toContain("notes_tool_two");
    expect(tools).not.toContain("notes_tool");
    // The conversation went on in the same session, with nothing of the failures in it.
    const sessions = env.sessionFiles();
    expect(sessions.length).toBe(1);
    const saved = readFileSync(sessions[0]!, "utf8");
    expect(saved).toContain("first");
    expect(saved).toContain("second");
    expect(saved).not.toContain("failed to load");
    // The old process saw no session_end; the new one gets nothing replayed (no session_start, no earlier prompt): only the new prompt.
    const events = notesEvents();
    expect(events.filter((entry) => entry.pid === firstPid).map((entry) => entry.event)).toEqual(["session_start", "user_prompt_submit"]);
    const later = events.filter((entry) => entry.pid !== firstPid);
    expect(later.map((entry) => [entry.event, entry.text])).toEqual([["user_prompt_submit", "second"]]);

    rmSync(broken, { recursive: true, force: true });
    await run(tui, "/reload-ext");
    await tui.waitForText("reloaded: 1 stopped, 1 loaded (1 ready)");
    await tui.waitFor(() => !screenHas(tui, "extension load errors") && !screenHas(tui, "failed to load"), "a clean reload to clear the failures");
    await tui.waitFor(() => !statusTags(tui).includes("extension failed"), "the failed tag to go");
  }, TEST_MS);

  test("/clear removes the failures from the chat", async () => {
    brokenExtension();
    const tui = await startChat(env, { env: { ZOT_TRUST: "1" } });
    await tui.waitForText("extension load errors", "screen");
    await run(tui, "/clear");
    await tui.waitForText("conversation cleared", "screen");
    await tui.waitFor(() => !screenHas(tui, "extension load errors") && !screenHas(tui, "failed to load"), "/clear to drop the failures");
  }, TEST_MS);
});
