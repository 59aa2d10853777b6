/** A resumed conversation replays into scrollback as it looked live; a huge one only its last part. */
import { describe, expect, test } from "bun:test";
import type { Message } from "../../../src/providers/types.ts";
import { createTheme } from "../../../src/tui/index.ts";
import { Chat } from "../../../src/modes/interactive/chat.ts";
import { replayConversation } from "../../../src/modes/interactive/replay.ts";

const time = "2025-01-01T00:00:00Z";
const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }], time });

function chatInto(lines: string[]): Chat {
  return new Chat({ theme: createTheme(false), commit: (out) => lines.push(...out.map((line) => Bun.stripANSI(line))), width: () => 70, now: () => 0 });
}

describe("resume replay", () => {
  test("prompts, answers and tool calls with their results, in order, nothing left live", () => {
    const lines: string[] = [];
    const chat = chatInto(lines);
    const left = replayConversation(chat, [
      user("what is in data.txt?"),
      { role: "assistant", content: [{ type: "text", text: "Let me look." }, { type: "tool_call", id: "c1", name: "read", arguments: '{"path":"data.txt"}' }], time },
      { role: "tool", content: [{ type: "tool_result", call_id: "c1", is_error: false, content: [{ type: "text", text: "forty-two" }] }], time },
      { role: "assistant", content: [{ type: "text", text: "It says **forty-two**." }], time },
    ]);
    expect(left).toBe(0);
    const text = lines.join("\n");
    const order = ["› what is in data.txt?", "Let me look.", "read data.txt", "forty-two", "It says"].map((part) => text.indexOf(part));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(chat.renderLive(70)).toEqual([]);
  });

  test("a call that was cancelled replays as cancelled, not as an error", () => {
    const lines: string[] = [];
    const chat = chatInto(lines);
    replayConversation(chat, [
      user("run it"),
      { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "bash", arguments: '{"command":"sleep 20"}' }], time },
      { role: "tool", content: [{ type: "tool_result", call_id: "c1", is_error: true, content: [{ type: "text", text: "$ sleep 20\n\n[exit -1]  cancelled; process group killed" }] }], time },
    ]);
    const card = lines.filter((line) => line.includes("bash sleep 20")).join("\n");
    expect(card).toContain("cancelled");
    expect(card).not.toContain("error");
  });

  test("a huge session shows its last part and says how many earlier messages are not shown", () => {
    const lines: string[] = [];
    const messages: Message[] = [];
    for (let i = 0; i < 1000; i++) {
      messages.push(user(`question ${i}`), { role: "assistant", content: [{ type: "text", text: `answer ${i}` }], time });
    }
    const left = replayConversation(chatInto(lines), messages, 100);
    expect(left).toBe(1900);
    expect(lines[0]).toContain("1900 earlier message(s) of this session not shown");
    expect(lines.join("\n")).toContain("answer 999");
    expect(lines.join("\n")).not.toContain("question 949");
    expect(lines.join("\n")).toContain("question 950");
  });
});
