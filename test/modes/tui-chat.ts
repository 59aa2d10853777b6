/**
 * Shared pieces of the chat-screen end-to-end tests (test/modes/tui-*.test.ts):
 * starting dist/zot in a PTY against a ModeEnv's stand-in model server, and
 * the few facts about the screen's look the tests rely on, kept here so a
 * change of look is one edit: the editor prompt ("› "), the busy marker (the
 * status bar's braille spinner), and the model named in the status bar;
 * the editor's row, and waiting until the `/` popup lists a command.
 * Everything else the tests assert is content (what the model said, what a
 * command printed), which does not depend on the look.
 */
import { expect } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { isAlive } from "../support/processes.ts";
import { WAIT_MS, stopAllTuis, TuiPty, type TuiStartOptions } from "../support/tui-pty.ts";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

/** Bound for one test: several waits of up to WAIT_MS each. */
export const TEST_MS = 90_000;

export const PROMPT = "›";
export const MODEL = "claude-sonnet-4-5";
/** The status bar's spinner (braille, U+2801–U+28FF) while a turn runs. */
const SPINNER = /[\u2801-\u28ff]/;

export interface ChatOptions extends Partial<Omit<TuiStartOptions, "home" | "cwd">> {
  readonly args?: readonly string[];
}

/** dist/zot in a PTY in `env`'s project dir, provider flags pointing at its model server. */
export function startChat(env: ModeEnv, options: ChatOptions = {}): Promise<TuiPty> {
  return TuiPty.start({ ...options, home: env.home, cwd: env.cwd, args: [...(options.args ?? []), ...env.providerArgs()] });
}

export function busy(tui: TuiPty): boolean {
  return tui.screen.screen().some((row) => SPINNER.test(row));
}

/** Waits until no turn runs: no spinner on screen and the editor prompt shown. */
export function waitIdle(tui: TuiPty, what = "the turn to end"): Promise<true> {
  return tui.waitFor(() => !busy(tui) && tui.screen.screen().some((row) => row.trimStart().startsWith(PROMPT)), what);
}

export function waitBusy(tui: TuiPty, what = "a turn to run (spinner)"): Promise<true> {
  return tui.waitFor(() => busy(tui), what);
}

/** Rows (of `rows`) that contain `text`. */
export function rowsWith(rows: readonly string[], text: string | RegExp): string[] {
  return rows.filter((row) => (typeof text === "string" ? row.includes(text) : text.test(row)));
}

/** The editor's row (the last screen row starting with the prompt mark). */
export function editorRow(tui: TuiPty): string {
  return tui.screen.screen().filter((row) => row.startsWith(`${PROMPT} `) || row === PROMPT).at(-1) ?? "";
}

/** Waits until the `/` popup lists `/name` (its extension has registered it), leaving the editor empty. */
export async function waitForCommand(tui: TuiPty, name: string): Promise<void> {
  // The popup filters as you type: retype until the extension has registered the command.
  const listed = (): boolean => rowsWith(tui.screen.screen(), new RegExp(`^[\\s›]*/${name}\\s`)).length > 0;
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    tui.type(`/${name}`);
    const found = await tui.waitFor(() => listed(), `the popup to list /${name}`, 1_000).catch(() => false);
    tui.press("ctrl+u");
    await tui.waitFor(() => editorRow(tui).trim() === PROMPT, "the draft to be cleared");
    if (found) return;
    if (performance.now() > deadline) throw new Error(`the popup never listed /${name}\n${tui.dump()}`);
  }
}

/** How often `text` occurs across `rows` (rows joined with "\n"). */
export function occurrences(rows: readonly string[], text: string): number {
  const joined = rows.join("\n");
  let found = 0;
  for (let at = joined.indexOf(text); at !== -1; at = joined.indexOf(text, at + text.length)) found += 1;
  return found;
}

/** No screen clear and no scrollback clear in the whole session so far (none of these tests uses /clear or Ctrl+L). */
export function expectNoClears(tui: TuiPty): void {
  const counts = tui.counts();
  expect({ screenClears: counts.screenClears, scrollbackClears: counts.scrollbackClears }).toEqual({ screenClears: 0, scrollbackClears: 0 });
  // A full reset (RIS) would wipe the screen too.
  expect(tui.raw().includes("\x1bc")).toBe(false);
}

/** All rows' text with every whitespace removed: content comparisons that do not depend on where lines wrap. */
export function squeezed(rows: readonly string[]): string {
  return rows.join("").replace(/\s+/g, "");
}

/** Command lines of the live descendants of `pid` (from /proc; empty without it). */
export function descendants(pid: number): string[] {
  const found: string[] = [];
  const visit = (parent: number): void => {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      return;
    }
    for (const task of tasks) {
      let children: string[] = [];
      try {
        children = readFileSync(`/proc/${parent}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
      } catch {
        continue;
      }
      for (const child of children.map(Number)) {
        if (!isAlive(child)) continue;
        try {
          found.push(readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0").filter(Boolean).join(" "));
        } catch {
          continue;
        }
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

/**
 * The hooks every chat-screen test file needs: a fresh ModeEnv before each
 * test (handed to `use`), every zot stopped and the env disposed after it,
 * the temp dirs removed after the file.
 */
export function useChatEnv(use: (env: ModeEnv) => void): void {
  useModeEnv(use, stopAllTuis);
}
