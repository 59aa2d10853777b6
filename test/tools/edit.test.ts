import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compactDiff } from "../../src/tools/diff.ts";
import { createEditTool } from "../../src/tools/index.ts";
import { cleanupTempDirs, makeContext, tempDir, textOf } from "./helpers.ts";

afterAll(cleanupTempDirs);

const edit = createEditTool();

function numbered(count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
}

function setup(content: string, name = "f.txt"): { dir: string; file: string } {
  const dir = tempDir();
  const file = join(dir, name);
  writeFileSync(file, content);
  return { dir, file };
}

describe("edit: applying", () => {
  test("a single edit replaces the text and returns a compact diff with 3 context lines", async () => {
    const { dir, file } = setup(numbered(20));
    const outcome = await edit.execute({ path: "f.txt", edits: [{ oldText: "line 10\n", newText: "LINE TEN\n" }] }, makeContext(dir));
    expect(outcome.isError).toBe(false);
    expect(readFileSync(file, "utf8")).toBe(numbered(20).replace("line 10\n", "LINE TEN\n"));
    expect(textOf(outcome)).toBe([" line 7", " line 8", " line 9", "-line 10", "+LINE TEN", " line 11", " line 12", " line 13"].join("\n"));
    expect(outcome.details).toMatchObject({ edits: 1, first_changed_line: 10, lines_added: 1, lines_removed: 1 });
  });

  test("multiple edits are matched against the original and shown as separate hunks", async () => {
    const { dir, file } = setup(numbered(30));
    // Applied sequentially, edit 1's newText would make edit 2's oldText ambiguous.
    const outcome = await edit.execute(
      {
        path: "f.txt",
        edits: [
          { oldText: "line 25\n", newText: "line 3\n" },
          { oldText: "line 3\n", newText: "third\n" },
        ],
      },
      makeContext(dir),
    );
    expect(outcome.isError).toBe(false);
    expect(readFileSync(file, "utf8")).toBe(numbered(30).replace("line 3\n", "third\n").replace("line 25\n", "line 3\n"));
    expect(textOf(outcome)).toBe(
      [
        " line 1",
        " line 2",
        "-line 3",
        "+third",
        " line 4",
        " line 5",
        " line 6",
        "...",
        " line 22",
        " line 23",
        " line 24",
        "-line 25",
        "+line 3",
        " line 26",
        " line 27",
        " line 28",
      ].join("\n"),
    );
  });

  test("nearby edits share one hunk; two edits on the same line work", async () => {
    const { dir, file } = setup("alpha beta gamma\nnext\n");
    const outcome = await edit.execute(
      { path: "f.txt", edits: [{ oldText: "gamma", newText: "GAMMA" }, { oldText: "alpha", newText: "ALPHA" }] },
      makeContext(dir),
    );
    expect(readFileSync(file, "utf8")).toBe("ALPHA beta GAMMA\nnext\n");
    expect(textOf(outcome)).toBe(["-alpha beta gamma", "+ALPHA beta GAMMA", " next"].join("\n"));
  });

  test("CRLF line endings and a UTF-8 BOM are preserved", async () => {
    const { dir, file } = setup("\uFEFFfirst\r\nsecond\r\nthird\r\n");
    const outcome = await edit.execute(
      { path: "f.txt", edits: [{ oldText: "second\nthird", newText: "2nd\nand more\nthird" }] },
      makeContext(dir),
    );
    expect(outcome.isError).toBe(false);
    expect(readFileSync(file)).toEqual(Buffer.from("\uFEFFfirst\r\n2nd\r\nand more\r\nthird\r\n"));
    expect(textOf(outcome)).not.toContain("\r");
    expect(textOf(outcome)).toBe([" first", "-second", "+2nd", "+and more", " third"].join("\n"));
  });

  test("oldText given with CRLF matches a CRLF file", async () => {
    const { dir, file } = setup("a\r\nb\r\n");
    await edit.execute({ path: "f.txt", edits: [{ oldText: "a\r\nb", newText: "c\r\nd" }] }, makeContext(dir));
    expect(readFileSync(file, "utf8")).toBe("c\r\nd\r\n");
  });

  test("no temp files are left behind", async () => {
    const { dir } = setup("x\n");
    await edit.execute({ path: "f.txt", edits: [{ oldText: "x", newText: "y" }] }, makeContext(dir));
    expect(readdirSync(dir)).toEqual(["f.txt"]);
  });
});

describe("edit: refusals leave the file untouched", () => {
  const cases: { name: string; edits: unknown; error: string }[] = [
    { name: "not found", edits: [{ oldText: "line 1\n", newText: "x" }, { oldText: "nope", newText: "x" }], error: "edit 2: oldText not found in src/x.ts" },
    { name: "ambiguous", edits: [{ oldText: "dup", newText: "x" }], error: "edit 1: oldText matches 2 times (must be unique) in src/x.ts; include more surrounding text" },
    { name: "empty oldText", edits: [{ oldText: "", newText: "x" }], error: "edit 1: oldText must not be empty (in src/x.ts)" },
    { name: "identical", edits: [{ oldText: "line 1", newText: "line 1" }], error: "edit 1: oldText and newText are identical (in src/x.ts)" },
    {
      name: "overlap",
      edits: [{ oldText: "line 1\nline 2", newText: "a" }, { oldText: "line 2\ndup", newText: "b" }],
      error: "edits 1 and 2 overlap in src/x.ts; merge them into one edit",
    },
    { name: "no edits", edits: [], error: 'edit: field "edits": must contain at least one edit' },
    { name: "bad edit shape", edits: [{ oldText: "a" }], error: 'edit: field "edits.0.newText": expected a string' },
  ];
  for (const { name, edits, error } of cases) {
    test(name, async () => {
      const original = "line 1\nline 2\ndup\ndup\n";
      const dir = tempDir();
      const file = join(dir, "src", "x.ts");
      await Bun.write(file, original);
      const outcome = await edit.execute({ path: "src/x.ts", edits }, makeContext(dir));
      expect(outcome.isError).toBe(true);
      expect(textOf(outcome)).toBe(error);
      expect(readFileSync(file, "utf8")).toBe(original);
    });
  }

  test("a missing file", async () => {
    const dir = tempDir();
    const outcome = await edit.execute({ path: "gone.ts", edits: [{ oldText: "a", newText: "b" }] }, makeContext(dir));
    expect(textOf(outcome)).toBe("gone.ts: no such file or directory");
  });
});

describe("compactDiff", () => {
  test("interleaves small blocks with an LCS and stays local in huge files", () => {
    const original = "a\nb\nc\nd\n";
    const diff = compactDiff(original, [{ start: 0, end: 7, text: "a\nB\nc\nD" }]);
    expect(diff.text).toBe([" a", "-b", "+B", " c", "-d", "+D"].join("\n"));

    const big = numbered(200_000);
    const at = big.indexOf("line 150000\n");
    const started = performance.now();
    const local = compactDiff(big, [{ start: at, end: at + 5, text: "LINE" }]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(local.text.split("\n")).toHaveLength(8);
    expect(local.firstChangedLine).toBe(150000);
  });

  test("insertion at the start and deletion at the end of the file", () => {
    expect(compactDiff("x\ny\n", [{ start: 0, end: 1, text: "new\nx" }]).text).toBe(["+new", " x", " y"].join("\n"));
    expect(compactDiff("x\ny\n", [{ start: 2, end: 4, text: "" }]).text).toBe([" x", "-y"].join("\n"));
  });
});
