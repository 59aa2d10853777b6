import { describe, expect, test } from "bun:test";
import { AgentSession, isUiOnlyEvent, toJsonEventLine } from "../../src/agent/index.ts";
import { ZotError } from "../../src/common/errors.ts";
import { ProviderError } from "../../src/providers/types.ts";
import { textOutcome } from "../../src/tools/types.ts";
import {
  TEST_MODEL,
  TestTools,
  defineTool,
  echoTool,
  eventTypes,
  expectSingleTerminal,
  harness,
  toolResultsOf,
  type ToolCallLog,
} from "./fixtures.ts";
import { ScriptedClient, fail, hangUntilAbort, reply, text, toolCall, usage } from "./scripted-client.ts";

describe("agent loop", () => {
  test("the model's thinking streams as UI-only thinking_delta events before the text", async () => {
    const h = harness([reply([{ type: "thinking", thinking: "let me think", signature: "sig" }, text("four")], "end")], []);
    expect(await h.session.prompt("2+2?")).toEqual({ status: "done" });
    const deltas = h.events.filter((e) => e.type === "thinking_delta" || e.type === "text_delta");
    expect(deltas).toEqual([
      { type: "thinking_delta", delta: "let me think" },
      { type: "text_delta", delta: "four" },
    ]);
    const thinking = h.events.find((e) => e.type === "thinking_delta");
    expect(thinking !== undefined && isUiOnlyEvent(thinking)).toBe(true);
    expect(thinking === undefined ? "missing" : toJsonEventLine(thinking)).toBe("");
  });

  test("multi-step tool use emits the original event sequence and pairs results", async () => {
    const log: ToolCallLog[] = [];
    const h = harness(
      [
        reply([text("let me check"), toolCall("c1", "echo", { text: "hi" })], "tool_use", usage(100, 20, 0.5)),
        reply([text("all done")], "end", usage(200, 30, 0.25)),
      ],
      [echoTool(log)],
    );
    const outcome = await h.session.prompt("do it");
    expect(outcome).toEqual({ status: "done" });
    expect(eventTypes(h.events)).toEqual([
      "user_message",
      "turn_start",
      "assistant_start",
      "text_delta",
      "tool_use_start",
      "tool_use_args",
      "tool_use_end",
      "usage",
      "assistant_message",
      "tool_call",
      "turn_end",
      "tool_start",
      "tool_result",
      "turn_start",
      "assistant_start",
      "text_delta",
      "usage",
      "assistant_message",
      "turn_end",
      "done",
    ]);
    expect(h.events.filter((e) => e.type === "turn_start")).toEqual([
      { type: "turn_start", step: 1 },
      { type: "turn_start", step: 2 },
    ]);
    expect(h.events.find((e) => e.type === "tool_call")).toEqual({ type: "tool_call", id: "c1", name: "echo", args: { text: "hi" } });
    expect(h.events.filter((e) => e.type === "turn_end")).toEqual([
      { type: "turn_end", stop: "tool_use" },
      { type: "turn_end", stop: "end" },
    ]);
    expect(log.map((entry) => entry.args)).toEqual([{ text: "hi" }]);
    expect(log[0]?.ctx.cwd).toBe("/project");
    expect(h.session.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    // The second request carries the tool result the model asked for.
    const second = h.client.requests[1];
    expect(second?.system).toBe("base prompt");
    expect(toolResultsOf(second?.messages[2])).toEqual([{ call_id: "c1", is_error: false, text: "echo: hi" }]);
    // Usage: per turn and cumulative.
    const usages = h.events.filter((e) => e.type === "usage");
    expect(usages[1]).toMatchObject({ input: 200, output: 30, cost_usd: 0.25 });
    expect(usages[1]).toMatchObject({ cumulative: { input: 300, output: 50, cost_usd: 0.75 } });
    expect(h.session.cumulativeUsage).toMatchObject({ input_tokens: 300, output_tokens: 50, cost_usd: 0.75 });
    expectSingleTerminal(h.events, "done");
  });

  test("user message carries text and images; tool specs are sent", async () => {
    const h = harness([reply([text("ok")])], [echoTool()]);
    await h.session.prompt("look", { images: [{ type: "image", mime_type: "image/png", data: "AAAA" }] });
    expect(h.client.requests[0]?.toolNames).toEqual(["echo"]);
    expect(h.session.messages[0]?.content).toEqual([
      { type: "text", text: "look" },
      { type: "image", mime_type: "image/png", data: "AAAA" },
    ]);
  });

  test("persistence sees each message as it is appended, usage after each model call", async () => {
    const h = harness(
      [reply([toolCall("c1", "echo", { text: "x" })], "tool_use", usage(1, 1, 0.1)), reply([text("fin")], "end", usage(2, 2, 0.2))],
      [echoTool()],
      { initialCumulative: usage(1000, 0, 1) },
    );
    await h.session.prompt("go");
    expect(h.persisted.map((p) => (p.kind === "message" ? `message:${p.message.role}` : "usage"))).toEqual([
      "message:user",
      "message:assistant",
      "usage",
      "message:tool",
      "message:assistant",
      "usage",
    ]);
    const lastUsage = h.persisted.at(-1);
    expect(lastUsage?.kind === "usage" && lastUsage.cumulative.input_tokens).toBe(1003);
    expect(lastUsage?.kind === "usage" && lastUsage.turn.input_tokens).toBe(2);
  });

  test("unknown tool and malformed args become error results; the loop continues", async () => {
    const log: ToolCallLog[] = [];
    const h = harness(
      [reply([toolCall("c1", "nope", {}), toolCall("c2", "echo", "{not json")]), reply([text("sorry")])],
      [echoTool(log)],
    );
    expect(await h.session.prompt("x")).toEqual({ status: "done" });
    const results = toolResultsOf(h.session.messages[2]);
    expect(results[0]).toEqual({ call_id: "c1", is_error: true, text: 'unknown tool "nope"' });
    expect(results[1]?.call_id).toBe("c2");
    expect(results[1]?.is_error).toBe(true);
    expect(results[1]?.text).toStartWith("invalid tool arguments:");
    expect(log).toHaveLength(0);
    // The malformed call is announced with its raw text.
    expect(h.events.filter((e) => e.type === "tool_call").map((e) => (e.type === "tool_call" ? e.args : null))).toEqual([
      {},
      "{not json",
    ]);
  });

  test("a thrown tool error becomes an error result, never a crash", async () => {
    const boom = defineTool("boom", () => {
      throw new Error("kaboom");
    });
    const h = harness([reply([toolCall("c1", "boom", {})]), reply([text("hm")])], [boom]);
    expect(await h.session.prompt("x")).toEqual({ status: "done" });
    expect(toolResultsOf(h.session.messages[2])).toEqual([{ call_id: "c1", is_error: true, text: "kaboom" }]);
    expect(h.events.find((e) => e.type === "tool_result")).toMatchObject({ is_error: true, status: "failed" });
  });

  test("max steps exceeded is an error outcome: done, then the error event last (the original's loop)", async () => {
    const looping = [1, 2, 3].map((n) => reply([toolCall(`c${n}`, "echo", { text: n })]));
    const h = harness(looping, [echoTool()], { maxSteps: 2 });
    const outcome = await h.session.prompt("loop");
    expect(outcome.status).toBe("error");
    if (outcome.status === "error") {
      expect(outcome.error.message).toBe("max steps (2) exceeded");
      expect(outcome.error.code).toBe("agent.max_steps");
    }
    expect(h.client.requests).toHaveLength(2);
    expect(h.events.slice(-2)).toEqual([{ type: "done" }, { type: "error", message: "max steps (2) exceeded" }]);
    expect(h.events.filter((event) => event.type === "done" || event.type === "error")).toHaveLength(2);
  });

  test("invalid maxSteps is reported as a value by create", () => {
    const options = { client: new ScriptedClient([]), model: TEST_MODEL, system: "", tools: new TestTools([]), cwd: "/" };
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      const created = AgentSession.create({ ...options, maxSteps: bad });
      expect(created).toBeInstanceOf(ZotError);
    }
    expect(AgentSession.create({ ...options, maxSteps: 3 })).toBeInstanceOf(AgentSession);
  });

  test("provider failure ends the turn with an error and no assistant_start", async () => {
    const h = harness([fail(new ProviderError("http", "HTTP 500: overloaded", 500))]);
    const outcome = await h.session.prompt("hi");
    expect(outcome.status).toBe("error");
    if (outcome.status === "error") expect(outcome.error.code).toBe("provider.http");
    expect(eventTypes(h.events)).toEqual(["user_message", "turn_start", "turn_end", "error"]);
    expect(h.events.at(-2)).toEqual({ type: "turn_end", stop: "error", error: "HTTP 500: overloaded" });
    expect(h.events.at(-1)).toEqual({ type: "error", message: "HTTP 500: overloaded" });
    expect(h.session.messages.map((m) => m.role)).toEqual(["user"]);
  });

  test("abort mid-stream keeps a text-only partial and ends aborted", async () => {
    const controller = new AbortController();
    const h = harness([hangUntilAbort([text("partial answ")])]);
    const pending = h.session.prompt("hi", { signal: controller.signal });
    await Bun.sleep(5);
    controller.abort();
    expect(await pending).toEqual({ status: "aborted" });
    expect(h.events.filter((e) => e.type === "turn_end")).toEqual([{ type: "turn_end", stop: "aborted" }]);
    expect(h.session.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(h.events.at(-1)).toEqual({ type: "error", message: "aborted" });
    expectSingleTerminal(h.events, "error");
  });

  test("abort mid-stream drops a partial that contains tool calls", async () => {
    const controller = new AbortController();
    const h = harness([hangUntilAbort([text("calling"), toolCall("c1", "echo", "{\"te")])], [echoTool()]);
    const pending = h.session.prompt("hi", { signal: controller.signal });
    await Bun.sleep(5);
    controller.abort();
    expect(await pending).toEqual({ status: "aborted" });
    expect(h.session.messages.map((m) => m.role)).toEqual(["user"]);
    expect(h.events.some((e) => e.type === "tool_call" || e.type === "assistant_message")).toBe(false);
  });

  test("abort mid-tool: the running tool sees the signal, results stay paired, outcome aborted", async () => {
    const controller = new AbortController();
    let sawAbort = false;
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    const waiter = defineTool("wait", async (_args, ctx) => {
      started();
      await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
      sawAbort = ctx.signal.aborted;
      return textOutcome("cancelled by user", true, { status: "cancelled" });
    });
    const h = harness([reply([toolCall("c1", "wait", {})]), reply([text("never")])], [waiter]);
    const pending = h.session.prompt("wait", { signal: controller.signal });
    await toolStarted;
    controller.abort();
    expect(await pending).toEqual({ status: "aborted" });
    expect(sawAbort).toBe(true);
    expect(h.client.requests).toHaveLength(1);
    expect(h.client.remaining).toBe(1);
    expect(toolResultsOf(h.session.messages[2])).toEqual([{ call_id: "c1", is_error: true, text: "cancelled by user" }]);
    expect(h.events.find((e) => e.type === "tool_result")).toMatchObject({ status: "cancelled" });
    expectSingleTerminal(h.events, "error");
  });

  test("abort during the last allowed step's tools is reported as aborted, not max steps", async () => {
    const controller = new AbortController();
    const stopper = defineTool("stop", () => {
      controller.abort();
      return textOutcome("stopped");
    });
    const h = harness([reply([toolCall("c1", "stop", {})])], [stopper], { maxSteps: 1 });
    expect(await h.session.prompt("x", { signal: controller.signal })).toEqual({ status: "aborted" });
    expect(h.events.at(-1)).toEqual({ type: "error", message: "aborted" });
  });

  test("an already-aborted signal sends nothing to the model", async () => {
    const controller = new AbortController();
    controller.abort();
    const h = harness([reply([text("no")])]);
    expect(await h.session.prompt("hi", { signal: controller.signal })).toEqual({ status: "aborted" });
    expect(h.client.requests).toHaveLength(0);
    expectSingleTerminal(h.events, "error");
  });

  test("empty assistant message is not kept; a concurrent prompt is refused as busy", async () => {
    const h = harness([reply([], "end"), reply([text("second")])]);
    const first = h.session.prompt("one");
    const second = await h.session.prompt("two");
    expect(second.status).toBe("error");
    if (second.status === "error") expect(second.error.code).toBe("agent.busy");
    expect(await first).toEqual({ status: "done" });
    expect(h.session.messages.map((m) => m.role)).toEqual(["user"]);
    expect(h.events.some((e) => e.type === "assistant_message")).toBe(false);
    expectSingleTerminal(h.events, "done");
  });

  test("empty prompt is an error value with a terminal error event", async () => {
    const h = harness([reply([text("x")])]);
    const outcome = await h.session.prompt("");
    expect(outcome.status).toBe("error");
    expect(h.client.requests).toHaveLength(0);
    expectSingleTerminal(h.events, "error");
  });

  test("appendMessages persists immediately when idle and waits for a safe point while running", async () => {
    let injectDuringTool: (() => void) | undefined;
    const tool = defineTool("inject", () => {
      injectDuringTool?.();
      return textOutcome("ok");
    });
    const h = harness([reply([toolCall("c1", "inject", {})]), reply([text("done")])], [tool]);
    const extra = { role: "user" as const, content: [text("side note")], time: new Date().toISOString() };
    injectDuringTool = () => h.session.appendMessages([extra]);
    await h.session.prompt("go");
    // The injected message lands after the tool message, never between a call and its result.
    expect(h.session.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "assistant"]);
    expect(h.client.requests[1]?.messages.at(-1)?.content).toEqual([text("side note")]);
    h.session.appendMessages([extra]);
    expect(h.persisted.at(-1)).toEqual({ kind: "message", message: extra });
  });

  test("openai-style clients get a hidden image mirror message after tool results", async () => {
    const shot = defineTool("shot", () => ({
      content: [
        { type: "text", text: "screenshot taken" },
        { type: "image", mime_type: "image/png", data: "iVBORw0KGgo=" },
      ],
      isError: false,
    }));
    const client = new ScriptedClient([reply([toolCall("c1", "shot", {})]), reply([text("nice")])], "openai");
    const session = new AgentSession({ client, model: TEST_MODEL, system: "s", tools: new TestTools([shot]), cwd: "/" });
    await session.prompt("snap");
    const mirror = session.messages[3];
    expect(mirror?.role).toBe("user");
    expect(mirror?.meta).toEqual({ image_mirror: "true" });
    expect(mirror?.content[0]).toEqual({ type: "text", text: "Tool output included the following image content:" });
    expect(mirror?.content.some((b) => b.type === "image")).toBe(true);
    // The anthropic-named default client gets no mirror.
    const h = harness([reply([toolCall("c1", "shot", {})]), reply([text("nice")])], [shot]);
    await h.session.prompt("snap");
    expect(h.session.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  test("activateTools from an outcome activates deferred tools for the next request", async () => {
    const hidden = defineTool("hidden", () => textOutcome("secret"), { deferred: true });
    const finder = defineTool("find", () => textOutcome("found", false, { activateTools: ["hidden"] }));
    const h = harness([reply([toolCall("c1", "find", {})]), reply([text("ok")])], [hidden, finder]);
    await h.session.prompt("x");
    expect(h.client.requests[0]?.toolNames).toEqual(["find"]);
    expect(h.client.requests[1]?.toolNames).toEqual(["find", "hidden"]);
  });
});
