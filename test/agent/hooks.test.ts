import { describe, expect, test } from "bun:test";
import { toJsonEventLine, type AgentEvent, type ToolCallInfo, type ToolResultInfo } from "../../src/agent/index.ts";
import { textOutcome } from "../../src/tools/types.ts";
import { defineTool, echoTool, eventTypes, expectSingleTerminal, harness, toolResultsOf, type ToolCallLog } from "./fixtures.ts";
import { reply, text, toolCall } from "./scripted-client.ts";

describe("agent hooks", () => {
  test("beforeTurn block: no model call, turn_end carries the reason, done is last", async () => {
    const steps: number[] = [];
    const h = harness([reply([text("never")])], [], {
      hooks: {
        beforeTurn: ({ step }) => {
          steps.push(step);
          return { block: { reason: "outside business hours" } };
        },
      },
    });
    expect(await h.session.prompt("hi")).toEqual({ status: "blocked", reason: "outside business hours" });
    expect(h.client.requests).toHaveLength(0);
    expect(steps).toEqual([1]);
    expect(eventTypes(h.events)).toEqual(["user_message", "turn_start", "turn_end", "done"]);
    expect(h.events[2]).toEqual({ type: "turn_end", stop: "error", error: "outside business hours" });
    expect(h.session.messages.map((m) => m.role)).toEqual(["user"]);
    expectSingleTerminal(h.events, "done");
  });

  test("beforeTurn blocking only the second step still runs the first", async () => {
    const h = harness([reply([toolCall("c1", "echo", { text: "a" })]), reply([text("never")])], [echoTool()], {
      hooks: { beforeTurn: async ({ step }) => (step === 2 ? { block: { reason: "" } } : undefined) },
    });
    expect(await h.session.prompt("hi")).toEqual({ status: "blocked", reason: "turn blocked by extension guard" });
    expect(h.client.requests).toHaveLength(1);
  });

  test("beforeToolCall block: tool not run, model sees the reason as a tool error", async () => {
    const log: ToolCallLog[] = [];
    const results: ToolResultInfo[] = [];
    const h = harness([reply([toolCall("c1", "echo", { text: "rm -rf" })]), reply([text("ok")])], [echoTool(log)], {
      hooks: {
        beforeToolCall: () => ({ block: { reason: 'refused: matches "rm -rf"', status: "blocked" } }),
        afterToolResult: (info) => {
          results.push(info);
          return undefined;
        },
      },
    });
    expect(await h.session.prompt("x")).toEqual({ status: "done" });
    expect(log).toHaveLength(0);
    expect(toolResultsOf(h.client.requests[1]?.messages[2])).toEqual([
      { call_id: "c1", is_error: true, text: 'refused: matches "rm -rf"' },
    ]);
    expect(results[0]).toMatchObject({ status: "blocked", executed: false, effectiveArgs: { text: "rm -rf" } });
    expect(h.events.find((e) => e.type === "tool_result")).toMatchObject({ is_error: true, status: "blocked" });
  });

  test("a throwing beforeToolCall fails closed", async () => {
    const log: ToolCallLog[] = [];
    const h = harness([reply([toolCall("c1", "echo", { text: "a" })]), reply([text("ok")])], [echoTool(log)], {
      hooks: {
        beforeToolCall: () => {
          throw new Error("guard crashed");
        },
      },
    });
    await h.session.prompt("x");
    expect(log).toHaveLength(0);
    expect(toolResultsOf(h.session.messages[2])[0]).toMatchObject({ is_error: true, text: "tool call guard failed: guard crashed" });
  });

  test("modified args reach the tool; the transcript and tool_call event keep the original", async () => {
    const log: ToolCallLog[] = [];
    const seen: ToolCallInfo[] = [];
    const h = harness([reply([toolCall("c1", "echo", { text: "ls" })]), reply([text("ok")])], [echoTool(log)], {
      hooks: {
        beforeToolCall: (info) => {
          seen.push(info);
          return { args: { text: "GUARDED: ls" } };
        },
      },
    });
    await h.session.prompt("x");
    expect(seen[0]).toMatchObject({ id: "c1", name: "echo", args: { text: "ls" }, rawArgs: '{"text":"ls"}', origin: { kind: "model" } });
    expect(log[0]?.args).toEqual({ text: "GUARDED: ls" });
    expect(h.session.messages[1]?.content).toEqual([toolCall("c1", "echo", { text: "ls" })]);
    expect(h.events.find((e) => e.type === "tool_call")).toMatchObject({ args: { text: "ls" } });
    expect(toolResultsOf(h.session.messages[2])[0]?.text).toBe("echo: GUARDED: ls");
  });

  test("non-object replacement args are ignored", async () => {
    const log: ToolCallLog[] = [];
    const h = harness([reply([toolCall("c1", "echo", { text: "ls" })]), reply([text("ok")])], [echoTool(log)], {
      hooks: { beforeToolCall: () => ({ args: ["not", "an", "object"] as unknown as Record<string, unknown> }) },
    });
    await h.session.prompt("x");
    expect(log[0]?.args).toEqual({ text: "ls" });
  });

  test("afterToolResult replacement is what the model and the tool_result event see", async () => {
    const secret = defineTool("secret", () => textOutcome("token=sk-123"));
    const infos: ToolResultInfo[] = [];
    const h = harness([reply([toolCall("c1", "secret", {})]), reply([text("ok")])], [secret], {
      hooks: {
        afterToolResult: (info) => {
          infos.push(info);
          return textOutcome("token=[redacted]");
        },
      },
    });
    await h.session.prompt("x");
    expect(infos[0]).toMatchObject({ executed: true, status: "completed", outcome: { content: [text("token=sk-123")] } });
    expect(toolResultsOf(h.client.requests[1]?.messages[2])[0]?.text).toBe("token=[redacted]");
    expect(h.events.find((e) => e.type === "tool_result")).toMatchObject({ content: [text("token=[redacted]")] });
  });

  test("assistant message block hides it from the user; the transcript keeps it", async () => {
    const h = harness([reply([text("here is sk-ant-secret")])], [], {
      hooks: { onAssistantMessage: ({ text: said }) => (said.includes("sk-ant") ? { block: { reason: "leak" } } : undefined) },
    });
    expect(await h.session.prompt("x")).toEqual({ status: "done" });
    expect(h.events.some((e) => e.type === "assistant_message")).toBe(false);
    expect(h.session.messages[1]?.content).toEqual([text("here is sk-ant-secret")]);
    expect(h.persisted.some((p) => p.kind === "message" && p.message.role === "assistant")).toBe(true);
  });

  test("assistant replace_text: event carries the replacement, tool calls stay, transcript keeps the original", async () => {
    const texts: string[] = [];
    const h = harness([reply([text("a"), toolCall("c1", "echo", { text: "z" }), text("b")]), reply([])], [echoTool()], {
      hooks: {
        onAssistantMessage: ({ text: said }) => {
          texts.push(said);
          return { replaceText: "[redacted]" };
        },
      },
    });
    await h.session.prompt("x");
    expect(texts).toEqual(["a\nb"]);
    const shown = h.events.find((e) => e.type === "assistant_message");
    expect(shown?.type === "assistant_message" && shown.content).toEqual([text("[redacted]"), toolCall("c1", "echo", { text: "z" })]);
    expect(h.session.messages[1]?.content).toEqual([text("a"), toolCall("c1", "echo", { text: "z" }), text("b")]);
    expect(h.events.filter((e) => e.type === "tool_call")).toHaveLength(1);
  });

  test("assistant hook is not consulted for a message without text", async () => {
    let calls = 0;
    const h = harness([reply([toolCall("c1", "echo", { text: "q" })]), reply([text("end")])], [echoTool()], {
      hooks: {
        onAssistantMessage: () => {
          calls += 1;
          return undefined;
        },
      },
    });
    await h.session.prompt("x");
    expect(calls).toBe(1);
  });

  test("systemPrompt hook runs once per generation and its result is stable across turns", async () => {
    const bases: string[] = [];
    const h = harness(
      [reply([toolCall("c1", "echo", { text: "1" })]), reply([text("a")]), reply([text("b")]), reply([text("c")])],
      [echoTool()],
      {
        hooks: {
          systemPrompt: async (base) => {
            bases.push(base);
            return `${base} (rewritten #${bases.length})`;
          },
        },
      },
    );
    expect(h.session.effectiveSystemPrompt).toBeUndefined();
    await h.session.prompt("one");
    await h.session.prompt("two");
    expect(bases).toEqual(["base prompt"]);
    expect(h.client.requests.map((r) => r.system)).toEqual([
      "base prompt (rewritten #1)",
      "base prompt (rewritten #1)",
      "base prompt (rewritten #1)",
    ]);
    h.session.resetSystemPrompt();
    await h.session.prompt("three");
    expect(bases).toEqual(["base prompt", "base prompt"]);
    expect(h.client.requests.at(-1)?.system).toBe("base prompt (rewritten #2)");
    expect(h.session.effectiveSystemPrompt).toBe("base prompt (rewritten #2)");
  });

  test("a reset while the systemPrompt hook is waiting discards that result and reruns on the new base", async () => {
    const bases: string[] = [];
    let resetDuringFirst: (() => void) | undefined;
    const h = harness([reply([text("a")])], [], {
      hooks: {
        systemPrompt: async (base) => {
          bases.push(base);
          resetDuringFirst?.();
          resetDuringFirst = undefined;
          return `${base}!`;
        },
      },
    });
    resetDuringFirst = () => h.session.setSystemPrompt("new base");
    await h.session.prompt("x");
    expect(bases).toEqual(["base prompt", "new base"]);
    expect(h.client.requests[0]?.system).toBe("new base!");
  });

  test("interactive tools are refused unless the host allows them", async () => {
    let ran = 0;
    const ask = defineTool(
      "ask_user",
      () => {
        ran += 1;
        return textOutcome("yes");
      },
      { interactive: true },
    );
    const headless = harness([reply([toolCall("c1", "ask_user", {})]), reply([text("ok")])], [ask]);
    await headless.session.prompt("x");
    expect(ran).toBe(0);
    expect(headless.events.find((e) => e.type === "tool_result")).toMatchObject({ is_error: true, status: "blocked" });
    const interactive = harness([reply([toolCall("c1", "ask_user", {})]), reply([text("ok")])], [ask], { allowInteractive: true });
    await interactive.session.prompt("x");
    expect(ran).toBe(1);
  });

  test("runTool goes through the same guards with the extension origin and leaves the transcript alone", async () => {
    const log: ToolCallLog[] = [];
    const seen: ToolCallInfo[] = [];
    const h = harness([], [echoTool(log)], {
      hooks: {
        beforeToolCall: (info) => {
          seen.push(info);
          return info.args.text === "bad" ? { block: { reason: "no" } } : undefined;
        },
      },
    });
    const origin = { kind: "extension", extension: "helper" } as const;
    const ok = await h.session.runTool({ id: "r1", name: "echo", arguments: '{"text":"fine"}' }, { origin });
    expect(ok).toMatchObject({ status: "completed", executed: true, origin, outcome: { isError: false } });
    const refused = await h.session.runTool({ id: "r2", name: "echo", arguments: '{"text":"bad"}' }, { origin });
    expect(refused).toMatchObject({ status: "blocked", executed: false, outcome: { isError: true } });
    expect(seen.map((info) => info.origin)).toEqual([origin, origin]);
    expect(log).toHaveLength(1);
    expect(h.session.messages).toHaveLength(0);
    expect(h.events).toHaveLength(0);
  });

  test("done or error is always the single last event across outcomes", async () => {
    const blocked = harness([], [], { hooks: { beforeTurn: () => ({ block: { reason: "no" } }) } });
    await blocked.session.prompt("x");
    expectSingleTerminal(blocked.events, "done");
    const fine = harness([reply([text("hi")])]);
    await fine.session.prompt("x");
    expectSingleTerminal(fine.events, "done");
  });
});

