/**
 * The Ctrl+O view's title and headers follow the calls: a call the model
 * made whose tool has not started is waiting (queued, not started yet), a
 * started one runs, and the title says finished once they are done.
 */
import { expect, test } from "bun:test";
import type { AgentEvent } from "../../../src/agent/events.ts";
import { createTheme } from "../../../src/tui/index.ts";
import { Chat } from "../../../src/modes/interactive/chat.ts";
import { ToolOutputView } from "../../../src/modes/interactive/output-view.ts";

test("a call that waits to start is shown waiting, not running; the title follows what runs", () => {
  const theme = createTheme(false);
  const chat = new Chat({ theme, commit: () => {}, width: () => 80, now: () => 1_000 });
  const send = (...events: AgentEvent[]): void => {
    for (const event of events) chat.event(event);
  };
  send(
    { type: "turn_start", step: 1 },
    { type: "tool_call", id: "a", name: "bash", args: { command: "sleep 3; echo A" } },
    { type: "tool_call", id: "b", name: "read", args: { path: "notes.txt" } },
    { type: "turn_end", stop: "tool_use" },
  );
  const view = new ToolOutputView(theme, chat);
  const screen = (): string => view.render(80, 20).map((row) => Bun.stripANSI(row)).join("\n");
  expect(screen()).toContain("tool output · waiting: bash, read");
  expect(screen()).toContain("● bash · queued  sleep 3; echo A\n(not started yet)");
  expect(screen()).not.toContain("running");

  send({ type: "tool_start", id: "a" });
  expect(screen()).toContain("tool output · running: bash");
  expect(screen()).toContain("● bash · running…  sleep 3; echo A\n(no output yet)");
  expect(screen()).toContain("● read · queued  notes.txt\n(not started yet)");

  send(
    { type: "tool_result", id: "a", is_error: false, content: [{ type: "text", text: "A" }], status: "completed" },
    { type: "tool_start", id: "b" },
    { type: "tool_result", id: "b", is_error: false, content: [{ type: "text", text: "notes" }], status: "completed" },
  );
  expect(screen()).toContain("tool output · finished");
});
