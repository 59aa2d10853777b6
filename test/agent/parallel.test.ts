import { describe, expect, test } from "bun:test";
import type { AgentTools } from "../../src/agent/index.ts";
import { textOutcome, type Tool } from "../../src/tools/types.ts";
import { TestTools, defineTool, delay, harness, toolResultsOf } from "./fixtures.ts";
import { reply, text, toolCall } from "./scripted-client.ts";

/** A tool that records when it starts and ends and sleeps args.ms. */
function timedTool(name: string, timeline: string[]): Tool {
  return defineTool(name, async (args) => {
    const label = String(args.label);
    timeline.push(`start ${label}`);
    await delay(Number(args.ms));
    timeline.push(`end ${label}`);
    return textOutcome(`result ${label}`);
  });
}

const twoCalls = (name: string) => [
  reply([toolCall("slow", name, { label: "slow", ms: 40 }), toolCall("fast", name, { label: "fast", ms: 1 })]),
  reply([text("done")]),
];

describe("tool call concurrency", () => {
  test("independent calls overlap; results are recorded in the model's order", async () => {
    const timeline: string[] = [];
    const h = harness(twoCalls("sleep"), [timedTool("sleep", timeline)]);
    await h.session.prompt("go");
    expect(timeline).toEqual(["start slow", "start fast", "end fast", "end slow"]);
    // tool_result events follow completion order...
    expect(h.events.filter((e) => e.type === "tool_result").map((e) => (e.type === "tool_result" ? e.id : ""))).toEqual([
      "fast",
      "slow",
    ]);
    // ...but the transcript keeps the order the model listed them in.
    expect(toolResultsOf(h.session.messages[2]).map((r) => r.call_id)).toEqual(["slow", "fast"]);
    expect(h.session.messages.filter((m) => m.role === "tool")).toHaveLength(1);
  });

  test("parallelTools false runs calls one after another", async () => {
    const timeline: string[] = [];
    const h = harness(twoCalls("sleep"), [timedTool("sleep", timeline)], { parallelTools: false });
    await h.session.prompt("go");
    expect(timeline).toEqual(["start slow", "end slow", "start fast", "end fast"]);
  });

  test("mutating built-in names run alone by default", async () => {
    const timeline: string[] = [];
    const h = harness(twoCalls("bash"), [timedTool("bash", timeline)]);
    await h.session.prompt("go");
    expect(timeline).toEqual(["start slow", "end slow", "start fast", "end fast"]);
  });

  test("the tool set's concurrencySafe decides when present", async () => {
    const timeline: string[] = [];
    const tools = new TestTools([timedTool("bash", timeline)]);
    const permissive: AgentTools = {
      specs: () => tools.specs(),
      get: (name) => tools.get(name),
      activate: (names) => tools.activate(names),
      concurrencySafe: () => true,
    };
    const h = harness(twoCalls("bash"), [], { tools: permissive });
    await h.session.prompt("go");
    expect(timeline).toEqual(["start slow", "start fast", "end fast", "end slow"]);
  });

  test("guards for a parallel group run serially in the model's order before execution", async () => {
    const order: string[] = [];
    const timeline: string[] = [];
    const h = harness(twoCalls("sleep"), [timedTool("sleep", timeline)], {
      hooks: {
        beforeToolCall: async (info) => {
          order.push(`guard ${info.id} begin`);
          await delay(info.id === "slow" ? 10 : 0);
          order.push(`guard ${info.id} end`);
          return undefined;
        },
      },
    });
    await h.session.prompt("go");
    expect(order).toEqual(["guard slow begin", "guard slow end", "guard fast begin", "guard fast end"]);
    expect(timeline[0]).toBe("start slow");
  });

  test("tool_start marks when each call's tool begins: together for a concurrent group, one after another for unsafe calls", async () => {
    const run = async (name: string): Promise<string[]> => {
      const timeline: string[] = [];
      const h = harness(twoCalls(name), [timedTool(name, timeline)], {
        onEvent: (event) => {
          if (event.type === "tool_start" || event.type === "tool_result") timeline.push(`${event.type} ${event.id}`);
        },
      });
      await h.session.prompt("go");
      return timeline;
    };
    expect(await run("sleep")).toEqual(["tool_start slow", "start slow", "tool_start fast", "start fast", "end fast", "tool_result fast", "end slow", "tool_result slow"]);
    expect(await run("bash")).toEqual(["tool_start slow", "start slow", "end slow", "tool_result slow", "tool_start fast", "start fast", "end fast", "tool_result fast"]);
  });
});
