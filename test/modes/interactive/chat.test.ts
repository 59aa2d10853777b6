/**
 * The chat model: agent events become committed scrollback lines (once, in
 * order) and a live region for what still runs: streamed markdown, thinking,
 * tool cards (streaming in, running with live bash output, done, error,
 * blocked by an extension), hidden and replaced messages, aborted turns.
 */
import { describe, expect, test } from "bun:test";
import type { AgentEvent } from "../../../src/agent/events.ts";
import { createTheme } from "../../../src/tui/index.ts";
import { Chat } from "../../../src/modes/interactive/chat.ts";

function setup(options: { hold?: boolean } = {}) {
  const committed: string[] = [];
  let now = 1_000;
  const chat = new Chat({
    theme: createTheme(false),
    commit: (lines) => committed.push(...lines.map((line) => Bun.stripANSI(line))),
    width: () => 60,
    now: () => now,
    holdText: () => options.hold === true,
  });
  const send = (...events: AgentEvent[]): void => {
    for (const event of events) chat.event(event);
  };
  const live = (): string => chat.renderLive(60).map((line) => Bun.stripANSI(line)).join("\n");
  return { chat, committed, send, live, tick: (ms: number) => (now += ms), text: () => committed.join("\n") };
}

const time = "2025-01-01T00:00:00Z";
const message = (text: string): AgentEvent => ({ type: "assistant_message", content: [{ type: "text", text }], time });

