/**
 * The Ctrl+O view's title and headers follow the calls: a call the model
 * made whose tool has not started is waiting (queued, not started yet), a
 * started one runs, and the title says finished once they are done.
 */
import { expect, test } from "bun:test";
import type { AgentEvent } from "../../../src/agent/events.ts";
import { createTheme } from "../../../src/tui/index.ts";
import { Chat } from "../../../src/modes/interactive/chat.ts";
import { MAX_ROWS_PER_LINE, ToolOutputView } from "../../../src/modes/interactive/output-view.ts";

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

test("a line wider than the view is wrapped onto rows, at most MAX_ROWS_PER_LINE of them, and laid out again at a new width", () => {
  const theme = createTheme(false);
  const chat = new Chat({ theme, commit: () => {}, width: () => 80, now: () => 1_000 });
  const long = `${"word ".repeat(30)}END-OF-LONG-LINE`;
  const huge = "z".repeat(100_000);
  for (const event of [
    { type: "turn_start", step: 1 },
    { type: "tool_call", id: "a", name: "bash", args: { command: "make" } },
    { type: "turn_end", stop: "tool_use" },
    { type: "tool_start", id: "a" },
    { type: "tool_result", id: "a", is_error: false, content: [{ type: "text", text: `${long}\n${huge}\nlast line` }], status: "completed" },
  ] as AgentEvent[]) chat.event(event);
  const view = new ToolOutputView(theme, chat);
  const rows = (width: number): string[] => {
    view.render(width, 40);
    view.handleKey({ kind: "key", name: "home", ctrl: false, alt: false, shift: false });
    const out: string[] = [];
    for (let page = 0; page < 100; page++) {
      const screen = view.render(width, 40).map((row) => Bun.stripANSI(row));
      out.push(...screen.slice(1, -1));
      if (screen.some((row) => row.includes("last line"))) break;
      view.handleKey({ kind: "key", name: "pagedown", ctrl: false, alt: false, shift: false });
    }
    return out;
  };
  const at60 = rows(60);
  expect(at60.join("\n")).toContain("END-OF-LONG-LINE");
  for (const row of at60) expect(Bun.stringWidth(row)).toBeLessThanOrEqual(60);
  // The 100,000-column line: MAX_ROWS_PER_LINE rows, the last one cut.
  expect(new Set(at60.filter((row) => /^z+…$/.test(row))).size).toBe(1);
  const total = Number(/of (\d+)/.exec(Bun.stripANSI(view.render(60, 40)[0] ?? ""))?.[1]);
  expect(total).toBeGreaterThan(MAX_ROWS_PER_LINE);
  expect(total).toBeLessThan(MAX_ROWS_PER_LINE + 20);
  expect(rows(30).join("\n")).toContain("END-OF-LONG-LINE");
});
