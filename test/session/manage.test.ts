/**
 * The session-store parts behind the /sessions picker and /session import:
 * restoredMessageCount (equal to what a resume restores, cached in the
 * index), rename and delete under the session lock, and import of a session
 * file or a --json transcript into a new session.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { indexPathFor } from "../../src/session/index-file.ts";
import {
  deleteSession,
  importSession,
  listSessions,
  loadSession,
  renameSession,
  restoredMessageCount,
  sessionDirForCwd,
  SessionError,
} from "../../src/session/index.ts";
import { removeTempDirs } from "../support/temp.ts";
import { assistantCalls, newWriter, tempHome, toolResults, userText } from "./helpers.ts";

afterAll(removeTempDirs);

describe("restoredMessageCount", () => {
  test("is what a resume restores, not the file's rows: compaction, stubs, orphans, empty rows", () => {
    const home = tempHome();
    const writer = newWriter(home);
    for (let i = 0; i < 6; i++) writer.appendMessage(userText(`old ${i}`));
    writer.appendCompaction({ summary: userText("summary"), keptFrom: 4 });
    writer.appendMessage(assistantCalls("unanswered")); // gets a stub result on load
    writer.appendMessage(userText("next"));
    writer.appendMessage(toolResults("orphan")); // dropped on load
    writer.appendMessage({ role: "assistant", content: [], time: "" }); // skipped on load
    writer.close();
    const loaded = loadSession(writer.path, { repair: false });
    expect(loaded.messageRowCount).toBe(10);
    expect(restoredMessageCount(writer.path)).toBe(loaded.messages.length);
    expect(loaded.messages.length).toBe(6); // summary, old 4, old 5, call, stub, next
    // Cached in the index for this size; an append makes it stale.
    expect(JSON.parse(readFileSync(indexPathFor(writer.path), "utf8")).restored_messages).toBe(6);
    expect(restoredMessageCount(writer.path)).toBe(6);
  });

  test("undefined for what is not a session", () => {
    const home = tempHome();
    const path = join(home.home, "x.jsonl");
    writeFileSync(path, '{"type":"message"}\n');
    expect(restoredMessageCount(path)).toBeUndefined();
    expect(restoredMessageCount(join(home.home, "missing.jsonl"))).toBeUndefined();
  });
});

describe("rename and delete", () => {
  test("rename appends a rename row that listing shows; an empty name is refused", async () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("first prompt"));
    writer.close();
    expect(renameSession(writer.path, "  a\nnew   name ")).toBe("a new name");
    const [listed] = await listSessions(sessionDirForCwd(home.cwd, home.sessionsRoot));
    expect(listed?.title).toBe("a new name");
    expect(() => renameSession(writer.path, " \n ")).toThrow(SessionError);
  });

  test("a session another writer holds is refused (busy) for rename and delete", () => {
    const home = tempHome();
    const live = newWriter(home);
    live.appendMessage(userText("live"));
    const before = readFileSync(live.path, "utf8");
    expect(() => renameSession(live.path, "x")).toThrow(/in use by/);
    expect(() => deleteSession(live.path)).toThrow(/in use by/);
    expect(readFileSync(live.path, "utf8")).toBe(before);
    live.close();
    deleteSession(live.path);
    expect(existsSync(live.path)).toBe(false);
    expect(existsSync(indexPathFor(live.path))).toBe(false);
  });
});

describe("importSession", () => {
  test("a session file becomes a new session of this cwd: new id, no parent, rows copied, source untouched", () => {
    const home = tempHome();
    const source = newWriter({ ...home, cwd: join(home.home, "elsewhere") }, { title: "from elsewhere" });
    source.appendMessage(userText("imported question"));
    source.appendMessage(assistantCalls("c1"));
    source.appendMessage(toolResults("c1"));
    source.close();
    const bytes = readFileSync(source.path, "utf8");
    const { writer, loaded } = importSession(source.path, { cwd: home.cwd, sessionsRoot: home.sessionsRoot, provider: "openai", model: "gpt" });
    writer.close();
    expect(readFileSync(source.path, "utf8")).toBe(bytes);
    expect(loaded.messages).toHaveLength(3);
    expect(writer.meta.id).not.toBe(source.meta.id);
    expect(writer.meta.parent).toBeUndefined();
    expect(writer.meta).toMatchObject({ provider: "anthropic", model: "m-1", title: "from elsewhere" });
    expect(writer.path.startsWith(sessionDirForCwd(home.cwd, home.sessionsRoot))).toBe(true);
  });

  test("the title a rename gave the source is the import's title (the picker shows it)", () => {
    const home = tempHome();
    const source = newWriter({ ...home, cwd: join(home.home, "elsewhere") });
    source.appendMessage(userText("first question"));
    source.close();
    renameSession(source.path, "My renamed session");
    const { writer } = importSession(source.path, { cwd: home.cwd, sessionsRoot: home.sessionsRoot, provider: "anthropic", model: "m" });
    writer.close();
    expect(writer.meta.title).toBe("My renamed session");
  });

  test("a --json transcript becomes messages (tool results grouped); anything else is refused", () => {
    const home = tempHome();
    const path = join(home.home, "run.jsonl");
    const lines = [
      { type: "user_message", content: [{ type: "text", text: "q" }], time: "t" },
      { type: "turn_start", step: 1 },
      { type: "assistant_message", content: [{ type: "text", text: "calling" }, { type: "tool_call", id: "a", name: "read", args: { path: "x" } }], time: "t" },
      { type: "tool_call", id: "a", name: "read", args: { path: "x" } },
      { type: "tool_result", id: "a", is_error: false, content: [{ type: "text", text: "file x" }] },
      { type: "assistant_message", content: [{ type: "text", text: "done" }], time: "t" },
      { type: "done" },
    ];
    writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join("\n")}\nnot json\n`);
    const { writer, loaded } = importSession(path, { cwd: home.cwd, sessionsRoot: home.sessionsRoot, provider: "anthropic", model: "m" });
    writer.close();
    expect(loaded.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(loaded.messages[1]?.content[1]).toEqual({ type: "tool_call", id: "a", name: "read", arguments: '{"path":"x"}' });
    // tool_result lines have no time: the tool message takes the previous message's, never "" (which Go's time parser refuses).
    expect(loaded.messages[2]?.time).toBe("t");
    const other = join(home.home, "other.txt");
    writeFileSync(other, "hello\n");
    expect(() => importSession(other, { cwd: home.cwd, sessionsRoot: home.sessionsRoot, provider: "a", model: "m" })).toThrow(/neither a session file/);
  });
});
