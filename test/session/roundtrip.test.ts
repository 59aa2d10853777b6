import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Message, Usage } from "../../src/providers/types.ts";
import { loadSession, SessionError, SessionWriter, sessionDirForCwd } from "../../src/session/index.ts";
import { message, newWriter, tempHome, userText } from "./helpers.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const allBlocks: Message[] = [
  message("user", { type: "text", text: "look at this\nmulti-line ✓" }, { type: "image", mime_type: "image/png", data: "iVBORw0KGgo=" }),
  message(
    "assistant",
    { type: "thinking", thinking: "hmm", signature: "sig-1" },
    { type: "redacted_thinking", data: "opaque" },
    { type: "reasoning", id: "rs_1", summary: "short", encrypted_content: "enc" },
    { type: "reasoning", summary: "summary only" },
    { type: "text", text: "reading" },
    { type: "tool_call", id: "call_1", name: "read", arguments: '{"path":"a.ts"}', origin_extension: "ext-a" },
  ),
  {
    role: "tool",
    time: "2025-01-02T03:04:06.000Z",
    meta: { note: "x" },
    content: [
      {
        type: "tool_result",
        call_id: "call_1",
        is_error: true,
        content: [{ type: "text", text: "boom" }, { type: "image", mime_type: "image/jpeg", data: "AAAA" }],
      },
    ],
  },
];

function usage(input: number, output: number, cost: number): Usage {
  return { input_tokens: input, output_tokens: output, cache_read_tokens: 1, cache_write_tokens: 2, cost_usd: cost };
}

