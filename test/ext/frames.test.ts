import { describe, expect, test } from "bun:test";
import { decodeInboundFrame } from "../../src/ext/frames.ts";

describe("inbound frames", () => {
  test("valid frames decode; unknown fields are tolerated; numeric ids become strings", () => {
    const hello = decodeInboundFrame('{"type":"hello","name":"x","future":true}');
    expect(hello.ok && hello.frame.type === "hello" && hello.frame.capabilities).toEqual([]);
    const result = decodeInboundFrame('{"type":"tool_result","id":7,"content":[{"type":"text","text":"hi","extra":1}]}');
    expect(result.ok && result.frame.type === "tool_result" && result.frame.id).toBe("7");
  });

  test("problems are typed values naming the frame and field", () => {
    const notJson = decodeInboundFrame("nope");
    expect(!notJson.ok && notJson.problem.kind).toBe("not_json");
    const unknown = decodeInboundFrame('{"type":"nope"}');
    expect(!unknown.ok && unknown.problem).toEqual({ kind: "unknown_type", frameType: "nope" });
    const invalid = decodeInboundFrame('{"type":"register_tool","name":5}');
    expect(!invalid.ok && invalid.problem.kind).toBe("invalid");
    expect(!invalid.ok && invalid.problem.kind === "invalid" && invalid.problem.detail).toContain('"name"');
    const array = decodeInboundFrame("[1]");
    expect(!array.ok && array.problem.kind).toBe("not_object");
  });

  test("command_response defaults to noop; subscribe lists default to empty", () => {
    const response = decodeInboundFrame('{"type":"command_response","id":"a"}');
    expect(response.ok && response.frame.type === "command_response" && response.frame.action).toBe("noop");
    const sub = decodeInboundFrame('{"type":"subscribe","events":["turn_start"]}');
    expect(sub.ok && sub.frame.type === "subscribe" && sub.frame.intercept).toEqual([]);
  });
});
