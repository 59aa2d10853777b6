/** Prompt history: per project, across runs, private, bounded, atomic, merged between runs. */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { MAX_ENTRIES, MAX_ENTRY_CHARS, PromptHistory, historyPath } from "../../../src/modes/interactive/history.ts";
import { removeTempDirs, tempDir } from "../../support/temp.ts";

afterAll(removeTempDirs);

describe("prompt history", () => {
  test("prompts persist per project across runs in a private file", async () => {
    const home = tempDir("zot-history-");
    const warnings: string[] = [];
    const first = new PromptHistory({ zotHome: home, cwd: "/p/one", warn: (m) => warnings.push(m) });
    await first.add("fix the test");
    await first.add("fix the test");
    await first.add("multi\nline");
    const again = new PromptHistory({ zotHome: home, cwd: "/p/one", warn: (m) => warnings.push(m) });
    expect(again.entries).toEqual(["fix the test", "multi\nline"]);
    expect(new PromptHistory({ zotHome: home, cwd: "/p/two", warn: () => {} }).entries).toEqual([]);
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(first.path)).mode & 0o777).toBe(0o700);
    expect(readdirSync(dirname(first.path))).toEqual([historyPath(home, "/p/one").split("/").pop() as string]);
    expect(warnings).toEqual([]);
  });

  test("two runs in one project keep both their prompts", async () => {
    const home = tempDir("zot-history-");
    const a = new PromptHistory({ zotHome: home, cwd: "/p", warn: () => {} });
    const b = new PromptHistory({ zotHome: home, cwd: "/p", warn: () => {} });
    await a.add("from a");
    await b.add("from b");
    expect(new PromptHistory({ zotHome: home, cwd: "/p", warn: () => {} }).entries).toEqual(["from a", "from b"]);
  });

  test("bounded: the newest entries, oversized prompts not kept; a corrupt file is ignored", async () => {
    const home = tempDir("zot-history-");
    const history = new PromptHistory({ zotHome: home, cwd: "/p", warn: () => {} });
    for (let i = 0; i < MAX_ENTRIES + 20; i++) void history.add(`prompt ${i}`);
    await history.add("x".repeat(MAX_ENTRY_CHARS + 1));
    await history.flush();
    const reread = new PromptHistory({ zotHome: home, cwd: "/p", warn: () => {} }).entries;
    expect(reread).toHaveLength(MAX_ENTRIES);
    expect(reread.at(-1)).toBe(`prompt ${MAX_ENTRIES + 19}`);
    writeFileSync(history.path, "{not json");
    expect(new PromptHistory({ zotHome: home, cwd: "/p", warn: () => {} }).entries).toEqual([]);
    expect(readFileSync(history.path, "utf8")).toBe("{not json");
  });

  test("a write failure is reported once and never thrown", async () => {
    const home = tempDir("zot-history-");
    writeFileSync(`${home}/history`, "a file where the directory should be");
    const warnings: string[] = [];
    const history = new PromptHistory({ zotHome: home, cwd: "/p", warn: (m) => warnings.push(m) });
    await history.add("one");
    await history.add("two");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("prompt history not saved");
    expect(history.entries).toEqual(["one", "two"]);
  });
});
