import { describe, expect, test } from "bun:test";
import { MAX_JSON_DEPTH, describeJsonProblem, jsonTextTooDeep, parseJson, valueTooDeep } from "../../src/common/json.ts";

const nestedArrays = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);

describe("parseJson", () => {
  test("parses ordinary documents", () => {
    expect(parseJson('{"a":[1,{"b":"c"}]}')).toEqual({ ok: true, value: { a: [1, { b: "c" }] } });
  });

  test("accepts exactly the limit and refuses one level more", () => {
    expect(parseJson(nestedArrays(MAX_JSON_DEPTH)).ok).toBe(true);
    const deeper = parseJson(nestedArrays(MAX_JSON_DEPTH + 1));
    expect(deeper).toEqual({ ok: false, problem: { kind: "too_deep", limit: MAX_JSON_DEPTH } });
    if (!deeper.ok) expect(describeJsonProblem(deeper.problem)).toBe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  });

  test("100,000 levels are refused without touching the stack", () => {
    const text = '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000);
    expect(parseJson(text)).toEqual({ ok: false, problem: { kind: "too_deep", limit: MAX_JSON_DEPTH } });
  });

  test("brackets inside strings, escaped quotes included, do not count", () => {
    const text = JSON.stringify({ s: `\\"${"[".repeat(1000)}"` });
    expect(jsonTextTooDeep(text, 3)).toBe(false);
    expect(parseJson(text, 3).ok).toBe(true);
  });

  test("a string ending in an escaped backslash closes where it should", () => {
    const text = JSON.stringify(["a\\", [[[[]]]]]);
    expect(jsonTextTooDeep(text, 4)).toBe(true);
    expect(jsonTextTooDeep(text, 5)).toBe(false);
  });

  test("syntax errors are values", () => {
    const result = parseJson("{nope");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem.kind).toBe("syntax");
  });
});

describe("valueTooDeep", () => {
  test("walks iteratively and stops past the limit", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(valueTooDeep(deep, 128)).toBe(true);
    expect(valueTooDeep({ a: [{ b: [] }] }, 4)).toBe(false);
    expect(valueTooDeep({ a: [{ b: [] }] }, 3)).toBe(true);
    expect(valueTooDeep("text", 0)).toBe(false);
  });
});
