/**
 * Themes and the original's small commands on the chat screen, end to end
 * (dist/zot in a real PTY, xterm.js as the screen): auto asks the terminal
 * its background (OSC 11) and a light answer picks the light theme, a late
 * answer is never typed into the editor, ZOT_THEME decides without asking,
 * NO_COLOR leaves no SGR on the screen (not even the model's), a theme-only
 * extension's theme is offered by /theme, chosen, remembered in config.json
 * and used at the next start, and a broken theme.json is reported naming
 * file and slot; /skills lists and shows skills; /jail and /unjail switch
 * the confinement (the tag follows, the next tool call obeys); /btw answers
 * a side question from the conversation without recording anything; /help
 * lists every command.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_COMMANDS } from "../../src/modes/interactive/commands.ts";
import { type TuiPty } from "../support/tui-pty.ts";
import { requestTexts, toolResultsSent, type ModeEnv } from "./helpers.ts";
import { TEST_MS, rowsWith, squeezed, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

const DARK_MUTED = "\x1b[90m";
const LIGHT_MUTED = "\x1b[38;5;243m";
const OSC11_QUERY = "\x1b]11;?";
const SGR = /\x1b\[[0-9;:]*m/;

/** The editor's row: the last row of the screen that starts with the prompt. */
function editorRow(tui: TuiPty): string | undefined {
  return tui.screen.screen().filter((row) => row.startsWith("›")).at(-1);
}

function writeTheme(dir: string, theme: unknown): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: "solar", version: "1.0.0" }));
  writeFileSync(join(dir, "theme.json"), typeof theme === "string" ? theme : JSON.stringify(theme));
}