test("a tool call blocked by a named guard carries blocked_by in the tool_result details (UI-only)", async () => {
  const h = harness(
    [reply([toolCall("c1", "echo", { text: "hi" })], "tool_use"), reply([text("ok")], "end")],
    [echoTool([])],
    { hooks: { beforeToolCall: async () => ({ block: { reason: "no echo today", by: "guard" } }) } },
  );
  await h.session.prompt("go");
  const result = h.events.find((event) => event.type === "tool_result");
  expect(result).toMatchObject({ type: "tool_result", id: "c1", is_error: true, status: "blocked", details: { blocked_by: "guard" } });
  expect(toJsonEventLine(result as AgentEvent)).not.toContain("guard");
});

test("the guards of a call are announced as UI-only tool_guard events around the beforeToolCall hook", async () => {
  const h = harness(
    [reply([toolCall("c1", "echo", { text: "hi" })], "tool_use"), reply([text("ok")], "end")],
    [echoTool([])],
    { hooks: { beforeToolCall: async () => undefined } },
  );
  await h.session.prompt("go");
  const types = eventTypes(h.events);
  const guards = h.events.filter((event) => event.type === "tool_guard");
  expect(guards).toEqual([
    { type: "tool_guard", id: "c1", waiting: true },
    { type: "tool_guard", id: "c1", waiting: false },
  ]);
  expect(types.indexOf("tool_call")).toBeLessThan(types.indexOf("tool_guard"));
  expect(types.lastIndexOf("tool_guard")).toBeLessThan(types.indexOf("tool_result"));
  expect(toJsonEventLine(guards[0] as AgentEvent)).toBe("");
});

