/**
 * Tool calls on the chat screen end to end (dist/zot in a real PTY): bash
 * output streams into the tool's box while the command runs (the first line
 * is on screen while the command still waits for a file the test creates;
 * the second appears once it exists), the finished call shows each output
 * line once and the model receives the whole output; Esc during a running
 * command stops the turn and the command long before it would end.
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
});