describe("session round trip", () => {
  test("every typed block survives write and load unchanged", () => {
    const home = tempHome();
    const writer = newWriter(home);
    for (const msg of allBlocks) writer.appendMessage(msg);
    writer.close();
    const loaded = loadSession(writer.path);
    expect(loaded.messages).toEqual(allBlocks);
    expect(loaded.messageRows).toEqual([0, 1, 2]);
    expect(loaded.messageRowCount).toBe(3);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.compacted).toBe(false);
  });

  test("file lives at sessions/<sha256(cwd)[:16]>/<UTC stamp>-<id[:8]>.jsonl with meta on line 1", () => {
    const home = tempHome();
    const writer = newWriter(home, { now: new Date(Date.UTC(2024, 11, 31, 23, 5, 9)), title: "first" });
    const expectedDir = join(home.sessionsRoot, createHash("sha256").update(home.cwd).digest("hex").slice(0, 16));
    expect(dirname(writer.path)).toBe(expectedDir);
    expect(sessionDirForCwd(home.cwd, home.sessionsRoot)).toBe(expectedDir);
    expect(basename(writer.path)).toBe(`20241231-230509-${writer.id.replace(/-/g, "").slice(0, 8)}.jsonl`);
    expect(statSync(writer.path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(writer.path)).mode & 0o777).toBe(0o700);
    expect(statSync(home.sessionsRoot).mode & 0o777).toBe(0o700);
    const firstLine = JSON.parse(readFileSync(writer.path, "utf8").split("\n")[0] ?? "");
    expect(firstLine).toEqual({
      type: "meta",
      meta: { id: writer.id, cwd: home.cwd, model: "m-1", provider: "anthropic", started: "2024-12-31T23:05:09.000Z", version: "9.9.9", title: "first" },
    });
    writer.close();
  });

  test("usage rows keep per-turn and cumulative apart; the last cumulative seeds the load", () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("hi"));
    writer.appendUsage(usage(10, 5, 0.5), usage(10, 5, 0.5));
    writer.appendUsage(usage(20, 7, 0.25), usage(30, 12, 0.75));
    writer.close();
    const rows = readFileSync(writer.path, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(rows[3]).toEqual({ type: "usage", usage: usage(20, 7, 0.25), cumulative: usage(30, 12, 0.75) });
    expect(loadSession(writer.path).cumulativeUsage).toEqual(usage(30, 12, 0.75));
  });

  test("later meta rows replace earlier ones; id is never changed", () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("hi"));
    writer.appendMeta({ model: "m-2", provider: "openai" });
    writer.appendMeta({ title: "renamed" });
    writer.close();
    const { meta } = loadSession(writer.path);
    expect(meta).toMatchObject({ id: writer.id, model: "m-2", provider: "openai", title: "renamed", version: "9.9.9" });
  });

  test("close() deletes a created file with no messages, keeps one with messages", () => {
    const home = tempHome();
    const empty = newWriter(home);
    empty.appendUsage(usage(1, 1, 0), usage(1, 1, 0));
    expect(existsSync(empty.path)).toBe(true);
    expect(empty.close()).toBe(true);
    expect(existsSync(empty.path)).toBe(false);

    const used = newWriter(home);
    used.appendMessage(userText("hi"));
    expect(used.close()).toBe(false);
    expect(existsSync(used.path)).toBe(true);
    expect(() => used.appendMessage(userText("late"))).toThrow(SessionError);
  });

  test("openExisting appends after the existing rows and never deletes on close", () => {
    const home = tempHome();
    const first = newWriter(home);
    first.appendMessage(userText("one"));
    first.close();
    const reopened = SessionWriter.openExisting(first.path);
    expect(reopened.messageRowCount).toBe(1);
    expect(reopened.close()).toBe(false);
    expect(existsSync(first.path)).toBe(true);
    const again = SessionWriter.openExisting(first.path);
    expect(again.appendMessage(userText("two"))).toBe(1);
    again.close();
    expect(loadSession(first.path).messages.map((m) => m.content)).toEqual([
      [{ type: "text", text: "one" }],
      [{ type: "text", text: "two" }],
    ]);
  });

  test("missing and non-session files are SessionErrors with a kind", () => {
    const home = tempHome();
    mkdirSync(home.home, { recursive: true });
    const missing = join(home.home, "nope.jsonl");
    expect(() => loadSession(missing)).toThrow(expect.objectContaining({ kind: "not_found", code: "session.not_found" }));
    const notSession = join(home.home, "other.jsonl");
    writeFileSync(notSession, '{"type":"message","message":{"role":"user","content":[],"time":""}}\n');
    expect(() => loadSession(notSession)).toThrow(expect.objectContaining({ kind: "invalid" }));
  });

  test("files of the original zot (untyped blocks, rename rows) load", () => {
    const home = tempHome();
    mkdirSync(home.home, { recursive: true });
    const path = join(home.home, "legacy.jsonl");
    const rows = [
      { type: "meta", meta: { id: "legacy-id", cwd: "/p", model: "m", provider: "openai", started: "2024-01-01T00:00:00Z", version: "0.9" } },
      { type: "message", message: { role: "user", content: [{ text: "hi" }, { mime_type: "image/png", data: "AAAA" }], time: "t1" } },
      { type: "message", message: { role: "assistant", content: [{ summary: "thought" }, { id: "c1", name: "bash", arguments: { cmd: "ls" } }], time: "t2" } },
      { type: "message", message: { role: "tool", content: [{ call_id: "c1", content: [{ text: "out" }], is_error: false }], time: "t3" } },
      { type: "rename", title: "legacy title" },
    ];
    writeFileSync(path, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
    const loaded = loadSession(path);
    expect(loaded.meta.title).toBe("legacy title");
    expect(loaded.messages).toEqual([
      { role: "user", time: "t1", content: [{ type: "text", text: "hi" }, { type: "image", mime_type: "image/png", data: "AAAA" }] },
      { role: "assistant", time: "t2", content: [{ type: "reasoning", summary: "thought" }, { type: "tool_call", id: "c1", name: "bash", arguments: '{"cmd":"ls"}' }] },
      { role: "tool", time: "t3", content: [{ type: "tool_result", call_id: "c1", content: [{ type: "text", text: "out" }], is_error: false }] },
    ]);
  });
});