describe("chat model", () => {
  test("user lines commit at once; assistant text streams live and is committed once when delivered", () => {
    const { chat, send, committed, live, text } = setup();
    chat.user("hello there");
    expect(text()).toContain("› hello there");
    send({ type: "turn_start", step: 1 }, { type: "assistant_start" }, { type: "text_delta", delta: "First line" });
    expect(chat.activity()).toEqual({ kind: "streaming" });
    expect(live() + text()).toContain("First line");
    send({ type: "text_delta", delta: " of the answer." }, message("First line of the answer."), { type: "turn_end", stop: "end" });
    expect(live()).toBe("");
    expect(committed.filter((line) => line.includes("First line of the answer."))).toHaveLength(1);
    expect(chat.activity()).toBeUndefined();
  });

  test("a long answer reaches scrollback while it is still streaming", () => {
    const { send, committed } = setup();
    send({ type: "turn_start", step: 1 }, { type: "assistant_start" });
    for (let i = 1; i <= 40; i++) send({ type: "text_delta", delta: `Paragraph number ${i}.\n\n` });
    expect(committed.join("\n")).toContain("Paragraph number 1.");
    expect(committed.join("\n")).toContain("Paragraph number 30.");
  });

  test("an extension guard holds the text (neither committed nor shown live); a replacement is what gets shown and committed", () => {
    const { send, text, live } = setup({ hold: true });
    send({ type: "turn_start", step: 1 }, { type: "assistant_start" });
    for (let i = 1; i <= 10; i++) send({ type: "text_delta", delta: `secret ${i}\n\n` });
    expect(text()).not.toContain("secret");
    expect(live()).not.toContain("secret");
    send(message("redacted by the guard"), { type: "turn_end", stop: "end" });
    expect(text()).toContain("redacted by the guard");
    expect(text()).not.toContain("secret");
  });

  test("a hidden message is dropped at turn end, with the extension's reason shown; an aborted stream is kept as it stands", () => {
    const hidden = setup({ hold: true });
    hidden.send(
      { type: "turn_start", step: 1 },
      { type: "assistant_start" },
      { type: "text_delta", delta: "blocked words" },
      { type: "assistant_hidden", reason: "not for your eyes", by: "guard" },
      { type: "turn_end", stop: "end" },
    );
    expect(hidden.text() + hidden.live()).not.toContain("blocked words");
    expect(hidden.text() + hidden.live()).toContain("[guard] hid the assistant's message: not for your eyes");

    const aborted = setup();
    aborted.send({ type: "turn_start", step: 1 }, { type: "assistant_start" }, { type: "text_delta", delta: "partial answer" }, { type: "turn_end", stop: "aborted" });
    expect(aborted.text()).toContain("partial answer");
    expect(aborted.live()).toBe("");
  });

  test("thinking streams dimmed before the text and ends when the text starts", () => {
    const { chat, send, text, live } = setup();
    send({ type: "turn_start", step: 1 }, { type: "assistant_start" }, { type: "thinking_delta", delta: "pondering" });
    expect(chat.activity()).toEqual({ kind: "thinking" });
    expect(live() + text()).toContain("pondering");
    send({ type: "text_delta", delta: "answer" }, message("answer"), { type: "turn_end", stop: "end" });
    const all = text();
    expect(all.indexOf("pondering")).toBeGreaterThanOrEqual(0);
    expect(all.indexOf("pondering")).toBeLessThan(all.indexOf("answer"));
  });

  test("a tool card appears as the call streams in, runs with live output and elapsed time, then commits once", () => {
    const { chat, send, text, live, tick } = setup();
    send({ type: "turn_start", step: 1 }, { type: "assistant_start" }, { type: "tool_use_start", id: "t1", name: "bash" });
    expect(live()).toContain("bash");
    send({ type: "tool_use_args", id: "t1", delta: '{"command": "npm te' });
    expect(live()).toContain("npm te");
    send(
      { type: "tool_use_args", id: "t1", delta: 'st"}' },
      { type: "tool_use_end", id: "t1" },
      { type: "assistant_message", content: [{ type: "tool_call", id: "t1", name: "bash", arguments: '{"command":"npm test"}' }], time },
      { type: "tool_call", id: "t1", name: "bash", args: { command: "npm test" } },
      { type: "turn_end", stop: "tool_use" },
      { type: "tool_start", id: "t1" },
    );
    expect(chat.activity()).toEqual({ kind: "tools", names: ["bash"], since: 1_000, queued: 0 });
    tick(4_000);
    send({ type: "tool_progress", id: "t1", text: "line 1\nline 2\n" });
    expect(live()).toContain("npm test");
    expect(live()).toContain("line 2");
    expect(live()).toContain("4s");
    expect(text()).not.toContain("npm test");
    send({ type: "tool_result", id: "t1", is_error: false, content: [{ type: "text", text: "$ npm test\nline 1\nline 2\n[exit 0]" }], status: "completed" });
    expect(live()).toBe("");
    expect(text().match(/npm test/g)).toHaveLength(1);
    expect(text()).toContain("[exit 0]");
    expect(text()).toContain("✓");
    expect(chat.toolOutputs().join("\n")).toContain("line 2");
  });

  test("toolRevision moves when what toolOutputs returns changes, and only then", () => {
    const { chat, send } = setup();
    let revision = chat.toolRevision;
    const moved = (): boolean => {
      const was = revision;
      revision = chat.toolRevision;
      return revision !== was;
    };
    send({ type: "turn_start", step: 1 }, { type: "tool_use_start", id: "t1", name: "bash" });
    expect(moved()).toBe(true);
    let outputs = chat.toolOutputs().join("\n");
    // Argument deltas that leave the preview as it was (no key argument parses yet), a guard, a text delta: nothing to re-read.
    send({ type: "tool_use_args", id: "t1", delta: '{"comm' }, { type: "tool_use_args", id: "t1", delta: "an" });
    send({ type: "text_delta", delta: "x" });
    expect(chat.toolOutputs().join("\n")).toBe(outputs);
    expect(moved()).toBe(false);
    send({ type: "tool_call", id: "t1", name: "bash", args: { command: "npm test" } });
    expect(moved()).toBe(true);
    send({ type: "tool_guard", id: "t1", waiting: true });
    expect(moved()).toBe(false);
    send({ type: "tool_progress", id: "t1", text: "line 1\n" });
    expect(moved()).toBe(true);
    outputs = chat.toolOutputs().join("\n");
    expect(outputs).toContain("line 1");
    send({ type: "tool_result", id: "t1", is_error: false, content: [{ type: "text", text: "done" }], status: "completed" });
    expect(moved()).toBe(true);
    expect(chat.toolOutputs().join("\n")).not.toBe(outputs);
    expect(chat.unfinishedTools()).toEqual([]);
  });

  test("a blocked call names the extension and the reason; a failed one is an error", () => {
    const { send, text } = setup();
    send(
      { type: "turn_start", step: 1 },
      { type: "tool_call", id: "b", name: "bash", args: { command: "rm -rf /" } },
      { type: "tool_call", id: "f", name: "read", args: { path: "missing.txt" } },
      { type: "turn_end", stop: "tool_use" },
      { type: "tool_result", id: "b", is_error: true, content: [{ type: "text", text: "no deleting" }], status: "blocked", details: { blocked_by: "guard" } },
    );
    expect(text()).toContain("blocked by guard");
    expect(text()).toContain("no deleting");
    expect(text()).not.toContain("missing.txt");
    send({ type: "tool_result", id: "f", is_error: true, content: [{ type: "text", text: "ENOENT" }], status: "failed" });
    expect(text()).toContain("error");
    expect(text().indexOf("rm -rf")).toBeLessThan(text().indexOf("missing.txt"));
  });

  test("while a call's guards are consulted the card says checking and the activity is the guard", () => {
    const { chat, send, live } = setup();
    send({ type: "turn_start", step: 1 }, { type: "tool_call", id: "g", name: "bash", args: { command: "ls" } }, { type: "turn_end", stop: "tool_use" });
    send({ type: "tool_guard", id: "g", waiting: true });
    expect(chat.activity()).toEqual({ kind: "guard", names: ["bash"] });
    expect(live()).toContain("checking");
    send({ type: "tool_guard", id: "g", waiting: false });
    expect(chat.activity()).toEqual({ kind: "queued", names: ["bash"] });
    expect(live()).not.toContain("checking");
    send({ type: "tool_start", id: "g" });
    expect(chat.activity()).toEqual({ kind: "tools", names: ["bash"], since: 1_000, queued: 0 });
  });

  test("calls of a step wait queued until their tool starts; each clock runs from its tool_start to its result", () => {
    const { chat, send, live, text, tick } = setup();
    const box = (command: string): string => live().split("\n").find((row) => row.includes(command)) ?? "";
    const output = (): string => chat.toolOutputs().join("\n");
    send(
      { type: "turn_start", step: 1 },
      { type: "tool_call", id: "a", name: "bash", args: { command: "sleep 3; echo A" } },
      { type: "tool_call", id: "b", name: "bash", args: { command: "date; echo B" } },
      { type: "turn_end", stop: "tool_use" },
    );
    // Announced, not started: queued, no clock, not running.
    tick(2_000);
    expect(box("sleep 3")).toMatch(/queued ─╮$/);
    expect(box("date; echo B")).toMatch(/queued ─╮$/);
    expect(chat.activity()).toEqual({ kind: "queued", names: ["bash", "bash"] });
    expect(output()).toContain("● bash · queued  date; echo B\n(not started yet)");
    expect(chat.runningTools()).toEqual([]);

    send({ type: "tool_start", id: "a" });
    expect(chat.activity()).toEqual({ kind: "tools", names: ["bash"], since: 3_000, queued: 1 });
    expect(chat.runningTools()).toEqual(["bash"]);
    tick(2_500);
    expect(box("sleep 3")).toMatch(/2s ─╮$/);
    expect(box("date; echo B")).toMatch(/queued ─╮$/);
    expect(output()).toContain("● bash · running…  sleep 3; echo A");
    expect(output()).toContain("● bash · queued  date; echo B");
    tick(500);
    send({ type: "tool_result", id: "a", is_error: false, content: [{ type: "text", text: "$ sleep 3; echo A\nA\n[exit 0]  Took 3.0s" }], status: "completed" });
    expect(text()).toContain("✓ 3.0s");

    // B starts when A is done and takes 40 ms: no time shown, not A's 3 s.
    send({ type: "tool_start", id: "b" });
    expect(box("date; echo B")).toMatch(/0s ─╮$/);
    tick(40);
    send({ type: "tool_result", id: "b", is_error: false, content: [{ type: "text", text: "$ date; echo B\nB\n[exit 0]  Took 0.0s" }], status: "completed" });
    const row = text().split("\n").find((line) => line.includes("date; echo B")) ?? "";
    expect(row).toMatch(/─ ✓ ─╮$/);
    expect(output()).toContain("● bash · finished after 3.0s  sleep 3; echo A");
    expect(output()).toContain("● bash · finished  date; echo B");
  });

  test("a finished call's time has tenths below 10 s, whole seconds above", () => {
    const times = [1_900, 9_960, 12_345].map((ms) => {
      const { send, text, tick } = setup();
      send({ type: "turn_start", step: 1 }, { type: "tool_call", id: "t", name: "bash", args: { command: "work" } }, { type: "tool_start", id: "t" });
      tick(ms);
      send({ type: "tool_result", id: "t", is_error: false, content: [{ type: "text", text: "ok" }], status: "completed" });
      return /✓ (\S+)/.exec(text())?.[1];
    });
    expect(times).toEqual(["1.9s", "10s", "12s"]);
  });

  test("a call that never starts (blocked by its guard, unknown tool) is never shown running and has no time", () => {
    const { chat, send, live, text, tick } = setup();
    send(
      { type: "turn_start", step: 1 },
      { type: "tool_call", id: "b", name: "bash", args: { command: "rm -rf /" } },
      { type: "tool_call", id: "u", name: "nope", args: {} },
      { type: "turn_end", stop: "tool_use" },
      { type: "tool_guard", id: "b", waiting: true },
    );
    expect(chat.activity()).toEqual({ kind: "guard", names: ["bash"] });
    tick(6_000);
    expect(live()).not.toMatch(/\ds ─╮/);
    send({ type: "tool_guard", id: "b", waiting: false });
    send({ type: "tool_result", id: "b", is_error: true, content: [{ type: "text", text: "denied" }], status: "blocked" });
    expect(chat.activity()).toEqual({ kind: "queued", names: ["nope"] });
    expect(live()).toMatch(/nope.*queued ─╮/);
    tick(2_000);
    send({ type: "tool_result", id: "u", is_error: true, content: [{ type: "text", text: 'unknown tool "nope"' }], status: "failed" });
    expect(text()).toMatch(/rm -rf \/.*─ blocked ─╮/);
    expect(text()).toMatch(/nope.*─ ✗ error ─╮/);
    expect(chat.toolOutputs().join("\n")).toContain("● nope · failed  {}\n");
    expect(chat.activity()).toBeUndefined();
  });

  test("lines wait behind a running tool card so nothing overtakes it", () => {
    const { chat, send, text } = setup();
    send({ type: "turn_start", step: 1 }, { type: "tool_call", id: "t", name: "bash", args: { command: "sleep 1" } });
    chat.warn("a note while it runs");
    expect(text()).not.toContain("a note while it runs");
    send({ type: "tool_result", id: "t", is_error: false, content: [{ type: "text", text: "ok" }] });
    expect(text().indexOf("sleep 1")).toBeLessThan(text().indexOf("a note while it runs"));
  });

  test("a call that streamed in but never ran is shown cancelled; settle() finishes what is left", () => {
    const { chat, send, text, live } = setup();
    send({ type: "turn_start", step: 1 }, { type: "tool_use_start", id: "x", name: "write" }, { type: "turn_end", stop: "aborted" });
    expect(text()).toContain("cancelled");
    send({ type: "turn_start", step: 2 }, { type: "tool_call", id: "y", name: "bash", args: { command: "hang" } });
    chat.settle();
    expect(live()).toBe("");
    expect(text()).toContain("hang");
  });

  test("retries are shown; text from outside cannot drive the terminal", () => {
    const { send, text } = setup();
    send({ type: "retry", provider: "anthropic", attempt: 1, max_retries: 5, delay_ms: 30, error: "x", message: "retrying in 30 ms" } as AgentEvent);
    expect(text()).toContain("retrying in 30 ms");
    send({ type: "turn_start", step: 1 }, { type: "assistant_start" }, { type: "text_delta", delta: "evil \x1b]0;title\x07\x1b[2Jtext" }, message("evil \x1b]0;title\x07\x1b[2Jtext"));
    expect(text()).not.toContain("\x1b]0");
    expect(text()).not.toContain("[2J");
  });
});

