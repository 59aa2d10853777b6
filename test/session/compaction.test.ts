import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync } from "node:fs";
import type { Message } from "../../src/providers/types.ts";
import { loadSession, SessionError, SessionWriter } from "../../src/session/index.ts";
import { assistantCalls, newWriter, tempHome, toolResults, userText } from "./helpers.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

function summary(text: string): Message {
  return { role: "user", content: [{ type: "text", text: `## Context Summary (compacted)\n\n${text}` }], time: "t", meta: { compaction: "true", tokens_before: "1234" } };
}

const texts = (messages: readonly Message[]) =>
  messages.map((m) => (m.content[0]?.type === "text" ? m.content[0].text : m.content[0]?.type));

describe("compaction rows", () => {
  test("a resumed session stays compacted: summary + kept tail + later messages", () => {
    const home = tempHome();
    const writer = newWriter(home);
    for (let i = 0; i < 6; i++) writer.appendMessage(userText(`m${i}`));
    writer.appendCompaction({ summary: summary("S1"), keptFrom: 4, tokensBefore: 1234 });
    writer.appendMessage(userText("m6"));
    writer.close();

    const loaded = loadSession(writer.path);
    expect(loaded.compacted).toBe(true);
    expect(texts(loaded.messages)).toEqual(["## Context Summary (compacted)\n\nS1", "m4", "m5", "m6"]);
    expect(loaded.messages[0]?.meta).toEqual({ compaction: "true", tokens_before: "1234" });
    expect(loaded.messageRows).toEqual([null, 4, 5, 6]);
    expect(loaded.messageRowCount).toBe(7);
  });

  test("a second compaction after reopening replaces the first", () => {
    const home = tempHome();
    const writer = newWriter(home);
    for (let i = 0; i < 4; i++) writer.appendMessage(userText(`m${i}`));
    writer.appendCompaction({ summary: summary("S1"), keptFrom: 2 });
    writer.close();

    const resumed = loadSession(writer.path);
    const reopened = SessionWriter.openExisting(writer.path);
    reopened.appendMessage(userText("m4"));
    reopened.appendMessage(userText("m5"));
    // The agent keeps the last 2 messages of its transcript: rows 4 and 5.
    const tail = [...resumed.messageRows, 4, 5].slice(-2);
    reopened.appendCompaction({ summary: summary("S2"), keptFrom: tail[0] ?? 0 });
    reopened.appendMessage(userText("m6"));
    reopened.close();

    expect(texts(loadSession(writer.path).messages)).toEqual(["## Context Summary (compacted)\n\nS2", "m4", "m5", "m6"]);
  });

  test("a kept tail starting at a tool message loses the orphaned results", () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("go"));
    writer.appendMessage(assistantCalls("a"));
    writer.appendMessage(toolResults("a"));
    writer.appendMessage(userText("after"));
    writer.appendCompaction({ summary: summary("S"), keptFrom: 2 });
    writer.close();
    const loaded = loadSession(writer.path);
    expect(texts(loaded.messages)).toEqual(["## Context Summary (compacted)\n\nS", "after"]);
    expect(loaded.warnings.some((w) => w.message.includes("orphan"))).toBe(true);
  });

  test("keptFrom beyond the written rows is refused by the writer and clamped on load", () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("m0"));
    expect(() => writer.appendCompaction({ summary: summary("S"), keptFrom: 5 })).toThrow(SessionError);
    writer.close();
    const line = JSON.stringify({ type: "compaction", message: summary("S"), kept_from: 9 });
    appendFileSync(writer.path, `${line}\n`);
    const loaded = loadSession(writer.path);
    expect(texts(loaded.messages)).toEqual(["## Context Summary (compacted)\n\nS"]);
    expect(loaded.warnings.some((w) => w.message.includes("out of range"))).toBe(true);
  });
});
