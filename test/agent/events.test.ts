import { describe, expect, test } from "bun:test";
import { toJsonEventLine, type AgentEvent } from "../../src/agent/index.ts";
import { harness } from "./fixtures.ts";
import { reply, text, toolCall, usage } from "./scripted-client.ts";

const TIME = "2025-01-02T03:04:05.000Z";

describe("toJsonEventLine", () => {
  test("simple events keep their fields, type first, one line with a newline", () => {
    const cases: [AgentEvent, string][] = [
      [{ type: "turn_start", step: 2 }, '{"type":"turn_start","step":2}\n'],
      [{ type: "assistant_start" }, '{"type":"assistant_start"}\n'],
      [{ type: "text_delta", delta: "hi\nthere" }, '{"type":"text_delta","delta":"hi\\nthere"}\n'],
      [{ type: "tool_use_start", id: "c1", name: "read" }, '{"type":"tool_use_start","id":"c1","name":"read"}\n'],
      [{ type: "tool_use_args", id: "c1", delta: '{"pa' }, '{"type":"tool_use_args","id":"c1","delta":"{\\"pa"}\n'],
      [{ type: "tool_use_end", id: "c1" }, '{"type":"tool_use_end","id":"c1"}\n'],
      [{ type: "tool_call", id: "c1", name: "read", args: { path: "a.go" } }, '{"type":"tool_call","id":"c1","name":"read","args":{"path":"a.go"}}\n'],
      [{ type: "tool_progress", id: "c1", text: "50%" }, '{"type":"tool_progress","id":"c1","text":"50%"}\n'],
      [{ type: "turn_end", stop: "end" }, '{"type":"turn_end","stop":"end"}\n'],
      [{ type: "turn_end", stop: "error", error: "nope" }, '{"type":"turn_end","stop":"error","error":"nope"}\n'],
      [{ type: "done" }, '{"type":"done"}\n'],
      [{ type: "error", message: "boom" }, '{"type":"error","message":"boom"}\n'],
    ];
    for (const [event, line] of cases) expect(toJsonEventLine(event)).toBe(line);
  });

  test("escapes <, >, & and line separators like Go's encoder", () => {
    const line = toJsonEventLine({ type: "text_delta", delta: "a<b>&c\u2028d\u2029" });
    expect(line).toBe('{"type":"text_delta","delta":"a\\u003cb\\u003e\\u0026c\\u2028d\\u2029"}\n');
    expect(JSON.parse(line)).toEqual({ type: "text_delta", delta: "a<b>&c\u2028d\u2029" });
  });

  test("content blocks: image bytes without data, parsed tool args, thinking omitted", () => {
    const line = toJsonEventLine({
      type: "assistant_message",
      time: TIME,
      content: [
        { type: "thinking", thinking: "hmm", signature: "sig" },
        { type: "reasoning", id: "r1", summary: "s" },
        { type: "text", text: "see" },
        { type: "image", mime_type: "image/png", data: "aGVsbG8=" },
        { type: "tool_call", id: "c1", name: "bash", arguments: '{"command":"ls"}' },
        { type: "tool_call", id: "c2", name: "bash", arguments: "" },
      ],
    });
    expect(line).toBe(
      '{"type":"assistant_message","content":[{"type":"text","text":"see"},' +
        '{"type":"image","mime_type":"image/png","bytes":5},' +
        '{"type":"tool_call","id":"c1","name":"bash","args":{"command":"ls"}},' +
        '{"type":"tool_call","id":"c2","name":"bash","args":{}}],' +
        `"time":"${TIME}"}\n`,
    );
  });

  test("tool_result blocks and events; UI-only fields are not written", () => {
    const blockLine = toJsonEventLine({
      type: "user_message",
      time: TIME,
      content: [
        {
          type: "tool_result",
          call_id: "c1",
          is_error: true,
          content: [
            { type: "text", text: "bad" },
            { type: "image", mime_type: "image/jpeg", data: "AAAA" },
          ],
        },
      ],
    });
    expect(blockLine).toBe(
      '{"type":"user_message","content":[{"type":"tool_result","call_id":"c1","is_error":true,' +
        '"content":[{"type":"text","text":"bad"},{"type":"image","mime_type":"image/jpeg","bytes":3}]}],' +
        `"time":"${TIME}"}\n`,
    );
    const eventLine = toJsonEventLine({
      type: "tool_result",
      id: "c1",
      is_error: false,
      content: [{ type: "text", text: "ok" }],
      status: "completed",
      details: { path: "/x" },
    });
    expect(eventLine).toBe('{"type":"tool_result","id":"c1","is_error":false,"content":[{"type":"text","text":"ok"}]}\n');
  });

  test("usage lines carry the turn and the cumulative totals", async () => {
    const h = harness([reply([toolCall("c1", "nope", {})], "tool_use", usage(10, 2, 0.5, 3, 4)), reply([text("x")], "end", usage(1, 1, 0.25))]);
    await h.session.prompt("u");
    const lines = h.events.filter((e) => e.type === "usage").map(toJsonEventLine);
    expect(JSON.parse(lines[1] ?? "")).toEqual({
      type: "usage",
      input: 1,
      output: 1,
      cache_read: 0,
      cache_write: 0,
      cost_usd: 0.25,
      cumulative: { input: 11, output: 3, cache_read: 3, cache_write: 4, cost_usd: 0.75 },
    });
    expect(lines[0]).toStartWith('{"type":"usage","input":10,"output":2,"cache_read":3,"cache_write":4,"cost_usd":0.5,"cumulative":');
  });

  test("a whole prompt serialises to one parseable line per event", async () => {
    const h = harness([reply([text("<b>bold</b> & more")])]);
    await h.session.prompt("format <this>");
    const lines = h.events.map(toJsonEventLine);
    for (const line of lines) {
      expect(line.endsWith("\n")).toBe(true);
      expect(line.slice(0, -1)).not.toContain("\n");
      expect(line).not.toMatch(/[<>&]/);
      JSON.parse(line);
    }
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ type: "user_message", content: [{ type: "text", text: "format <this>" }] });
  });
});
