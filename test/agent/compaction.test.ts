import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentSession, type CompactionEndInfo, type CompactionStartInfo } from "../../src/agent/index.ts";
import {
  SUMMARISER_SYSTEM_PROMPT,
  compact,
  estimateTokens,
  keptFromRow,
  serializeConversation,
  tailStart,
} from "../../src/agent/compaction.ts";
import type { CompactionPersistRecord } from "../../src/agent/types.ts";
import { ProviderError, type ContentBlock, type Message } from "../../src/providers/types.ts";
import { SessionWriter, loadSession } from "../../src/session/index.ts";
import { TEST_MODEL, TestTools, echoTool, harness } from "./fixtures.ts";
import { ScriptedClient, fail, hangUntilAbort, reply, text, toolCall, usage, type ScriptStep } from "./scripted-client.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const T = "2025-01-01T00:00:00.000Z";

function msg(role: Message["role"], ...content: ContentBlock[]): Message {
  return { role, content, time: T };
}

function result(callId: string, value: string): ContentBlock {
  return { type: "tool_result", call_id: callId, content: [{ type: "text", text: value }], is_error: false };
}

/** u1 a1 u2 a2(call c1) tool(c1) a3 u3 a4: the naive last-4 split would start on the tool message. */
function history(): Message[] {
  return [
    msg("user", text("first question"), { type: "image", mime_type: "image/png", data: "AAAA" }),
    msg("assistant", text("first answer")),
    msg("user", text("read src/app.ts")),
    msg("assistant", toolCall("c1", "read", { path: "src/app.ts" })),
    msg("tool", result("c1", "export const app = 1;")),
    msg("assistant", text("it exports app")),
    msg("user", text("now fix it")),
    msg("assistant", text("fixed")),
  ];
}

interface CompactionLog {
  readonly starts: CompactionStartInfo[];
  readonly ends: CompactionEndInfo[];
}

function compactionLog(): CompactionLog & { observer: { onCompactionStart(i: CompactionStartInfo): void; onCompactionEnd(i: CompactionEndInfo): void } } {
  const starts: CompactionStartInfo[] = [];
  const ends: CompactionEndInfo[] = [];
  return { starts, ends, observer: { onCompactionStart: (i) => starts.push(i), onCompactionEnd: (i) => ends.push(i) } };
}