test("tool_start (UI-only) follows a call's guards and comes only for calls whose tool runs", async () => {
  const ask = defineTool("ask_user", () => textOutcome("yes"), { interactive: true });
  const h = harness(
    [
      reply(
        [
          toolCall("runs", "echo", { text: "a" }),
          toolCall("blocked", "echo", { text: "b" }),
          toolCall("unknown", "nope", {}),
          toolCall("bad_args", "echo", "{not json"),
          toolCall("interactive", "ask_user", {}),
        ],
        "tool_use",
      ),
      reply([text("ok")], "end"),
    ],
    [echoTool([]), ask],
    { hooks: { beforeToolCall: async (info) => (info.args.text === "b" ? { block: { reason: "not b" } } : undefined) } },
  );
  await h.session.prompt("go");
  const starts = h.events.filter((event) => event.type === "tool_start");
  expect(starts).toEqual([{ type: "tool_start", id: "runs" }]);
  const at = (match: (event: AgentEvent) => boolean): number => h.events.findIndex(match);
  const guardAnswered = at((event) => event.type === "tool_guard" && event.id === "runs" && !event.waiting);
  const started = at((event) => event.type === "tool_start");
  const result = at((event) => event.type === "tool_result" && event.id === "runs");
  expect(guardAnswered).toBeGreaterThan(0);
  expect(started).toBeGreaterThan(guardAnswered);
  expect(result).toBeGreaterThan(started);
  expect(h.events.filter((event) => event.type === "tool_result")).toHaveLength(5);
  expect(toJsonEventLine(starts[0] as AgentEvent)).toBe("");
});
