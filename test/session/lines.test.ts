import { afterAll, expect, test } from "bun:test";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { peekRowType, readLines, type LineReadOptions, type SessionLine } from "../../src/session/lines.ts";
import { removeTempDirs, tempDir } from "../support/temp.ts";

afterAll(removeTempDirs);

function linesOf(content: string, options: LineReadOptions = {}): SessionLine[] {
  const path = join(tempDir(), "f.jsonl");
  writeFileSync(path, content);
  const fd = openSync(path, "r");
  const seen: SessionLine[] = [];
  try {
    readLines(fd, options, (line) => {
      seen.push(line);
    });
  } finally {
    closeSync(fd);
  }
  return seen;
}

test("lines across chunk boundaries, CRLF trimmed, blank lines skipped but numbered, an unterminated last line", () => {
  const seen = linesOf("alpha-long-line\r\n\n  \nbeta\ngamma", { chunkBytes: 4 });
  expect(seen.map((s) => [s.line, s.text, s.terminated])).toEqual([
    [1, "alpha-long-line", true],
    [4, "beta", true],
    [5, "gamma", false],
  ]);
  expect(seen.map((s) => [s.start, s.end])).toEqual([[0, 17], [21, 26], [26, 31]]);
});

test("a line over the limit is skipped unbuffered, keeping its prefix; reading can start mid-file", () => {
  const long = `{"type":"message","pad":"${"x".repeat(500)}"}`;
  const seen = linesOf(`short\n${long}\nafter\n`, { maxLineBytes: 100, chunkBytes: 64 });
  expect(seen.map((s) => s.text)).toEqual(["short", undefined, "after"]);
  expect(peekRowType(seen[1]?.prefix ?? "")).toBe("message");
  expect(linesOf("one\ntwo\nthree\n", { from: 4, firstLine: 2 }).map((s) => [s.line, s.text])).toEqual([[2, "two"], [3, "three"]]);
});

test("multi-byte UTF-8 split across chunks decodes intact", () => {
  expect(linesOf("héllo ✓ wörld\n", { chunkBytes: 3 }).map((s) => [s.text, s.prefix])).toEqual([["héllo ✓ wörld", "héllo ✓ wörld"]]);
});

test("peekRowType reads only a leading type field", () => {
  expect(peekRowType('{"type":"usage","usage":{}}')).toBe("usage");
  expect(peekRowType(' { "type" : "meta" }')).toBe("meta");
  expect(peekRowType('{"message":{},"type":"message"}')).toBeUndefined();
  expect(peekRowType("not json")).toBeUndefined();
});
