/**
 * Flow control through the compiled binary (issue 7 class 2): one model step
 * with 1,000 parallel calls of one extension tool, while a second extension
 * watches every tool_call / permission_decision / tool_result event and
 * intercepts (redacts) every tool result. The host keeps a bounded number of
 * requests in flight per extension (the tool extension answers concurrently
 * and records how many calls it held at once) and holds the rest, and its outbound
 * queue is sized for such event bursts, so no healthy extension is
 * disconnected: every call succeeds, the tool extension receives the calls in
 * the model's order, the results go back to the model in that order, and the
 * watcher gets every event.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_IN_FLIGHT_REQUESTS } from "../../src/ext/request-flow.ts";
import { lifecycleExtension, readRecord } from "../support/bridge-harness.ts";
import { behaveExtension } from "../support/extensions.ts";
import { toolResultsSent, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const CALLS = 1_000;

test(`${CALLS} parallel calls of one extension tool all succeed, in the model's order, with a subscriber watching`, async () => {
  const toolRecord = join(env.base, "echoer.jsonl");
  const watchRecord = join(env.base, "watcher.jsonl");
  const maxOutstanding = join(env.base, "max-outstanding.txt");
  const echoer = behaveExtension(env.base, "echoer", [`record=${toolRecord}`, "async-tool=0.03", `max-outstanding=${maxOutstanding}`]);
  const watcher = lifecycleExtension(env.base, "watcher", [
    "events=tool_call,permission_decision,tool_result",
    "intercept=tool_result",
    "redact=secret",
    `record=${watchRecord}`,
  ]);
  const ids = Array.from({ length: CALLS }, (_, i) => `call_${String(i).padStart(4, "0")}`);
  env.server.enqueue(
    { type: "tool_calls", argChunks: 1, calls: ids.map((id, i) => ({ id, name: "py_echo", arguments: { text: `secret ${i}` } })) },
    { type: "text", text: "all done" },
  );
  const result = await env.run(["-p", "call it a lot", ...env.providerArgs(), "--ext", echoer, "--ext", watcher], { timeoutMs: 90_000 });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("all done\n");

  const sent = toolResultsSent(env.server.requests[1]);
  expect([...sent.keys()]).toEqual(ids);
  ids.forEach((id, i) => expect(sent.get(id)).toBe(`echo: {"text": "[redacted] ${i}"}`));

  // The extension answers concurrently, yet never held more calls than the host lets be in flight.
  const held = Number(readFileSync(maxOutstanding, "utf8"));
  expect(held).toBeGreaterThan(1);
  expect(held).toBeLessThanOrEqual(MAX_IN_FLIGHT_REQUESTS);

  const arrived = readRecord(toolRecord).filter((frame) => frame.type === "tool_call").map((frame) => (frame.args as { text: string }).text);
  expect(arrived).toEqual(ids.map((_, i) => `secret ${i}`));

  const watched = readRecord(watchRecord);
  const count = (event: string): number => watched.filter((frame) => frame.type === "event" && frame.event === event).length;
  expect(count("tool_call")).toBe(CALLS);
  expect(count("permission_decision")).toBe(CALLS);
  expect(count("tool_result")).toBe(CALLS);
  expect(watched.filter((frame) => frame.type === "event_intercept").length).toBe(CALLS);
}, 120_000);