describe("an extension's display and its clear_notes", () => {
  test("a short display stays live while it is last: its own extension's retract takes it back, another's does not", () => {
    const { chat, live, text } = setup();
    chat.display("approver", "waiting for approval of deploy");
    expect(live()).toBe("[approver] waiting for approval of deploy");
    expect(text()).toBe("");
    expect(chat.retract("other")).toBe(false);
    expect(live()).toContain("waiting for approval");
    expect(chat.retract("approver")).toBe(true);
    expect(live()).toBe("");
    expect(text()).toBe("");
  });

  test("anything that follows, or settle() at the end, puts it in scrollback for good", () => {
    const { chat, live, text } = setup();
    chat.display("approver", "status one");
    chat.user("next prompt");
    expect(text()).toContain("[approver] status one");
    expect(live()).toBe("");
    expect(chat.retract("approver")).toBe(false);
    chat.display("approver", "status two");
    chat.settle();
    expect(text()).toContain("[approver] status two");
    expect(chat.retract("approver")).toBe(false);
  });

  test("a long display is an answer: it goes to scrollback whole at once", () => {
    const { chat, live, text } = setup();
    chat.display("todos", Array.from({ length: 12 }, (_, i) => `item ${i + 1}`).join("\n"));
    expect(live()).toBe("");
    expect(text()).toContain("item 12");
    expect(chat.retract("todos")).toBe(false);
    expect(text()).toContain("item 1\n");
  });
});
