/**
 * An extension that sends call_tool requests in a loop, through dist/zot:
 * at most 16 of one extension's requests run at once (the rest wait and
 * all of them run), so a loop of `bash` requests cannot start a process
 * per request. Each command records how many commands were running when it
 * started (started minus finished), then waits until every command has
 * started or 1.5 s. Without the bound all 24 start before any finishes, so
 * the 17th to start sees at least 17.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_RUNNING_CALL_TOOLS } from "../../src/ext/call-tool-slots.ts";
import { FIXTURES } from "../support/extensions.ts";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const CALLS = 24;

function lines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((line) => line !== "") : [];
}

test(`${CALLS} call_tool bash requests sent at once: all run, never more than ${MAX_RUNNING_CALL_TOOLS} at a time`, async () => {
  const dir = join(env.base, "flood");
  mkdirSync(dir);
  const work = join(env.base, "work");
  mkdirSync(work);
  const results = join(env.base, "results.jsonl");
  const command = [
    `cd ${work}`,
    "echo s >> started",
    "echo $(( $(wc -l < started) - $(cat finished 2>/dev/null | wc -l) )) >> levels",
    "i=0",
    `while [ "$(wc -l < started)" -lt ${CALLS} ] && [ $i -lt 30 ]; do sleep 0.05; i=$((i+1)); done`,
    "echo f >> finished",
  ].join("; ");
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: "flood", exec: join(FIXTURES, "calltool-flood.py"), args: [String(CALLS), command, results], language: "python" }));
  let release: () => void = () => {};
  env.server.enqueue({ type: "text", text: "done", holdUntil: new Promise<void>((resolve) => (release = resolve)) });
  const running = env.run(["-p", "wait", "--ext", dir, ...env.providerArgs()], { timeoutMs: 60_000 });
  const deadline = Date.now() + 45_000;
  while (lines(results).length < CALLS && Date.now() < deadline) await Bun.sleep(50);
  release();
  const result = await running;
  expect(result.code).toBe(0);
  const replies = lines(results).map((line) => JSON.parse(line) as { id: string; is_error: boolean });
  expect(replies).toHaveLength(CALLS);
  expect(replies.filter((reply) => reply.is_error)).toEqual([]);
  const levels = lines(join(work, "levels")).map(Number);
  expect(levels).toHaveLength(CALLS);
  expect(Math.max(...levels)).toBeLessThanOrEqual(MAX_RUNNING_CALL_TOOLS);
}, 90_000);
