/**
 * CallOrder (modes/call-order.ts): a step's tool results leave in call
 * order whatever order they finish in; other events pass at once; the end
 * of a batch releases what is held; unannounced results pass. And through
 * dist/zot: --json lists the results of bash, read and an unknown tool in
 * the calls' order (the unknown tool's error used to overtake the read).
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../../src/agent/events.ts";
import { CallOrder } from "../../src/modes/call-order.ts";
import { parseJsonLines, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const call = (id: string): AgentEvent => ({ type: "tool_call", id, name: "read", args: {} });
const result = (id: string): AgentEvent => ({ type: "tool_result", id, is_error: false, content: [] });
const label = (event: AgentEvent): string => ("id" in event ? `${event.type}:${event.id}` : event.type);

function ordered(events: readonly AgentEvent[], flushAtEnd = false): string[] {
  const written: string[] = [];
  const order = new CallOrder((event) => written.push(label(event)));
  for (const event of events) order.event(event);
  if (flushAtEnd) order.flush();
  return written;
}

test("results wait for every earlier call's; progress and other events pass at once", () => {
  expect(
    ordered([
      call("a"), call("b"), call("c"), { type: "turn_end", stop: "tool_use" },
      result("c"), { type: "tool_progress", id: "a", text: "…" }, result("a"), result("b"),
      { type: "turn_start", step: 2 },
    ]),
  ).toEqual(["tool_call:a", "tool_call:b", "tool_call:c", "turn_end", "tool_progress:a", "tool_result:a", "tool_result:b", "tool_result:c", "turn_start"]);
});

test("the end of a batch (turn_start, done, error, flush) releases what is held, in call order", () => {
  for (const end of [{ type: "done" }, { type: "error", message: "x" }, { type: "turn_start", step: 2 }] as AgentEvent[]) {
    expect(ordered([call("a"), call("b"), result("b"), end])).toEqual(["tool_call:a", "tool_call:b", "tool_result:b", end.type]);
  }
  expect(ordered([call("a"), call("b"), result("b")], true)).toEqual(["tool_call:a", "tool_call:b", "tool_result:b"]);
});

test("a result for a call the step did not announce passes at once", () => {
  expect(ordered([call("a"), result("ext-1"), result("a")])).toEqual(["tool_call:a", "tool_result:ext-1", "tool_result:a"]);
});

test("--json: the results of one step follow the calls' order, not the order they finished in", async () => {
  writeFileSync(join(env.cwd, "notes.txt"), "hello\n");
  env.server.enqueue(
    {
      type: "tool_calls",
      calls: [
        { id: "toolu_1", name: "bash", arguments: { command: "echo hi" } },
        { id: "toolu_2", name: "read", arguments: { path: "notes.txt" } },
        { id: "toolu_3", name: "no_such_tool", arguments: {} },
      ],
    },
    { type: "text", text: "done" },
  );
  const run = await env.run(["--json", "go", ...env.providerArgs()]);
  expect(run.code).toBe(0);
  const results = parseJsonLines(run.stdout).filter((event) => event.type === "tool_result");
  expect(results.map((event) => event.id)).toEqual(["toolu_1", "toolu_2", "toolu_3"]);
});
