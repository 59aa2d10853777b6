import { describe, expect, test } from "bun:test";
import { peekTopLevel } from "../../src/ext/frame-peek.ts";

describe("peekTopLevel (frames too deep to parse)", () => {
  test("finds type, id and name at the top level only, past nested values and escaped strings", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    expect(peekTopLevel(`{"type":"register_tool","x":${deep},"name":"deep"}`)).toEqual({ type: "register_tool", name: "deep" });
    expect(peekTopLevel(`{"content":[{"type":"text","id":"inner","name":"no"}],"note":"a \\"quoted\\" }{ text","id":"tool-7","type":"tool_result","x":${deep}}`)).toEqual({ type: "tool_result", id: "tool-7" });
    expect(peekTopLevel(`{"id": 42, "type" : "tool_result", "extra": ${deep}}`)).toEqual({ id: "42", type: "tool_result" });
    expect(peekTopLevel(`{"type":{"nested":"tool_result"},"x":${deep}}`)).toEqual({});
  });

  test("garbage, arrays, unterminated strings and long values give nothing or what was read", () => {
    expect(peekTopLevel(`[${"[".repeat(300)}`)).toEqual({});
    expect(peekTopLevel(`{"type":"tool_result","id":"unterminated`)).toEqual({ type: "tool_result" });
    expect(peekTopLevel(`{"type":"${"t".repeat(1000)}","id":"x"}`)).toEqual({ id: "x" });
    expect(peekTopLevel("")).toEqual({});
  });
});
