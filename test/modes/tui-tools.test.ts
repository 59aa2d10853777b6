/**
 * Tool calls on the chat screen end to end (dist/zot in a real PTY): bash
 * output streams into the tool's box while the command runs (the first line
 * is on screen while the command still waits for a file the test creates;
 * the second appears once it exists), the finished call shows each output
 * line once and the model receives the whole output; Esc during a running
 * command stops the turn and the command long before it would end; the
 * Ctrl+O view opened while a command runs follows its output (at the
 * bottom it sticks to the bottom, scrolled up it keeps its place) and says
 * when the call finished; of two bash calls in one step the second waits
 * `queued` (box, status bar, Ctrl+O) until the first is done, and each box's
 * time is its own call's.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsSent, type ModeEnv } from "./helpers.ts";
import { TEST_MS, busy, descendants, expectNoClears, occurrences, rowsWith, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

describe("tool calls", () => {
  test("bash output appears in the tool box while the command runs", async () => {
    // printf with %s: the output lines do not occur in the command text itself.
    const command = "printf 'first-%s\\n' output-line; while [ ! -e go.flag ]; do sleep 0.05; done; printf 'second-%s\\n' output-line";
    env.server.enqueue(
      { type: "tool_calls", text: "Running the check.", calls: [{ name: "bash", arguments: { command } }] },
      { type: "text", text: "The check printed two lines." },
    );
    const tui = await startChat(env);
    tui.type("run the check");
    tui.press("enter");

    // The command cannot have ended: it waits for go.flag, which does not exist yet.
    await tui.waitForText("first-output-line", "screen");
    expect(existsSync(join(env.cwd, "go.flag"))).toBe(false);
    expect(busy(tui)).toBe(true);
    expect(rowsWith(tui.screen.all(), "second-output-line")).toEqual([]);
    // The box names the tool and its key argument.
    expect(rowsWith(tui.screen.screen(), /bash.*printf 'first-/).length).toBeGreaterThanOrEqual(1);

    writeFileSync(join(env.cwd, "go.flag"), "");
    await tui.waitForText("second-output-line");
    await tui.waitForText("The check printed two lines.");
    await waitIdle(tui);

    const all = tui.screen.all();
    // The running box was redrawn in place, never written into scrollback again and again.
    expect(occurrences(all, "first-output-line")).toBe(1);
    expect(occurrences(all, "second-output-line")).toBe(1);
    const result = [...toolResultsSent(env.server.requests[1]).values()][0] ?? "";
    expect(result).toContain("first-output-line");
    expect(result).toContain("second-output-line");
    expectNoClears(tui);
  }, TEST_MS);

  test("Esc while a command runs stops the turn and the command", async () => {
    const command = "printf 'long-command-%s\\n' started; sleep 60; printf 'long-command-%s\\n' finished";
    env.server.enqueue({ type: "tool_calls", calls: [{ name: "bash", arguments: { command } }] });
    const tui = await startChat(env);
    tui.type("run the slow thing");
    tui.press("enter");
    await tui.waitForText("long-command-started", "screen");
    expect(busy(tui)).toBe(true);

    expect(descendants(tui.proc.pid).some((command) => command.includes("sleep 60"))).toBe(true);
    tui.press("escape");
    // Well before the 60 s sleep would end (each wait is bounded by WAIT_MS, 15 s).
    await waitIdle(tui, "the turn to stop after Esc");
    await tui.waitFor(() => !descendants(tui.proc.pid).some((command) => command.includes("sleep 60")), "the command to be killed");
    expect(rowsWith(tui.screen.all(), "long-command-finished")).toEqual([]);

    // The editor works again: the next prompt goes to the model.
    env.server.enqueue({ type: "text", text: "fresh answer after the stop" });
    tui.type("next");
    tui.press("enter");
    await tui.waitForText("fresh answer after the stop");
    await waitIdle(tui);
    expectNoClears(tui);
  }, TEST_MS);

  test("the Ctrl+O view follows a running command's output and says when it finished", async () => {
    // Each step waits for a flag file the test creates, so every check happens while the command is known to run.
    const command =
      "printf 'view-%s\\n' begin; while [ ! -e a.flag ]; do sleep 0.05; done; seq -f 'view-row-%g' 1 60; while [ ! -e b.flag ]; do sleep 0.05; done; printf 'view-%s\\n' end";
    env.server.enqueue({ type: "tool_calls", calls: [{ name: "bash", arguments: { command } }] }, { type: "text", text: "The viewer test is over." });
    const tui = await startChat(env);
    tui.type("run the long listing");
    tui.press("enter");
    await tui.waitForText("view-begin", "screen");
    tui.press("ctrl+o");
    await tui.waitForText("tool output · running: bash", "screen");
    expect(rowsWith(tui.screen.screen(), /● bash · running…/).length).toBe(1);

    // At the bottom: the view follows the output as it arrives (a snapshot would still show only view-begin).
    writeFileSync(join(env.cwd, "a.flag"), "");
    await tui.waitForText("view-row-60", "screen");
    // The view is full screen (the alternate screen): its title says the call still runs.
    expect(rowsWith(tui.screen.screen(), "tool output · running: bash").length).toBe(1);
    const range = (): string | undefined => tui.screen.screen().map((row) => /tool output.*lines (\d+–\d+) of (\d+)/.exec(row)?.[1]).find((found) => found !== undefined);

    // Scrolled up: it keeps its place while the output grows and the call finishes.
    tui.press("pageup");
    await tui.waitFor(() => rowsWith(tui.screen.screen(), "view-row-60").length === 0, "the view to scroll up");
    const place = range();
    expect(place).toBeDefined();
    writeFileSync(join(env.cwd, "b.flag"), "");
    await tui.waitForText("tool output · finished", "screen");
    expect(range()).toBe(place);
    expect(rowsWith(tui.screen.screen(), "view-end")).toEqual([]);

    // End goes back to the bottom: the rest of the output and the call's end are there.
    tui.press("end");
    await tui.waitForText("view-end", "screen");
    expect(rowsWith(tui.screen.screen(), "[exit 0]").length).toBe(1);
    tui.press("home");
    await tui.waitForText(/● bash · finished/, "screen");

    tui.press("escape");
    await tui.waitForText("The viewer test is over.");
    await waitIdle(tui);
    expectNoClears(tui);
  }, TEST_MS);
  test("the second of two bash calls waits queued until the first is done; each box's time is its own", async () => {
    const first = "until [ -e go.flag ]; do sleep 0.05; done";
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "t1", name: "bash", arguments: { command: first } }, { id: "t2", name: "bash", arguments: { command: "echo second-call" } }] },
      { type: "text", text: "Both calls are done." },
    );
    const tui = await startChat(env);
    tui.type("run both");
    tui.press("enter");
    // The first runs (its clock reaches 1s), the second waits without a clock.
    await tui.waitForText(/bash until \[ -e go\.flag.* 1s ─╮/, "screen");
    expect(rowsWith(tui.screen.screen(), /bash echo second-call.* queued ─╮/).length).toBe(1);
    expect(rowsWith(tui.screen.screen(), /running bash \(\+1 queued\) 1s/).length).toBe(1);
    tui.press("ctrl+o");
    await tui.waitForText("tool output · running: bash", "screen");
    expect(rowsWith(tui.screen.screen(), /● bash · running… {2}until/).length).toBe(1);
    expect(rowsWith(tui.screen.screen(), /● bash · queued {2}echo second-call/).length).toBe(1);
    expect(rowsWith(tui.screen.screen(), "(not started yet)").length).toBe(1);
    tui.press("ctrl+o");
    await tui.waitFor(() => rowsWith(tui.screen.screen(), "tool output").length === 0, "the view to close");

    writeFileSync(join(env.cwd, "go.flag"), "");
    await tui.waitForText("Both calls are done.");
    await waitIdle(tui);
    const all = tui.screen.all();
    // The first took over a second (tenths); the second took well under one: no time, not the first's.
    expect(rowsWith(all, /bash until \[ -e go\.flag.*─ ✓ \d+\.\ds ─╮/).length).toBe(1);
    expect(rowsWith(all, /bash echo second-call.*─ ✓ ─╮/).length).toBe(1);
    expectNoClears(tui);
  }, TEST_MS);
});
