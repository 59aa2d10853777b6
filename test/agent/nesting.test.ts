/**
 * Tool arguments nested too deep never enter the transcript: the loop keeps
 * "{}" in the assistant message (what is persisted and sent next), the call
 * fails with an error result that says why, the tool never runs, and every
 * event stays serialisable. parseToolArguments bounds extension-originated
 * calls (call_tool, tool_prompt) the same way.
 */
import { describe, expect, test } from "bun:test";
import { toJsonEventLine, parseArgsForDisplay } from "../../src/agent/events.ts";
import { boundToolCalls, parseToolArguments } from "../../src/agent/tool-exec.ts";
import { MAX_VALUE_DEPTH } from "../../src/common/json.ts";
import type { Message } from "../../src/providers/types.ts";
import { echoTool, harness, toolResultsOf, type ToolCallLog } from "./fixtures.ts";
import { reply, text, toolCall } from "./scripted-client.ts";

const nestedArrays = (levels: number): string => "[".repeat(levels) + "]".repeat(levels);
const DEEP_ARGS = `{"text":"hi","x":${nestedArrays(100_000)}}`;

describe("parseToolArguments", () => {
  test("accepts MAX_VALUE_DEPTH levels and refuses one more, saying so", () => {
    expect(parseToolArguments(`{"x":${nestedArrays(MAX_VALUE_DEPTH - 1)}}`).ok).toBe(true);
    const refused = parseToolArguments(`{"x":${nestedArrays(MAX_VALUE_DEPTH)}}`);
    expect(refused).toEqual({
      ok: false,
      message: "invalid tool arguments: JSON nested deeper than 128 levels; the call was not run (send the arguments as a flatter JSON object)",
    });
    expect(parseToolArguments(DEEP_ARGS).ok).toBe(false);
  });

  test("malformed and non-object text keep their messages", () => {
    expect(parseToolArguments("{nope")).toMatchObject({ ok: false, message: expect.stringMatching(/^invalid tool arguments: /) });
    expect(parseToolArguments("[1]")).toEqual({ ok: false, message: "invalid tool arguments: expected a JSON object" });
  });
});

describe("boundToolCalls", () => {
  test("replaces only too-deep argument text and marks those calls refused", () => {
    const message: Message = {
      role: "assistant",
      content: [text("calling"), toolCall("c1", "echo", { text: "ok" }), toolCall("c2", "echo", DEEP_ARGS), toolCall("c3", "echo", "{bad")],
      time: "t",
    };
    const bounded = boundToolCalls(message);
    expect(bounded.message.content[1]).toBe(message.content[1]);
    expect(bounded.message.content[2]).toEqual({ type: "tool_call", id: "c2", name: "echo", arguments: "{}" });
    expect(bounded.message.content[3]).toBe(message.content[3]);
    expect(bounded.calls.map((call) => [call.id, call.arguments.length < 100, call.argumentsRefused !== undefined])).toEqual([
      ["c1", true, false],
      ["c2", true, true],
      ["c3", true, false],
    ]);
    // A message without deep arguments is returned as it was.
    const flat: Message = { role: "assistant", content: [toolCall("c1", "echo", { text: "ok" })], time: "t" };
    expect(boundToolCalls(flat).message).toBe(flat);
  });
});

test("the loop refuses deep arguments: error result, tool not run, '{}' persisted and resent, events serialisable", async () => {
  const log: ToolCallLog[] = [];
  const h = harness(
    [reply([toolCall("deep", "echo", DEEP_ARGS), toolCall("flat", "echo", { text: "fine" })]), reply([text("ok")])],
    [echoTool(log)],
  );
  expect(await h.session.prompt("go")).toEqual({ status: "done" });
  expect(log.map((entry) => entry.args)).toEqual([{ text: "fine" }]);

  const next = h.client.requests[1]?.messages ?? [];
  const assistant = next[1];
  expect(assistant?.content[0]).toEqual({ type: "tool_call", id: "deep", name: "echo", arguments: "{}" });
  const results = toolResultsOf(next[2]);
  expect(results[0]).toMatchObject({ call_id: "deep", is_error: true });
  expect(results[0]?.text).toContain("JSON nested deeper than 128 levels");
  expect(results[1]).toEqual({ call_id: "flat", is_error: false, text: "echo: fine" });

  // What persistence saw serialises, and every event does too.
  for (const entry of h.persisted) expect(JSON.stringify(entry).length).toBeLessThan(5_000);
  for (const event of h.events) {
    if (event.type === "tool_use_args") continue; // the raw text stream: a string
    expect(toJsonEventLine(event).length).toBeLessThan(5_000);
  }
});

test("parseArgsForDisplay keeps too-deep text as the raw string (e.g. a session written before the bound)", () => {
  expect(parseArgsForDisplay(DEEP_ARGS)).toBe(DEEP_ARGS);
  expect(parseArgsForDisplay('{"a":1}')).toEqual({ a: 1 });
  const line = toJsonEventLine({ type: "assistant_message", content: [toolCall("c", "echo", DEEP_ARGS)], time: "t" });
  expect(JSON.parse(line).content[0].args).toBe(DEEP_ARGS);
});
