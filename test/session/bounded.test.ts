/**
 * Bounded reading of sessions: the index file (summary of the first bytes,
 * only the rows after it are read; a file changed under it is read in full),
 * listing a big unindexed file in bounded memory (a child process, peak
 * RSS), the resume budget, fork, and deep or over-long lines in the listing
 * and prune paths.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { indexPathFor } from "../../src/session/index-file.ts";
import {
  forkSession,
  INDEX_REFRESH_BYTES,
  latestSession,
  listSessions,
  loadSession,
  pruneEmptySessions,
  sessionDirForCwd,
  sessionHead,
  summarizeSession,
  SessionWriter,
} from "../../src/session/index.ts";
import { runMeasured } from "../support/rss.ts";
import { removeTempDirs } from "../support/temp.ts";
import { assistantCalls, message, newWriter, tempHome, toolResults, userText, type TempHome } from "./helpers.ts";

afterAll(removeTempDirs);

const MiB = 1024 * 1024;
const usage = (cost: number) => ({ input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: cost });

function metaLine(id: string): string {
  return `${JSON.stringify({ type: "meta", meta: { id, cwd: "/p", model: "m", provider: "anthropic", started: "2024-01-01T00:00:00Z", version: "0" } })}\n`;
}

function messageLine(role: string, text: string): string {
  return `${JSON.stringify({ type: "message", message: { role, content: [{ type: "text", text }], time: "t" } })}\n`;
}

function sessionFile(home: TempHome, name: string, content: string): string {
  const dir = sessionDirForCwd(home.cwd, home.sessionsRoot);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe("the index file", () => {
  test("the writer keeps it; listing reads it plus the rows appended after it", () => {
    const home = tempHome();
    const writer = newWriter(home, { title: "named" });
    writer.appendMessage(userText("first question"));
    writer.appendUsage(usage(0.5), usage(0.5));
    writer.close();
    const index = JSON.parse(readFileSync(indexPathFor(writer.path), "utf8"));
    expect(index.summary).toMatchObject({ message_rows: 1, first_user_text: "first question", cumulative: usage(0.5) });
    expect(index.writer_pid).toBeUndefined();
    // Listing takes what the index says about the bytes it covers (a full read would find "first question").
    index.summary.first_user_text = "from the index";
    writeFileSync(indexPathFor(writer.path), JSON.stringify(index));
    expect(summarizeSession(writer.path)?.firstUserText).toBe("from the index");
    // Rows the index does not cover (the original zot appends without updating it).
    appendFileSync(writer.path, messageLine("assistant", "answer") + `${JSON.stringify({ type: "usage", usage: usage(0.25), cumulative: usage(0.75) })}\n`);
    appendFileSync(writer.path, `${JSON.stringify({ type: "rename", title: "renamed" })}\n`);
    expect(summarizeSession(writer.path)).toMatchObject({ messageCount: 2, firstUserText: "from the index", title: "renamed", cumulativeUsage: usage(0.75) });
  });

  test("an index that no longer matches its file (rewritten, truncated) is ignored", () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("original"));
    writer.close();
    const index = readFileSync(indexPathFor(writer.path), "utf8");
    writeFileSync(writer.path, metaLine("other-id") + messageLine("user", "replaced") + messageLine("assistant", "a") + messageLine("user", "b"));
    writeFileSync(indexPathFor(writer.path), index);
    expect(summarizeSession(writer.path)).toMatchObject({ id: "other-id", messageCount: 3, firstUserText: "replaced" });
    writeFileSync(writer.path, metaLine("short"));
    expect(summarizeSession(writer.path)).toMatchObject({ id: "short", messageCount: 0 });
  });

  test("a live writer writes it after a model call only once the file grew by INDEX_REFRESH_BYTES (a new file has none before)", () => {
    const home = tempHome();
    const writer = newWriter(home);
    const indexed = () => JSON.parse(readFileSync(indexPathFor(writer.path), "utf8")) as { size: number; summary: { message_rows: number } };
    // Many small model calls: no index yet (listing reads the small file whole).
    for (let i = 0; i < 50; i++) {
      writer.appendMessage(userText(`question ${i}`));
      writer.appendUsage(usage(0.01), usage(0.01 * (i + 1)));
    }
    expect(existsSync(indexPathFor(writer.path))).toBe(false);
    expect(summarizeSession(writer.path)).toMatchObject({ messageCount: 50, firstUserText: "question 0" });
    // Past the threshold the next usage row writes it.
    writer.appendMessage(userText("z".repeat(INDEX_REFRESH_BYTES)));
    writer.appendUsage(usage(0.01), usage(0.51));
    expect(indexed().summary.message_rows).toBe(51);
    const written = indexed().size;
    expect(written).toBeGreaterThan(INDEX_REFRESH_BYTES);
    // Then small calls leave it as it is until the file has grown that much again.
    for (let i = 0; i < 20; i++) {
      writer.appendMessage(userText(`more ${i}`));
      writer.appendUsage(usage(0.01), usage(0.6));
    }
    expect(indexed().size).toBe(written);
    expect(summarizeSession(writer.path)).toMatchObject({ messageCount: 71 });
    writer.close();
    expect(indexed().summary.message_rows).toBe(71);
  });

  test("a resumed session's index names its live writer's pid; a new one has no index until it closes", () => {
    const home = tempHome();
    const writer = newWriter(home);
    expect(existsSync(indexPathFor(writer.path))).toBe(false);
    writer.appendMessage(userText("kept"));
    writer.close();
    expect(JSON.parse(readFileSync(indexPathFor(writer.path), "utf8")).writer_pid).toBeUndefined();
    const { writer: resumed } = SessionWriter.resume(writer.path);
    expect(JSON.parse(readFileSync(indexPathFor(writer.path), "utf8")).writer_pid).toBe(process.pid);
    resumed.close();
    const empty = newWriter(home);
    empty.close();
    expect(existsSync(indexPathFor(empty.path))).toBe(false); // an empty session goes, and no index is left
  });
});

describe("a big unindexed session", () => {
  test("is listed in bounded memory, then indexed", async () => {
    const home = tempHome();
    const dir = sessionDirForCwd(home.cwd, home.sessionsRoot);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, "20240101-000000-b1900000.jsonl");
    const fd = openSync(path, "w");
    writeSync(fd, metaLine("big"));
    const filler = "z".repeat(MiB);
    for (let i = 0; i < 200; i++) writeSync(fd, messageLine(i % 2 === 0 ? "user" : "assistant", `${i} ${filler}`));
    closeSync(fd);
    const script = join(home.home, "list.ts");
    writeFileSync(script, `import { listSessions } from ${JSON.stringify(resolve(import.meta.dir, "../../src/session/index.ts"))};
const [s] = await listSessions(process.argv[2]);
console.log(JSON.stringify({ count: s.messageCount, first: s.firstUserText.slice(0, 3) }));`);
    const child = await runMeasured([process.execPath, script, dir]);
    expect(child.stderr).toBe("");
    expect(JSON.parse(child.stdout)).toEqual({ count: 200, first: "0 z" });
    expect(child.maxRss).toBeLessThan(150 * MiB);
    expect(existsSync(indexPathFor(path))).toBe(true);
    expect(summarizeSession(path)?.messageCount).toBe(200);
    rmSync(path);
  }, 60_000);
});

describe("the resume budget", () => {
  test("keeps the newest messages that fit, starting at a user message, and says how many rows were left out", () => {
    const home = tempHome();
    const writer = newWriter(home);
    for (let i = 0; i < 10; i++) {
      writer.appendMessage(userText(`question ${i} ${"q".repeat(200)}`));
      writer.appendMessage(assistantCalls(`c${i}`));
      writer.appendMessage(toolResults(`c${i}`));
    }
    writer.close();
    const loaded = loadSession(writer.path, { budgetBytes: 1500 });
    expect(loaded.messageRowCount).toBe(30);
    expect(loaded.messages[0]?.role).toBe("user");
    expect(loaded.messages.length).toBeLessThan(30);
    expect(loaded.messageRows[0]).toBe(30 - loaded.messages.length);
    expect(loaded.leftOutRows).toBe(30 - loaded.messages.length);
    expect(loaded.warnings.map((w) => w.message)).toEqual([
      `resumed the newest messages only: ${loaded.leftOutRows} older message row(s) since the start are beyond the 1500-byte resume budget (they stay in the file)`,
    ]);
  });

  test("after a compaction the summary stays first and the budget counts only the rows since", () => {
    const home = tempHome();
    const writer = newWriter(home);
    for (let i = 0; i < 6; i++) writer.appendMessage(userText(`old ${i} ${"o".repeat(300)}`));
    writer.appendCompaction({ summary: userText("the summary"), keptFrom: 4 });
    for (let i = 0; i < 6; i++) writer.appendMessage(userText(`new ${i} ${"n".repeat(300)}`));
    writer.close();
    const loaded = loadSession(writer.path, { budgetBytes: 1300 });
    const texts = loaded.messages.map((m) => (m.content[0]?.type === "text" ? m.content[0].text.split(" ").slice(0, 2).join(" ") : ""));
    expect(texts[0]).toBe("the summary");
    expect(texts.slice(1)).toEqual(["new 3", "new 4", "new 5"]);
    expect(loaded.messageRows).toEqual([null, 9, 10, 11]);
    expect(loaded.leftOutRows).toBe(5); // rows 4..8: kept by the compaction, beyond the budget
    expect(loaded.warnings[0]?.message).toContain("5 older message row(s) since the last compaction");
  });
});

describe("fork", () => {
  test("copies every non-meta row of a live session into a new one naming its parent", () => {
    const home = tempHome();
    const source = newWriter(home, { title: "source" });
    source.appendMessage(userText("one"));
    source.appendUsage(usage(1), usage(1));
    source.appendMessage(message("assistant", { type: "text", text: "two" }));
    source.appendCompaction({ summary: userText("summary"), keptFrom: 1 });
    source.appendMessage(userText("three"));
    const { writer, loaded } = forkSession(source.path, { cwd: home.cwd, model: "m-2", provider: "openai", sessionsRoot: home.sessionsRoot });
    expect(writer.path).not.toBe(source.path);
    expect(loaded.meta).toMatchObject({ parent: source.id, fork_point: 3, model: "m-2" });
    expect(loaded.meta.title).toBeUndefined();
    expect(loaded.messages.map((m) => m.content[0]?.type === "text" && m.content[0].text)).toEqual(["summary", "two", "three"]);
    expect(loaded.cumulativeUsage).toEqual(usage(1));
    expect(writer.appendMessage(userText("four"))).toBe(3);
    writer.close();
    source.close();
    expect(loadSession(writer.path).messages).toHaveLength(4);
  });
});

describe("deep and over-long lines in the listing and prune paths", () => {
  test("listing, --continue and prune read files holding 100,000-level lines without failing", async () => {
    const home = tempHome();
    const deep = `{"type":"usage","usage":${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}}\n`;
    const withMessage = sessionFile(home, "20240101-000001-aaaaaaaa.jsonl", metaLine("with-message") + deep + messageLine("user", "hello"));
    const empty = sessionFile(home, "20240101-000002-bbbbbbbb.jsonl", metaLine("empty") + deep);
    const deepFirst = sessionFile(home, "20240101-000003-cccccccc.jsonl", `[${"[".repeat(100_000)}${"]".repeat(100_000)}]\n` + metaLine("late-meta"));
    for (const [path, age] of [[withMessage, 3], [empty, 2], [deepFirst, 1]] as const) {
      const at = new Date(Date.now() - age * 3_600_000);
      utimesSync(path, at, at);
    }
    const dir = sessionDirForCwd(home.cwd, home.sessionsRoot);
    const listed = await listSessions(dir);
    expect(listed.map((s) => [s.id, s.messageCount])).toEqual([["late-meta", 0], ["empty", 0], ["with-message", 1]]);
    expect(sessionHead(withMessage)).toBe("messages");
    expect((await latestSession(home.cwd, home.sessionsRoot))?.path).toBe(withMessage);
    expect(await pruneEmptySessions(dir)).toEqual([deepFirst, empty].sort());
    expect(loadSession(withMessage).warnings.map((w) => w.message)).toEqual(["JSON nested deeper than 256 levels, skipped"]);
  });

  test("a line over 32 MiB is skipped with a warning but keeps its row number; a fork keeps it as an empty row", () => {
    const home = tempHome();
    const huge = messageLine("user", "h".repeat(33 * MiB));
    const path = sessionFile(home, "20240101-000004-dddddddd.jsonl", metaLine("huge") + messageLine("user", "before") + huge + messageLine("assistant", "after"));
    const loaded = loadSession(path);
    expect(loaded.messageRowCount).toBe(3);
    expect(loaded.messageRows).toEqual([0, 2]);
    expect(loaded.warnings).toEqual([{ line: 3, message: "line longer than 32 MiB, skipped" }]);
    const { writer, loaded: forked } = forkSession(path, { cwd: home.cwd, model: "m", provider: "anthropic", sessionsRoot: home.sessionsRoot });
    writer.close();
    expect(forked.meta.fork_point).toBe(3);
    expect(forked.messageRowCount).toBe(3);
    expect(forked.messageRows).toEqual([0, 2]);
    rmSync(path);
  }, 30_000);

  test("at most 50 warnings are kept per read; the rest are counted", () => {
    const home = tempHome();
    const path = sessionFile(home, "junk.jsonl", metaLine("junk") + "not json\n".repeat(120) + messageLine("user", "ok"));
    const { warnings, messages } = loadSession(path);
    expect(messages).toHaveLength(1);
    expect(warnings).toHaveLength(51);
    expect(warnings.at(-1)).toEqual({ line: 0, message: "70 more warning(s) not shown" });
  });

  test("SessionWriter.resume of a session another writer appended to (no lock, like the original zot) still counts every row", () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("ours"));
    appendFileSync(writer.path, messageLine("assistant", "theirs"));
    writer.appendMessage(userText("ours again"));
    writer.close();
    expect(existsSync(indexPathFor(writer.path))).toBe(false); // the index would be wrong: not written
    expect(summarizeSession(writer.path)?.messageCount).toBe(3);
    const { writer: again } = SessionWriter.resume(writer.path);
    expect(again.messageRowCount).toBe(3);
    again.close();
  });
});