function textOf(message: Message | undefined): string {
  return (message?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe("compaction", () => {
  test("the summary replaces the old part; the tail is kept and no tool call is split from its result", async () => {
    const log = compactionLog();
    const old = history();
    const h = harness([reply([text("GOAL: fix app")], "end", usage(500, 40, 0.01))], [], {
      initialMessages: old,
      compactionObserver: log.observer,
    });
    const outcome = await compact(h.session, { instructions: "focus on app.ts" });
    expect(outcome.status).toBe("completed");
    expect(outcome.summary).toBe("GOAL: fix app");
    expect(outcome.compactionId).toMatch(/^compact-\d+$/);
    expect(outcome.messageCountBefore).toBe(8);
    expect(outcome.messageCountAfter).toBe(6);
    expect(outcome.tokenEstimateBefore).toBe(estimateTokens(old));
    expect(outcome.tokenEstimateAfter).toBe(estimateTokens(h.session.messages));

    const [summary, ...tail] = h.session.messages;
    expect(summary?.role).toBe("user");
    expect(textOf(summary)).toBe("## Context Summary (compacted)\n\nGOAL: fix app");
    expect(summary?.meta).toEqual({ compaction: "true", tokens_before: String(outcome.tokenEstimateBefore) });
    // Naive start (index 4) is the tool result: the tail moves back to its call.
    expect(tail).toEqual(old.slice(3));

    // One summariser request: separate system prompt, no tools, 4096 max tokens, no reasoning.
    expect(h.client.requests).toHaveLength(1);
    const request = h.client.requests[0];
    expect(request?.system).toBe(SUMMARISER_SYSTEM_PROMPT);
    expect(request?.toolNames).toEqual([]);
    expect(request?.maxTokens).toBe(4096);
    expect(request?.reasoning).toBeUndefined();
    const sent = textOf(request?.messages[0]);
    expect(sent).toStartWith(
      "<conversation>\n--- user ---\nfirst question\n[image: image/png, 3 bytes]\n\n--- assistant ---\nfirst answer\n\n--- user ---\nread src/app.ts\n</conversation>",
    );
    for (const section of ["## Goal", "## Constraints & Preferences", "### Done", "### In Progress", "### Blocked", "## Key Decisions", "## Next Steps", "## Critical Context"]) {
      expect(sent).toContain(section);
    }
    expect(sent).toEndWith("focus on app.ts");

    // Summary usage counts toward the session's cost.
    expect(h.session.cumulativeUsage.input_tokens).toBe(500);
    expect(log.starts).toEqual([{ compactionId: outcome.compactionId, messageCount: 8, tokenEstimate: outcome.tokenEstimateBefore }]);
    expect(log.ends).toEqual([
      { compactionId: outcome.compactionId, messageCount: 6, tokenEstimate: outcome.tokenEstimateAfter, status: "completed" },
    ]);
  });

  test("serialisation covers tool calls, results and images", () => {
    const text1 = serializeConversation([
      msg("assistant", text("calling"), toolCall("c1", "bash", { command: "ls" })),
      msg("tool", { type: "tool_result", call_id: "c1", content: [{ type: "text", text: "a\nb" }], is_error: true }),
    ]);
    expect(text1).toBe('--- assistant ---\ncalling\n[tool_call bash {"command":"ls"}]\n\n--- tool ---\n[tool_result] (error) a\nb');
  });

  test("tail start never lands on a tool result or an image mirror", () => {
    const calls = [
      msg("user", text("q")),
      msg("assistant", toolCall("c1", "read", {})),
      msg("tool", result("c1", "x")),
      { ...msg("user", text("mirror")), meta: { image_mirror: "true" } },
      msg("assistant", text("done")),
    ];
    expect(tailStart(calls, 2)).toBe(1);
    expect(tailStart(calls, 1)).toBe(4);
    expect(tailStart(calls, 10)).toBe(0);
    expect(keptFromRow([null, 5, 6, null], 2)).toBe(6);
    expect(keptFromRow([3, 4, null], 2)).toBe(5);
    expect(keptFromRow([null, null], 1)).toBeUndefined();
  });

  test("compaction ids are counter based and unique", async () => {
    const h = harness([]);
    const first = await h.session.compact();
    const second = await h.session.compact();
    expect(first.compactionId).toMatch(/^compact-\d+$/);
    expect(second.compactionId).not.toBe(first.compactionId);
  });

  test("an empty transcript fails, with both callbacks", async () => {
    const log = compactionLog();
    const h = harness([], [], { compactionObserver: log.observer });
    const outcome = await h.session.compact();
    expect(outcome.status).toBe("failed");
    expect(outcome.error?.code).toBe("agent.nothing_to_compact");
    expect(outcome.messageCountBefore).toBe(0);
    expect(h.client.requests).toHaveLength(0);
    expect(log.starts).toEqual([{ compactionId: outcome.compactionId, messageCount: 0, tokenEstimate: 0 }]);
    expect(log.ends).toEqual([
      { compactionId: outcome.compactionId, messageCount: 0, tokenEstimate: 0, status: "failed", error: outcome.error },
    ]);
  });

  test("a transcript the tail covers fails without calling the model", async () => {
    const log = compactionLog();
    const h = harness([], [], { initialMessages: history().slice(0, 3), compactionObserver: log.observer });
    const outcome = await h.session.compact();
    expect(outcome.status).toBe("failed");
    expect(outcome.error?.code).toBe("agent.nothing_to_compact");
    expect(h.session.messages).toHaveLength(3);
    expect(log.ends.map((end) => end.status)).toEqual(["failed"]);
  });

  test("cancellation leaves the transcript untouched", async () => {
    const log = compactionLog();
    const h = harness([hangUntilAbort()], [], { initialMessages: history(), compactionObserver: log.observer });
    const controller = new AbortController();
    const pending = h.session.compact({ signal: controller.signal });
    expect(h.session.busy).toBe(true);
    await Promise.resolve();
    controller.abort();
    const outcome = await pending;
    expect(outcome.status).toBe("cancelled");
    expect(outcome.error).toBeUndefined();
    expect(h.session.messages).toEqual(history());
    expect(h.session.busy).toBe(false);
    expect(log.ends.map((end) => end.status)).toEqual(["cancelled"]);
  });

  test("an already aborted signal cancels before the model is called", async () => {
    const h = harness([], [], { initialMessages: history() });
    const outcome = await h.session.compact({ signal: AbortSignal.abort() });
    expect(outcome.status).toBe("cancelled");
    expect(h.client.requests).toHaveLength(0);
  });

  test("a timeout signal reports timed_out", async () => {
    const log = compactionLog();
    const h = harness([hangUntilAbort()], [], { initialMessages: history(), compactionObserver: log.observer });
    const outcome = await h.session.compact({ signal: AbortSignal.timeout(5) });
    expect(outcome.status).toBe("timed_out");
    expect(outcome.error).toBeDefined();
    expect(log.ends.map((end) => end.status)).toEqual(["timed_out"]);
  });

  test("a provider failure or an empty summary fails and keeps the transcript", async () => {
    const log = compactionLog();
    const h = harness([fail(new ProviderError("http", "anthropic: 500 overloaded", 500)), reply([text("  ")])], [], {
      initialMessages: history(),
      compactionObserver: log.observer,
    });
    const failed = await h.session.compact();
    expect(failed.status).toBe("failed");
    expect(failed.error?.code).toBe("provider.http");
    expect(failed.error?.message).toBe("anthropic: 500 overloaded");
    const empty = await h.session.compact();
    expect(empty.status).toBe("failed");
    expect(empty.error?.code).toBe("agent.empty_summary");
    expect(h.session.messages).toEqual(history());
    expect(log.ends.map((end) => [end.status, end.messageCount])).toEqual([
      ["failed", 8],
      ["failed", 8],
    ]);
  });

  test("compact() is refused while a prompt runs", async () => {
    const log = compactionLog();
    const h = harness([hangUntilAbort()], [], { initialMessages: history(), compactionObserver: log.observer });
    const controller = new AbortController();
    const running = h.session.prompt("hi", { signal: controller.signal });
    const refused = await h.session.compact();
    expect(refused.status).toBe("failed");
    expect(refused.error?.code).toBe("agent.busy");
    expect(log.starts).toHaveLength(1);
    expect(log.ends.map((end) => end.status)).toEqual(["failed"]);
    controller.abort();
    await running;
  });

  test("auto compaction fires before the next model call past the threshold", async () => {
    const order: string[] = [];
    const client = new ScriptedClient([
      reply([toolCall("c9", "echo", { text: "x" })], "tool_use", usage(80, 5, 0, 4, 2)),
      reply([text("SUMMARY")]),
      reply([text("finished")]),
    ]);
    const session = new AgentSession({
      client,
      model: { ...TEST_MODEL, contextWindow: 100 },
      system: "base prompt",
      tools: new TestTools([echoTool()]),
      cwd: "/project",
      initialMessages: history(),
      onEvent: (event) => order.push(event.type),
      compactionObserver: {
        onCompactionStart: () => order.push("compaction_start"),
        onCompactionEnd: (info) => order.push(`compaction_end:${info.status}`),
      },
    });
    expect(await session.prompt("go on")).toEqual({ status: "done" });
    expect(client.requests).toHaveLength(3);
    expect(client.requests[1]?.system).toBe(SUMMARISER_SYSTEM_PROMPT);
    const next = client.requests[2];
    expect(next?.system).toBe("base prompt");
    expect(textOf(next?.messages[0])).toBe("## Context Summary (compacted)\n\nSUMMARY");
    // Kept tail: the new exchange with its tool call and result, verbatim.
    expect(next?.messages.slice(-3).map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(textOf(next?.messages.at(-3))).toBe("go on");
    // Between the tool batch and the next turn, never inside it.
    const start = order.indexOf("compaction_start");
    expect(order.slice(start - 1, start + 3)).toEqual(["tool_result", "compaction_start", "compaction_end:completed", "turn_start"]);
    expect(session.messages.at(-1)?.role).toBe("assistant");
  });

  test("below the threshold, or with autoCompact false, nothing is compacted", async () => {
    const steps = (): ScriptStep[] => [reply([toolCall("c9", "echo", { text: "x" })], "tool_use", usage(84, 5)), reply([text("ok")])];
    const below = harness(steps(), [echoTool()], { initialMessages: history(), model: { ...TEST_MODEL, contextWindow: 100 } });
    await below.session.prompt("go");
    expect(below.client.requests).toHaveLength(2);
    const off = new ScriptedClient([reply([toolCall("c9", "echo", { text: "x" })], "tool_use", usage(99, 5)), reply([text("ok")])]);
    const session = new AgentSession({
      client: off,
      model: { ...TEST_MODEL, contextWindow: 100 },
      system: "s",
      tools: new TestTools([echoTool()]),
      cwd: "/p",
      initialMessages: history(),
      autoCompact: false,
    });
    await session.prompt("go");
    expect(off.requests).toHaveLength(2);
    expect(AgentSession.create({ client: off, model: TEST_MODEL, system: "s", tools: new TestTools([]), cwd: "/", autoCompact: { threshold: 2 } })).toMatchObject({
      code: "agent.invalid_option",
    });
  });

  test("HTTP 413 compacts and retries the model call once", async () => {
    const h = harness([fail(new ProviderError("http", "anthropic: 413 request too large", 413)), reply([text("SUMMARY")]), reply([text("ok")])], [], {
      initialMessages: history(),
    });
    expect(await h.session.prompt("continue")).toEqual({ status: "done" });
    expect(h.client.requests).toHaveLength(3);
    expect(textOf(h.client.requests[2]?.messages[0])).toBe("## Context Summary (compacted)\n\nSUMMARY");
    expect(textOf(h.session.messages.at(-1))).toBe("ok");
  });

  test("persistence gets keptFrom as the row of the first kept message", async () => {
    const records: CompactionPersistRecord[] = [];
    let nextRow = 0;
    const h = harness([reply([text("SUM")])], [], {
      initialMessages: history(),
      initialMessageRows: [null, 20, 21, 22, 23, 24, 25, 26],
      persistence: {
        onMessage: () => nextRow++,
        onUsage: () => {},
        onCompaction: (record) => records.push(record),
      },
    });
    const outcome = await h.session.compact();
    expect(outcome.status).toBe("completed");
    expect(records).toHaveLength(1);
    expect(records[0]?.keptFrom).toBe(22);
    expect(records[0]?.tokensBefore).toBe(outcome.tokenEstimateBefore);
    expect(records[0]?.summaryMessage).toBe(h.session.messages[0] as Message);
    expect(h.session.messageRows).toEqual([null, 22, 23, 24, 25, 26]);
  });
});

describe("compaction persisted through SessionWriter", () => {
  let root: string | undefined;
  afterEach(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  function persistTo(writer: SessionWriter) {
    return {
      onMessage: (message: Message) => writer.appendMessage(message),
      onUsage: () => {},
      onCompaction: (record: CompactionPersistRecord) =>
        writer.appendCompaction({ summary: record.summaryMessage, keptFrom: record.keptFrom, tokensBefore: record.tokensBefore }),
    };
  }

  test("a compacted session reloads compacted, and compacts again after resume", async () => {
    root = mkdtempSync(join(tmpdir(), "zot-compaction-"));
    const writer = SessionWriter.create({ cwd: "/project", model: "test-model", provider: "anthropic", sessionsRoot: root });
    const client = new ScriptedClient([
      reply([text("a1")]),
      reply([toolCall("c1", "echo", { text: "x" })]),
      reply([text("a2")]),
      reply([text("FIRST SUMMARY")]),
    ]);
    const session = new AgentSession({
      client,
      model: TEST_MODEL,
      system: "s",
      tools: new TestTools([echoTool()]),
      cwd: "/project",
      persistence: persistTo(writer),
    });
    await session.prompt("q1");
    await session.prompt("q2");
    // rows: 0 q1, 1 a1, 2 q2, 3 call, 4 tool, 5 a2 → keep last 4 starts at row 2.
    expect(session.messageRows).toEqual([0, 1, 2, 3, 4, 5]);
    expect((await session.compact()).status).toBe("completed");
    expect(session.messageRows).toEqual([null, 2, 3, 4, 5]);
    writer.close();

    const loaded = loadSession(writer.path);
    expect(loaded.compacted).toBe(true);
    expect(loaded.messages).toEqual(session.messages);
    expect(loaded.messageRows).toEqual([null, 2, 3, 4, 5]);

    const resumedWriter = SessionWriter.openExisting(writer.path);
    const resumedClient = new ScriptedClient([reply([text("a3")]), reply([text("SECOND SUMMARY")])]);
    const resumed = new AgentSession({
      client: resumedClient,
      model: TEST_MODEL,
      system: "s",
      tools: new TestTools([echoTool()]),
      cwd: "/project",
      initialMessages: loaded.messages,
      initialMessageRows: loaded.messageRows,
      persistence: persistTo(resumedWriter),
    });
    await resumed.prompt("q3");
    expect(resumed.messageRows).toEqual([null, 2, 3, 4, 5, 6, 7]);
    // The old summary is part of what gets summarised.
    expect((await resumed.compact({ keepRecent: 2 })).status).toBe("completed");
    expect(textOf(resumedClient.requests[1]?.messages[0])).toContain("## Context Summary (compacted)\n\nFIRST SUMMARY");
    resumedWriter.close();

    const reloaded = loadSession(writer.path);
    expect(reloaded.messages).toEqual(resumed.messages);
    expect(reloaded.messages.map(textOf)).toEqual(["## Context Summary (compacted)\n\nSECOND SUMMARY", "q3", "a3"]);
  });
});
