import { describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import type { ToolResultBlock } from "../../src/providers/types.ts";
import { ABORTED_TOOL_RESULT_TEXT, loadSession, SessionWriter } from "../../src/session/index.ts";
import { assistantCalls, message, newWriter, tempHome, toolResults, userText } from "./helpers.ts";

const stub = (id: string): ToolResultBlock => ({
  type: "tool_result",
  call_id: id,
  content: [{ type: "text", text: ABORTED_TOOL_RESULT_TEXT }],
  is_error: true,
});

describe("torn and invalid lines", () => {
  test("a torn last line is dropped, the file truncated, and later appends load", () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("one"));
    writer.appendMessage(userText("two"));
    writer.close();
    const good = readFileSync(writer.path, "utf8");
    appendFileSync(writer.path, '{"type":"message","message":{"role":"user","cont');

    const loaded = loadSession(writer.path);
    expect(loaded.messages).toHaveLength(2);
    expect(loaded.warnings).toEqual([{ line: 4, message: "torn last line dropped" }]);
    expect(readFileSync(writer.path, "utf8")).toBe(good);

    const reopened = SessionWriter.openExisting(writer.path);
    reopened.appendMessage(userText("three"));
    reopened.close();
    const after = loadSession(writer.path);
    expect(after.warnings).toEqual([]);
    expect(after.messages.map((m) => m.content[0])).toEqual([
      { type: "text", text: "one" },
      { type: "text", text: "two" },
      { type: "text", text: "three" },
    ]);
  });

  test("openExisting repairs a torn tail itself before appending", () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("one"));
    writer.close();
    appendFileSync(writer.path, '{"type":"usa');
    const reopened = SessionWriter.openExisting(writer.path);
    reopened.appendMessage(userText("two"));
    reopened.close();
    const loaded = loadSession(writer.path);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.messages).toHaveLength(2);
  });

  test("a whole last line without its newline gets one, so appends stay separate", () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("one"));
    writer.close();
    writeFileSync(writer.path, readFileSync(writer.path, "utf8").replace(/\n$/, ""));
    const reopened = SessionWriter.openExisting(writer.path);
    reopened.appendMessage(userText("two"));
    reopened.close();
    const loaded = loadSession(writer.path);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.messages).toHaveLength(2);
  });

  test("unparseable and invalid middle lines are skipped with warnings and left on disk", () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("one"));
    writer.close();
    appendFileSync(writer.path, "garbage{\n");
    appendFileSync(writer.path, '{"type":"message","message":{"role":"robot","content":[],"time":""}}\n');
    appendFileSync(writer.path, '{"type":"message","message":{"role":"user","content":[{"type":"text","text":"ok"},{"type":"hologram"}],"time":""}}\n');
    const before = readFileSync(writer.path, "utf8");
    const loaded = loadSession(writer.path);
    expect(loaded.messages.map((m) => m.content)).toEqual([[{ type: "text", text: "one" }], [{ type: "text", text: "ok" }]]);
    expect(loaded.warnings.map((w) => w.line)).toEqual([3, 4, 5]);
    expect(loaded.messageRowCount).toBe(3);
    expect(loaded.messageRows).toEqual([0, 2]);
    expect(readFileSync(writer.path, "utf8")).toBe(before);
  });
});

describe("tool call pairing", () => {
  function load(...messages: ReturnType<typeof userText>[]) {
    const home = tempHome();
    const writer = newWriter(home);
    for (const msg of messages) writer.appendMessage(msg);
    writer.close();
    return loadSession(writer.path);
  }

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
