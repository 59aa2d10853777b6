/**
 * Sessions and failures in print mode through dist/zot: --continue resends
 * the earlier transcript; prompts come from stdin; provider faults (401,
 * 503-then-success, stall, dropped connection, malformed SSE) end with one
 * `zot:` line and exit 1 while the session file stays loadable; kill -9 and
 * SIGTERM in the middle of a turn leave a loadable session (and SIGTERM
 * shuts extensions down, exit 143).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSession } from "../../src/session/index.ts";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { isAlive, waitFor } from "../support/extensions.ts";
import type { ScriptedReply } from "../support/model-server.ts";
import { requestMessages, requestTexts, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

function onlySession(): string {
  const files = env.sessionFiles();
  expect(files).toHaveLength(1);
  return files[0] as string;
}

test("--continue resumes the latest session: the second request carries the first run's messages", async () => {
  env.server.enqueue({ type: "text", text: "The first answer." }, { type: "text", text: "The second answer." });
  const first = await env.run(["-p", "first question", ...env.providerArgs()]);
  expect(first.code).toBe(0);
  const second = await env.run(["-p", "-c", "second question", ...env.providerArgs()]);
  expect(second.stderr).toBe("");
  expect(second.code).toBe(0);
  expect(second.stdout).toBe("The second answer.\n");

  const messages = requestMessages(env.server.requests[1]);
  expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
  const texts = requestTexts(env.server.requests[1]);
  expect(texts).toContain("first question");
  expect(texts).toContain("The first answer.");
  expect(texts).toContain("second question");
  // Both runs wrote into the same file.
  expect(loadSession(onlySession()).messages).toHaveLength(4);
});

test("--continue with no earlier session starts a new one and says so", async () => {
  env.server.enqueue({ type: "text", text: "fresh" });
  const result = await env.run(["-p", "--continue", "hello", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  expect(result.stderr).toBe("zot: no previous session in this directory; starting a new one\n");
  expect(loadSession(onlySession()).messages).toHaveLength(2);
});

test("--no-session writes nothing; --session <path> appends to that file", async () => {
  env.server.enqueue({ type: "text", text: "one" }, { type: "text", text: "two" }, { type: "text", text: "three" });
  expect((await env.run(["-p", "nothing saved", "--no-session", ...env.providerArgs()])).code).toBe(0);
  expect(env.sessionFiles()).toEqual([]);
  expect((await env.run(["-p", "saved", ...env.providerArgs()])).code).toBe(0);
  const file = onlySession();
  const third = await env.run(["-p", "again", "--session", file, ...env.providerArgs()]);
  expect(third.code).toBe(0);
  expect(requestTexts(env.server.requests[2])).toContain("saved");
  expect(loadSession(file).messages).toHaveLength(4);
});

test("the prompt can come on stdin", async () => {
  env.server.enqueue({ type: "text", text: "from stdin" });
  const result = await env.run(["-p", ...env.providerArgs()], { stdin: "  what is on stdin?\n\n" });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("from stdin\n");
  const [user] = requestMessages(env.server.requests[0]);
  expect(JSON.stringify(user?.content)).toContain("what is on stdin?");
  expect(JSON.stringify(user?.content)).not.toContain("\\n\\n");
});

interface Fault {
  readonly name: string;
  readonly replies: readonly ScriptedReply[];
  readonly stderr: RegExp;
}

const FAULTS: readonly Fault[] = [
  { name: "401", replies: [{ type: "http_error", status: 401, message: "invalid x-api-key" }], stderr: /^zot: anthropic: http 401: authentication_error: invalid x-api-key\n$/ },
  { name: "stalled stream", replies: [{ type: "stall", text: "partial" }], stderr: /^zot: anthropic: stream stalled: no event for 300 ms\n$/ },
  { name: "dropped connection", replies: [{ type: "drop", text: "partial" }], stderr: /^zot: anthropic: connection dropped mid-stream\b.*\n$/ },
  { name: "malformed SSE", replies: [{ type: "malformed", text: "partial" }], stderr: /^zot: anthropic: unparseable message event\b.*\n$/ },
  { name: "missing terminal event", replies: [{ type: "no_terminal", text: "partial" }], stderr: /^zot: anthropic: stream ended before message_stop\b.*\n$/ },
];

describe.each(FAULTS)("provider fault: $name", (fault) => {
  test("one zot: line on stderr, exit 1, the session still loads", async () => {
    env.server.enqueue(...fault.replies);
    const result = await env.run(["-p", "do something", ...env.providerArgs()], { env: { ZOT_STREAM_IDLE_TIMEOUT_MS: "300" } });
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(fault.stderr);
    expect(result.stderr.split("\n")).toHaveLength(2);
    expect(result.code).toBe(1);
    const loaded = loadSession(onlySession());
    expect(loaded.messages[0]?.role).toBe("user");
  });
});

test("a 503 is retried, announced on stderr, and the run succeeds", async () => {
  env.server.enqueue({ type: "http_error", status: 503, message: "overloaded", headers: { "retry-after-ms": "20" } }, { type: "text", text: "after retry" });
  const result = await env.run(["-p", "retry me", ...env.providerArgs("openai")]);
  expect(result.stderr).toBe("zot: openai: retrying in 20 ms (retry 1 of 5): 503 service unavailable\n");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("after retry\n");
  expect(env.server.requests).toHaveLength(2);
});

async function spawnStalledRun(extraArgs: readonly string[]): Promise<Bun.Subprocess<"ignore", "pipe", "pipe">> {
  env.server.enqueue({ type: "stall", text: "thinking about it" });
  const proc = Bun.spawn([await zotBinary(), "-p", "long task", ...extraArgs, ...env.providerArgs()], {
    cwd: env.cwd,
    env: cleanEnv(env.home),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await waitFor(() => env.server.requests.length === 1, 10_000)).toBe(true);
  await Bun.sleep(100);
  return proc;
}

test("kill -9 in the middle of a turn leaves a session file that loads", async () => {
  const proc = await spawnStalledRun([]);
  proc.kill("SIGKILL");
  await proc.exited;
  expect(proc.signalCode).toBe("SIGKILL");
  const loaded = loadSession(onlySession());
  expect(loaded.messages.map((message) => message.role)).toEqual(["user"]);
  expect(JSON.stringify(loaded.messages[0]?.content)).toContain("long task");
});

test("SIGTERM mid-turn aborts, closes the session, stops extensions and exits 143", async () => {
  const pidFile = join(env.base, "ext.pid");
  const { behaveExtension } = await import("../support/extensions.ts");
  const extension = behaveExtension(env.base, "watcher", [`pid-file=${pidFile}`]);
  const proc = await spawnStalledRun(["--ext", extension]);
  const extensionPid = (JSON.parse(readFileSync(pidFile, "utf8")) as { pid: number }).pid;
  expect(isAlive(extensionPid)).toBe(true);
  proc.kill("SIGTERM");
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  expect(code).toBe(143);
  expect(stderr).toBe("zot: interrupted\n");
  expect(isAlive(extensionPid)).toBe(false);
  expect(loadSession(onlySession()).messages[0]?.role).toBe("user");
});

test("SIGINT mid-turn exits 130", async () => {
  const proc = await spawnStalledRun([]);
  proc.kill("SIGINT");
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  expect(code).toBe(130);
  expect(stderr).toBe("zot: interrupted\n");
  expect(loadSession(onlySession()).messages[0]?.role).toBe("user");
});

test("automatic compaction is recorded in the session file with the right kept rows", async () => {
  writeFileSync(
    join(env.home, "models.json"),
    JSON.stringify({ providers: { anthropic: { models: [{ id: "tiny-window", contextWindow: 100, maxTokens: 50 }] } } }),
  );
  const step = (id: string, input: number): ScriptedReply => ({
    type: "tool_calls",
    usage: { input },
    calls: [{ id, name: "bash", arguments: { command: `echo ${id}` } }],
  });
  env.server.enqueue(step("call_1", 10), step("call_2", 10), step("call_3", 95), { type: "text", text: "SUMMARY OF WORK" }, { type: "text", text: "finished" });
  const result = await env.run(["-p", "long job", "--model", "tiny-window", ...env.providerArgs()]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("finished\n");
  expect(env.server.requests).toHaveLength(5);
  expect(requestTexts(env.server.requests[4])).toContain("SUMMARY OF WORK");
  expect(requestTexts(env.server.requests[4])).not.toContain("long job");

  const loaded = loadSession(onlySession());
  expect(loaded.compacted).toBe(true);
  expect(JSON.stringify(loaded.messages[0]?.content)).toContain("SUMMARY OF WORK");
  expect(loaded.messages.at(-1)?.role).toBe("assistant");
  expect(JSON.stringify(loaded.messages)).toContain("call_3");
});
