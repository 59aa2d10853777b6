import { describe, expect, test } from "bun:test";
import { fuzzyFilter, fuzzyScore } from "../../../src/tui/widgets/fuzzy.ts";

describe("fuzzyScore / fuzzyFilter", () => {
  test("no match is undefined; an empty query matches everything", () => {
    expect(fuzzyScore("xyz", "src/main.ts")).toBeUndefined();
    expect(fuzzyScore("ts.main", "src/main.ts")).toBeUndefined();
    expect(fuzzyScore("", "anything")).toBe(0);
    expect(fuzzyScore("MAIN", "src/main.ts")).toBeDefined();
  });

  test("prefix, path-segment starts and contiguous runs rank higher", () => {
    const better = (query: string, a: string, b: string) => expect(fuzzyScore(query, a)!).toBeGreaterThan(fuzzyScore(query, b)!);
    better("mod", "model", "remodel");
    better("main", "src/main.ts", "src/domain/xmaxixnx.ts");
    better("rt", "src/render-tree.ts", "src/art.ts".replace("art", "arxt"));
    better("ed", "src/tui/editor.ts", "src/tui/widgets/box-red.ts");
    better("fb", "fooBar", "foobar");
  });

  test("fuzzyFilter keeps the best `limit`, best first, ties in input order", () => {
    const items = ["b/xa", "a", "b/a", "c/a", "zzz"];
    expect(fuzzyFilter("a", items, (s) => s, 10)).toEqual(["a", "b/a", "c/a", "b/xa"]);
    expect(fuzzyFilter("a", items, (s) => s, 2)).toEqual(["a", "b/a"]);
    expect(fuzzyFilter("", items, (s) => s, 2)).toEqual(["b/xa", "a"]);
    expect(fuzzyFilter("a", items, (s) => s, 0)).toEqual([]);
  });
});
