/**
 * Every lifecycle event name extensions.md lists, subscribed by
 * test/fixtures/spec-examples/observer-py, through `zot rpc`: three prompts,
 * a compact, then stdin closed. The payloads carry the documented fields
 * (session_id, cwd, sequence; pre_compact / post_compact counts, id and
 * status; session_end reason shutdown), and session_end reaches the
 * extension before its shutdown frame.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseJsonLines, useModeEnv, type ModeEnv } from "../modes/helpers.ts";
import { copyExample } from "./support.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

type Frame = Record<string, unknown>;

test("RPC: compaction and session events as documented; session_end before shutdown", async () => {
  const dir = copyExample(env.base, "observer-py", "observer");
  env.server.enqueue({ type: "text", text: "one" }, { type: "text", text: "two" }, { type: "text", text: "three" }, { type: "text", text: "SUMMARY" });
  const commands = ["a", "b", "c"].map((message, i) => JSON.stringify({ id: `p${i}`, type: "prompt", message }));
  const rpc = await env.run(["rpc", "--ext", dir, ...env.providerArgs()], { stdin: `${[...commands, '{"id":"c","type":"compact"}'].join("\n")}\n` });
  expect(rpc.code).toBe(0);
  expect(parseJsonLines(rpc.stdout).some((line) => line.type === "compact_done")).toBe(true);

  const frames = readFileSync(join(dir, "frames.jsonl"), "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Frame);
  const events = frames.filter((frame) => frame.type === "event");
  for (const frame of events) expect(frame).toMatchObject({ session_id: expect.any(String), cwd: env.cwd, sequence: expect.any(Number) });
  const pre = events.find((frame) => frame.event === "pre_compact");
  const post = events.find((frame) => frame.event === "post_compact");
  expect(pre).toMatchObject({ compaction_id: expect.any(String), message_count: 6, token_estimate: expect.any(Number) });
  expect(post).toMatchObject({ compaction_id: pre?.compaction_id, status: "completed", message_count: expect.any(Number), token_estimate: expect.any(Number) });
  expect(events.filter((frame) => frame.event === "user_prompt_submit").map((frame) => frame.text)).toEqual(["a", "b", "c"]);
  expect(events[0]?.event).toBe("session_start");
  const end = events.at(-1);
  expect(end).toMatchObject({ event: "session_end", reason: "shutdown" });
  expect(frames.at(-1)).toEqual({ type: "shutdown" });
});
