import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import type { Message, ToolResultBlock } from "../../src/providers/types.ts";
import { ABORTED_TOOL_RESULT_TEXT, loadSession, SessionWriter } from "../../src/session/index.ts";
import { assistantCalls, message, newWriter, tempHome, toolResults, userText } from "./helpers.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const stub = (id: string): ToolResultBlock => ({
  type: "tool_result",
  call_id: id,
  content: [{ type: "text", text: ABORTED_TOOL_RESULT_TEXT }],
  is_error: true,
});

/** A closed session file holding these messages; returns its path. */
function sessionFile(...messages: Message[]): string {
  const writer = newWriter(tempHome());
  for (const msg of messages) writer.appendMessage(msg);
  writer.close();
  return writer.path;
}

/** Reopens a damaged file, appends "two" after its one message, and expects both to load cleanly. */
function expectCleanAppend(path: string): void {
  const reopened = SessionWriter.openExisting(path);
  reopened.appendMessage(userText("two"));
  reopened.close();
  const loaded = loadSession(path);
  expect(loaded.warnings).toEqual([]);
  expect(loaded.messages).toHaveLength(2);
}

describe("torn and invalid lines", () => {
  test("a torn last line is dropped, the file truncated, and later appends load", () => {
    const path = sessionFile(userText("one"), userText("two"));
    const good = readFileSync(path, "utf8");
    appendFileSync(path, '{"type":"message","message":{"role":"user","cont');

    const loaded = loadSession(path);
    expect(loaded.messages).toHaveLength(2);
    expect(loaded.warnings).toEqual([{ line: 4, message: "torn last line dropped" }]);
    expect(readFileSync(path, "utf8")).toBe(good);

    const reopened = SessionWriter.openExisting(path);
    reopened.appendMessage(userText("three"));
    reopened.close();
    const after = loadSession(path);
    expect(after.warnings).toEqual([]);
    expect(after.messages.map((m) => m.content[0])).toEqual([
      { type: "text", text: "one" },
      { type: "text", text: "two" },
      { type: "text", text: "three" },
    ]);
  });

  test("openExisting repairs a torn tail itself before appending", () => {
    const path = sessionFile(userText("one"));
    appendFileSync(path, '{"type":"usa');
    expectCleanAppend(path);
  });

  test("a whole last line without its newline gets one, so appends stay separate", () => {
    const path = sessionFile(userText("one"));
    writeFileSync(path, readFileSync(path, "utf8").replace(/\n$/, ""));
    expectCleanAppend(path);
  });

  test("unparseable and invalid middle lines are skipped with warnings and left on disk", () => {
    const path = sessionFile(userText("one"));
    appendFileSync(path, "garbage{\n");
    appendFileSync(path, '{"type":"message","message":{"role":"robot","content":[],"time":""}}\n');
    appendFileSync(path, '{"type":"message","message":{"role":"user","content":[{"type":"text","text":"ok"},{"type":"hologram"}],"time":""}}\n');
    const before = readFileSync(path, "utf8");
    const loaded = loadSession(path);
    expect(loaded.messages.map((m) => m.content)).toEqual([[{ type: "text", text: "one" }], [{ type: "text", text: "ok" }]]);
    expect(loaded.warnings.map((w) => w.line)).toEqual([3, 4, 5]);
    expect(loaded.messageRowCount).toBe(3);
    expect(loaded.messageRows).toEqual([0, 2]);
    expect(readFileSync(path, "utf8")).toBe(before);
  });
});

describe("tool call pairing", () => {
  const load = (...messages: Message[]) => loadSession(sessionFile(...messages));

  test("missing results are merged into the following tool message", () => {
    const loaded = load(userText("go"), assistantCalls("a", "b", "c"), toolResults("b"), userText("next"));
    expect(loaded.messages).toHaveLength(4);
    expect(loaded.messages[2]?.content).toEqual([...toolResults("b").content, stub("a"), stub("c")]);
    expect(loaded.messageRows).toEqual([0, 1, 2, 3]);
    expect(loaded.warnings.some((w) => w.message.includes("2 unanswered"))).toBe(true);
  });

  test("a tool message is inserted when none follows (mid transcript and at the end)", () => {
    const loaded = load(userText("go"), assistantCalls("a"), userText("interrupted"), assistantCalls("z"));
    expect(loaded.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "assistant", "tool"]);
    expect(loaded.messages[2]?.content).toEqual([stub("a")]);
    expect(loaded.messages[5]?.content).toEqual([stub("z")]);
    expect(loaded.messageRows).toEqual([0, 1, null, 2, 3, null]);
  });

  test("orphan results are dropped, and a tool message left empty disappears", () => {
    const loaded = load(
      toolResults("ghost"),
      userText("go"),
      assistantCalls("a"),
      message("tool", ...toolResults("a").content, ...toolResults("stranger").content, ...toolResults("a").content),
      userText("again"),
      toolResults("a"),
    );
    expect(loaded.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(loaded.messages[2]?.content).toEqual(toolResults("a").content);
    expect(loaded.warnings.some((w) => w.message.includes("4 orphan"))).toBe(true);
  });

  test("a well-paired transcript is left untouched", () => {
    const messages = [userText("go"), assistantCalls("a", "b"), toolResults("b", "a"), message("assistant", { type: "text", text: "done" })];
    const loaded = load(...messages);
    expect(loaded.messages).toEqual(messages);
    expect(loaded.warnings).toEqual([]);
  });
});