describe("themes", () => {
  test("auto: a light background (OSC 11 answer) picks the light theme; no answer keeps dark", async () => {
    const light = await startChat(env, {
      env: { ZOT_THEME_QUERY_MS: "10000" },
      answer: (chunk) => (chunk.includes(OSC11_QUERY) ? "\x1b]11;rgb:ffff/ffff/ffff\x1b\\" : undefined),
    });
    await waitIdle(light, "the editor");
    expect(light.raw()).toContain(OSC11_QUERY);
    expect(light.raw()).toContain(LIGHT_MUTED);
    expect(light.raw()).not.toContain(DARK_MUTED);
    expect(editorRow(light)?.trim()).toBe("›");
    await light.stop();

    const dark = await startChat(env, { env: { ZOT_THEME_QUERY_MS: "10000" } });
    await waitIdle(dark, "the editor");
    expect(dark.raw()).toContain(OSC11_QUERY);
    expect(dark.raw()).toContain(DARK_MUTED);
    expect(dark.raw()).not.toContain(LIGHT_MUTED);
  }, TEST_MS);

  test("a late OSC 11 answer is consumed, never typed into the editor", async () => {
    const tui = await startChat(env);
    await waitIdle(tui, "the editor");
    tui.type("ab");
    tui.type("\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\");
    tui.type("\x1b]11;rgb:ffff/ffff/ffff\x07");
    tui.type("cd");
    await tui.waitFor(() => editorRow(tui)?.includes("abcd"), "abcd in the editor");
    expect(editorRow(tui)?.trim()).toBe("› abcd");
  }, TEST_MS);

  test("ZOT_THEME=light decides without asking the terminal", async () => {
    const tui = await startChat(env, { env: { ZOT_THEME: "light" } });
    await waitIdle(tui, "the editor");
    expect(tui.raw()).toContain(LIGHT_MUTED);
    expect(tui.raw()).not.toContain(OSC11_QUERY);
  }, TEST_MS);

  test("NO_COLOR: nothing on the screen carries SGR, not even a tool's coloured output", async () => {
    const command = "printf '\\033[31mred words\\033[0m\\n'";
    for (const noColor of ["1", "", undefined]) {
      env.server.enqueue({ type: "tool_calls", calls: [{ id: "c1", name: "bash", arguments: { command } }] }, { type: "text", text: "done now" });
      const tui = await startChat(env, { env: { NO_COLOR: noColor } });
      tui.type("hi");
      tui.press("enter");
      await tui.waitForText("done now");
      await waitIdle(tui);
      expect(tui.raw()).toContain("red words");
      if (noColor === "1") expect(tui.raw().match(SGR)).toBeNull();
      // Without NO_COLOR (or with it empty) the tool's own colour reaches the screen: the check can fail.
      else expect(tui.raw()).toContain("\x1b[31mred words");
      await tui.stop();
    }
  }, TEST_MS);

  test("a theme-only extension: /theme offers it, Enter uses and remembers it, the next start uses it; never spawned", async () => {
    writeTheme(join(env.cwd, ".zot", "extensions", "solar"), { name: "solarized", description: "solarized dark", colors: { muted: 244, accent: 33 } });
    const tui = await startChat(env, { env: { ZOT_THEME_QUERY_MS: "10000" } });
    await waitIdle(tui, "the editor");
    tui.type("/theme");
    tui.press("enter");
    await tui.waitForText("solarized dark [solar]", "screen");
    expect(rowsWith(tui.screen.screen(), "built-in, for light backgrounds")).toHaveLength(1);
    tui.type("solar");
    tui.press("enter");
    await tui.waitForText("theme: solarized, remembered in config.json");
    await tui.waitFor(() => tui.raw().includes("\x1b[38;5;244m"), "the status bar in the theme's muted colour");
    expect(JSON.parse(readFileSync(join(env.home, "config.json"), "utf8"))).toEqual({ theme: "solarized" });
    expect(existsSync(join(env.home, "logs", "ext-solar.log"))).toBe(false);
    await tui.stop();

    const again = await startChat(env);
    await waitIdle(again, "the editor");
    expect(again.raw()).toContain("\x1b[38;5;244m");
    expect(again.raw()).not.toContain(OSC11_QUERY);
  }, TEST_MS);

  test("a broken theme.json is reported naming the file and the slot; zot still runs", async () => {
    const dir = join(env.cwd, ".zot", "extensions", "solar");
    writeTheme(dir, { colors: { accent: 300 } });
    const tui = await startChat(env);
    const expected = squeezed([`${join(dir, "theme.json")}: colors.accent: expected an xterm-256 index (0-255) or "#rrggbb", got 300`]);
    await tui.waitFor(() => squeezed(tui.screen.all()).includes(expected), "the error naming file and slot");
    await waitIdle(tui, "the editor");
  }, TEST_MS);

  test("zot ext doctor reports a theme.json that does not validate (file and slot) and exits 1", async () => {
    const dir = join(env.cwd, ".zot", "extensions", "solar");
    writeTheme(dir, { colors: { acent: 3 } });
    const bad = await env.run(["ext", "doctor"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`✗ ${join(dir, "theme.json")}: colors.acent: unknown colour slot`);
    writeTheme(dir, { colors: { accent: 3 } });
    const good = await env.run(["ext", "doctor"]);
    expect(good.stdout).toContain("no problems found");
    expect(good.code).toBe(0);
  }, TEST_MS);
});

describe("commands", () => {
  test("/skills lists the loaded skills, Enter shows one, Esc goes back then closes", async () => {
    const skill = join(env.cwd, ".zot", "skills", "deploy");
    mkdirSync(skill, { recursive: true });
    writeFileSync(join(skill, "SKILL.md"), "---\nname: deploy\ndescription: how to deploy this project\n---\n# Deploy\n\nRun the release script with care.\n");
    const tui = await startChat(env, { args: ["--with-skills"] });
    await waitIdle(tui, "the editor");
    tui.type("/skills");
    tui.press("enter");
    await tui.waitForText("how to deploy this project", "screen");
    expect(rowsWith(tui.screen.screen(), "write-zot-extension")).toEqual([]);
    tui.press("enter");
    await tui.waitForText("Run the release script with care.", "screen");
    tui.press("escape");
    await tui.waitFor(() => rowsWith(tui.screen.screen(), "Run the release script").length === 0 && rowsWith(tui.screen.screen(), "deploy  how to deploy").length === 1, "the list again");
    tui.press("escape");
    await tui.waitFor(() => rowsWith(tui.screen.screen(), "how to deploy this project").length === 0, "the list closed");
  }, TEST_MS);

  test("/jail confines the next tool call and shows the tag; /unjail lifts both", async () => {
    const outside = join(env.base, "outside.txt");
    writeFileSync(outside, "outside words\n");
    env.server.enqueue({ type: "tool_calls", calls: [{ id: "r1", name: "read", arguments: { path: outside } }] }, { type: "text", text: "first done" });
    env.server.enqueue({ type: "tool_calls", calls: [{ id: "r2", name: "read", arguments: { path: outside } }] }, { type: "text", text: "second done" });
    const tui = await startChat(env);
    await waitIdle(tui, "the editor");
    const tagged = (): boolean => rowsWith(tui.screen.screen(), /claude-sonnet-4-5 · .* · jailed/).length === 1;
    expect(tagged()).toBe(false);
    tui.type("/jail");
    tui.press("enter");
    await tui.waitFor(tagged, "the jailed tag");
    tui.type("read it");
    tui.press("enter");
    await tui.waitForText("first done");
    await waitIdle(tui);
    expect(toolResultsSent(env.server.requests[1]).get("r1")).toContain("is outside sandbox root");
    tui.type("/unjail");
    tui.press("enter");
    await tui.waitFor(() => !tagged(), "the tag gone");
    tui.type("read it again");
    tui.press("enter");
    await tui.waitForText("second done");
    expect(toolResultsSent(env.server.requests[3]).get("r2")).toContain("outside words");
  }, TEST_MS);

  test("/btw answers from a frozen copy of the conversation in an overlay; nothing is recorded", async () => {
    env.server.enqueue({ type: "text", text: "The capital is Paris." });
    const tui = await startChat(env);
    await waitIdle(tui, "the editor");
    tui.type("what is the capital of France?");
    tui.press("enter");
    await tui.waitForText("The capital is Paris.");
    await waitIdle(tui);
    const [session] = env.sessionFiles();
    const before = readFileSync(session!, "utf8");

    env.server.enqueue({ type: "text", text: "You asked about France.", chunks: 4, delayMs: 20 });
    tui.type("/btw what did I ask?");
    tui.press("enter");
    await tui.waitForText("You asked about France.", "screen");
    const side = requestTexts(env.server.requests[1]);
    expect(side).toContain("what is the capital of France?");
    expect(side).toContain("The capital is Paris.");
    expect(side).toContain("what did I ask?");
    tui.press("escape");
    await tui.waitFor(() => rowsWith(tui.screen.screen(), "You asked about France.").length === 0, "the overlay closed");

    env.server.enqueue({ type: "text", text: "next answer" });
    tui.type("and next");
    tui.press("enter");
    await tui.waitForText("next answer");
    await waitIdle(tui);
    const next = requestTexts(env.server.requests[2]);
    expect(next).not.toContain("what did I ask?");
    expect(next).not.toContain("You asked about France.");
    const after = readFileSync(session!, "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(after).not.toContain("what did I ask?");
    expect(after).not.toContain("You asked about France.");
  }, TEST_MS);

  test("/help lists every built-in command with its usage, and the keys", async () => {
    const tui = await startChat(env, { rows: 50 });
    await waitIdle(tui, "the editor");
    tui.type("/help");
    tui.press("enter");
    await tui.waitForText("keys:", "screen");
    const screen = tui.screen.screen();
    for (const command of BUILTIN_COMMANDS.filter((entry) => entry.hidden !== true)) {
      expect({ command: command.name, rows: screen.filter((row) => row.trimStart().startsWith(`${command.usage} `)).length }).toEqual({ command: command.name, rows: 1 });
    }
    expect(rowsWith(screen, "Ctrl+O")).not.toEqual([]);
    expect(rowsWith(screen, "pickers:")).toHaveLength(1);
  }, TEST_MS);
});
