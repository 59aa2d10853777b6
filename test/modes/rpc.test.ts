/**
 * RPC mode (`zot rpc`) through dist/zot with a piped stdin: the command
 * matrix (responses, ids, malformed and unknown lines, over-long lines),
 * ZOTCORE_RPC_TOKEN auth, prompts streaming JSON-mode events that end in
 * `done`, serialised prompts, abort, compact (and its summary call's
 * retry event), exit on stdin close after
 * in-flight work, SIGTERM, and extension notes arriving as events.
 */
import { expect, test } from "bun:test";
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { isAlive, waitFor } from "../support/extensions.ts";
import { MODES_FIXTURES, requestTexts, useModeEnv, type ModeEnv } from "./helpers.ts";
import { runMeasured } from "../support/rss.ts";

type Json = Record<string, unknown>;

let env: ModeEnv;
useModeEnv((created) => (env = created));

interface RpcClient {
  /** Every stdout line so far, parsed. */
  readonly lines: Json[];
  send(command: Json | string): void;
  /** The first line (from index `from`) matching, waiting for it. */
  waitFor(match: (line: Json) => boolean, from?: number): Promise<Json>;
  closeStdin(): void;
  /** Exit code once the process ended (killed after 20 s). */
  exited(): Promise<number | null>;
  stderr(): Promise<string>;
  kill(signal: NodeJS.Signals): void;
}

async function startRpc(args: readonly string[] = [], extraEnv: Record<string, string> = {}): Promise<RpcClient> {
  const proc = Bun.spawn([await zotBinary(), "rpc", ...env.providerArgs(), ...args], {
    cwd: env.cwd,
    env: cleanEnv(env.home, extraEnv),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  const lines: Json[] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of proc.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      let newline = pending.indexOf("\n");
      while (newline !== -1) {
        lines.push(JSON.parse(pending.slice(0, newline)) as Json);
        pending = pending.slice(newline + 1);
        newline = pending.indexOf("\n");
      }
    }
    expect(pending).toBe("");
  })();
  const stderr = new Response(proc.stderr).text();
  return {
    lines,
    send: (command) => {
      proc.stdin.write(typeof command === "string" ? command : `${JSON.stringify(command)}\n`);
      void proc.stdin.flush();
    },
    waitFor: async (match, from = 0) => {
      const deadline = performance.now() + 10_000;
      for (;;) {
        const found = lines.slice(from).find(match);
        if (found !== undefined) return found;
        if (performance.now() > deadline) throw new Error(`no matching line; got:\n${lines.map((line) => JSON.stringify(line)).join("\n")}`);
        await Bun.sleep(10);
      }
    },
    closeStdin: () => void proc.stdin.end(),
    exited: async () => {
      await proc.exited;
      await reading;
      clearTimeout(killer);
      return proc.exitCode;
    },
    stderr: () => stderr,
    kill: (signal) => proc.kill(signal),
  };
}

const response = (command: string, id?: string | number) => (line: Json) =>
  line.type === "response" && line.command === command && (id === undefined || line.id === id);
const ofType = (type: string) => (line: Json) => line.type === type;
const types = (lines: readonly Json[]) => lines.map((line) => String(line.type));

test("the model's thinking is UI-only: RPC writes no thinking_delta event and no thinking text", async () => {
  env.server.enqueue({ type: "thinking", thinking: "secret musing about the answer", text: "The answer is 4." });
  const rpc = await startRpc();
  rpc.send({ type: "prompt", id: "p1", message: "what is 2+2?" });
  await rpc.waitFor(ofType("done"));
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);
  expect(types(rpc.lines)).toContain("text_delta");
  expect(types(rpc.lines)).not.toContain("thinking_delta");
  expect(JSON.stringify(rpc.lines)).not.toContain("musing");
});

test("command matrix: ping, hello, state, models, set_model, messages, malformed and unknown lines", async () => {
  const rpc = await startRpc();
  rpc.send({ type: "ping", id: 1 });
  rpc.send("\n   \n");
  rpc.send("{not json\n");
  rpc.send({ type: "teleport", id: "u1" });
  rpc.send("[1,2]\n");
  rpc.send({ type: "hello", id: "h" });
  rpc.send({ type: "get_state", id: "s" });
  rpc.send({ type: "get_models", id: "m" });
  rpc.send({ type: "set_model", id: "sm1", model: "claude-haiku-4-5" });
  rpc.send({ type: "set_model", id: "sm2", model: "gpt-5" });
  rpc.send({ type: "set_model", id: "sm3" });
  rpc.send({ type: "get_state", id: "s2" });
  rpc.send({ type: "get_messages", id: "gm" });
  rpc.send({ type: "clear", id: "c" });
  rpc.send({ type: "abort", id: "a" });
  rpc.send({ type: "prompt", id: "empty", message: "  " });
  // A null field is an absent one, as the original's Go decoder reads it (Python's None).
  rpc.send({ type: "ping", id: null });
  rpc.send({ type: "prompt", id: "img", message: "look", images: [{ mime_type: "image/png", data: "!!not base64" }] });
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);
  const lines = rpc.lines;
  expect(lines.every((line) => line.type === "response")).toBe(true);
  expect(lines).toHaveLength(17);
  expect(lines[15]).toEqual({ type: "response", command: "ping", success: true, data: { pong: true } });
  expect(lines[16]).toEqual({
    type: "response", id: "img", command: "prompt", success: false,
    error: 'invalid prompt command: field "images.0.data": must be base64 (standard alphabet, padded)',
  });
  expect(lines[0]).toEqual({ type: "response", id: 1, command: "ping", success: true, data: { pong: true } });
  expect(lines[1]).toMatchObject({ command: "", success: false });
  expect(String(lines[1]?.error)).toStartWith("malformed JSON");
  expect("id" in (lines[1] ?? {})).toBe(false);
  expect(lines[2]).toEqual({ type: "response", id: "u1", command: "teleport", success: false, error: "unknown command" });
  expect(lines[3]).toMatchObject({ command: "", success: false });
  expect(lines[4]).toEqual({
    type: "response",
    id: "h",
    command: "hello",
    success: true,
    data: { protocol_version: 1, version: expect.any(String), provider: "anthropic", model: "claude-sonnet-4-5" },
  });
  // The one version string the original sends for both: what `zot --version` prints after "zot ".
  const versionLine = (await env.run(["--version"])).stdout;
  expect(versionLine).toMatch(/^zot \d+\.\d+\.\d+\S* \([^,]+, \d{4}-\d{2}-\d{2}\)\n$/);
  expect(`zot ${(lines[4]?.data as { version?: string }).version}\n`).toBe(versionLine);
  expect(lines[5]).toEqual({
    type: "response",
    id: "s",
    command: "get_state",
    success: true,
    data: {
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      cwd: env.cwd,
      message_count: 0,
      busy: false,
      usage: { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: 0 },
    },
  });
  const models = (lines[6]?.data as { models: Json[] }).models;
  expect(models.every((model) => model.provider === "anthropic")).toBe(true);
  expect(models).toContainEqual(expect.objectContaining({ id: "claude-haiku-4-5", context_window: expect.any(Number), max_output: expect.any(Number), reasoning: expect.any(Boolean) }));
  expect(lines[7]).toEqual({ type: "response", id: "sm1", command: "set_model", success: true, data: { model: "claude-haiku-4-5" } });
  expect(lines[8]).toEqual({ type: "response", id: "sm2", command: "set_model", success: false, error: 'unknown model "gpt-5" for provider anthropic' });
  expect(lines[9]).toMatchObject({ id: "sm3", command: "set_model", success: false });
  expect(String(lines[9]?.error)).toContain('"model"');
  expect(lines[10]).toMatchObject({ id: "s2", data: { model: "claude-haiku-4-5" } });
  expect(lines[11]).toEqual({ type: "response", id: "gm", command: "get_messages", success: true, data: { messages: [] } });
  expect(lines[12]).toEqual({ type: "response", id: "c", command: "clear", success: true });
  expect(lines[13]).toEqual({ type: "response", id: "a", command: "abort", success: true });
  expect(lines[14]).toMatchObject({ id: "empty", command: "prompt", success: false });
  expect(await rpc.stderr()).toBe("");
});

test("auth: commands before hello are refused; the right token opens the connection", async () => {
  const rpc = await startRpc([], { ZOTCORE_RPC_TOKEN: "s3cret" });
  rpc.send({ type: "ping", id: 1 });
  rpc.send({ type: "nonsense", id: 2 });
  rpc.send("{oops\n");
  rpc.send({ type: "hello", id: 3, token: "s3cret" });
  rpc.send({ type: "ping", id: 4 });
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);
  expect(rpc.lines[0]).toEqual({ type: "response", id: 1, command: "ping", success: false, error: "auth required: send hello with token first" });
  expect(rpc.lines[1]).toMatchObject({ id: 2, success: false, error: "auth required: send hello with token first" });
  expect(rpc.lines[2]).toMatchObject({ command: "", success: false });
  expect(rpc.lines[3]).toMatchObject({ id: 3, command: "hello", success: true, data: { protocol_version: 1 } });
  expect(rpc.lines[4]).toMatchObject({ id: 4, command: "ping", success: true, data: { pong: true } });
});

test("auth: a wrong token is an error and the process exits 1", async () => {
  const rpc = await startRpc([], { ZOTCORE_RPC_TOKEN: "s3cret" });
  rpc.send({ type: "hello", id: "h", token: "guess" });
  rpc.send({ type: "ping", id: "p" });
  expect(await rpc.exited()).toBe(1);
  expect(rpc.lines).toEqual([{ type: "response", id: "h", command: "hello", success: false, error: "invalid token" }]);
});

test("a prompt with a tool call streams JSON-mode events and ends with done", async () => {
  writeFileSync(join(env.cwd, "data.txt"), "forty-two\n");
  env.server.enqueue(
    { type: "tool_calls", text: "Looking.", calls: [{ id: "call_1", name: "read", arguments: { path: "data.txt" } }] },
    { type: "text", text: "It says forty-two." },
  );
  const rpc = await startRpc();
  rpc.send({ type: "prompt", id: "p1", message: "what is in data.txt?" });
  await rpc.waitFor(ofType("done"));
  rpc.send({ type: "get_messages", id: "gm" });
  rpc.send({ type: "get_state", id: "gs" });
  await rpc.waitFor(response("get_state"));
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);

  const done = rpc.lines.findIndex(ofType("done"));
  const run = rpc.lines.slice(0, done + 1);
  expect(run[0]).toEqual({ type: "response", id: "p1", command: "prompt", success: true, data: { started: true } });
  const streaming = new Set(["text_delta", "tool_use_start", "tool_use_args", "tool_use_end"]);
  expect(types(run.slice(1)).filter((type) => !streaming.has(type))).toEqual([
    "user_message", "turn_start", "assistant_start", "usage", "assistant_message", "tool_call", "turn_end",
    "tool_result", "turn_start", "assistant_start", "usage", "assistant_message", "turn_end", "done",
  ]);
  expect(run.find(ofType("tool_call"))).toEqual({ type: "tool_call", id: "call_1", name: "read", args: { path: "data.txt" } });
  expect(JSON.stringify(run.find(ofType("tool_result")))).toContain("forty-two");
  expect(run.filter(ofType("done"))).toHaveLength(1);

  const messages = ((await rpc.waitFor(response("get_messages"))).data as { messages: Json[] }).messages;
  expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  expect(messages[0]).toMatchObject({ content: [{ type: "text", text: "what is in data.txt?" }], time: expect.any(String) });
  expect(messages[1]?.content).toContainEqual({ type: "tool_call", id: "call_1", name: "read", args: { path: "data.txt" } });
  const state = await rpc.waitFor(response("get_state"));
  expect(state.data).toMatchObject({ message_count: 4, busy: false, usage: { input: 20, output: 10 } });
});

test("a turn an extension blocks ends with turn_end carrying the reason and done — no error event (the original's prompt did not fail)", async () => {
  const guard = join(env.base, "guard");
  cpSync(join(MODES_FIXTURES, "guard"), guard, { recursive: true });
  writeFileSync(join(guard, "extension.json"), JSON.stringify({ name: "guard", exec: "./guard.py", args: ["block-turn"], language: "python" }));
  const rpc = await startRpc(["--ext", guard]);
  rpc.send({ type: "prompt", id: "p1", message: "hello" });
  await rpc.waitFor(ofType("done"));
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);
  expect(types(rpc.lines)).toEqual(["response", "user_message", "turn_start", "turn_end", "done"]);
  expect(rpc.lines.find(ofType("turn_end"))).toEqual({ type: "turn_end", stop: "error", error: "no turns today" });
  expect(env.server.requests).toHaveLength(0);
});

test("a tool call a guard rewrote is announced to the client as an ext_notify warning before its result", async () => {
  const guard = join(env.base, "guard");
  cpSync(join(MODES_FIXTURES, "guard"), guard, { recursive: true });
  writeFileSync(join(guard, "extension.json"), JSON.stringify({ name: "guard", exec: "./guard.py", args: ["rewrite-bash"], language: "python" }));
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_rw", name: "bash", arguments: { command: "touch made.txt" } }] },
    { type: "text", text: "done" },
  );
  const rpc = await startRpc(["--ext", guard]);
  rpc.send({ type: "prompt", id: "p1", message: "make it" });
  await rpc.waitFor(ofType("done"));
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);
  const note = rpc.lines.findIndex(ofType("ext_notify"));
  expect(rpc.lines[note]).toEqual({
    type: "ext_notify", extension: "guard", level: "warn",
    message: '[guard] rewrote the arguments of bash; it runs with {"command":"echo REWRITTEN"}',
  });
  expect(note).toBeGreaterThan(rpc.lines.findIndex(ofType("tool_call")));
  expect(note).toBeLessThan(rpc.lines.findIndex(ofType("tool_result")));
});

test("a second prompt waits for the first; clear is refused while busy", async () => {
  env.server.enqueue({ type: "text", text: "first answer", chunks: 4, delayMs: 40 }, { type: "text", text: "second answer" });
  const rpc = await startRpc();
  rpc.send({ type: "prompt", id: "p1", message: "one" });
  rpc.send({ type: "prompt", id: "p2", message: "two" });
  rpc.send({ type: "get_state", id: "busy" });
  rpc.send({ type: "clear", id: "c" });
  await rpc.waitFor(response("prompt", "p2"));
  await rpc.waitFor(ofType("done"), rpc.lines.findIndex(response("prompt", "p2")));
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);
  const at = (match: (line: Json) => boolean) => rpc.lines.findIndex(match);
  const dones = rpc.lines.flatMap((line, index) => (line.type === "done" ? [index] : []));
  expect(dones).toHaveLength(2);
  expect(at(response("prompt", "p1"))).toBeLessThan(dones[0] ?? -1);
  expect(at(response("prompt", "p2"))).toBeGreaterThan(dones[0] ?? Infinity);
  expect(at(response("prompt", "p2"))).toBeLessThan(dones[1] ?? -1);
  expect(rpc.lines[at(response("get_state", "busy"))]?.data).toMatchObject({ busy: true });
  expect(rpc.lines[at(response("clear", "c"))]).toMatchObject({ success: false, error: "agent is busy" });
  const texts = rpc.lines.filter(ofType("assistant_message")).map((line) => JSON.stringify(line.content));
  expect(texts[0]).toContain("first answer");
  expect(texts[1]).toContain("second answer");
  expect(env.server.requests).toHaveLength(2);
});

test("abort mid-stream ends the prompt with turn_end aborted and done, and the process keeps serving", async () => {
  env.server.enqueue({ type: "stall", text: "thinking about it" });
  const rpc = await startRpc();
  rpc.send({ type: "prompt", id: "p", message: "go" });
  await rpc.waitFor(ofType("text_delta"));
  rpc.send({ type: "abort", id: "a" });
  await rpc.waitFor(ofType("done"));
  rpc.send({ type: "ping", id: "after" });
  await rpc.waitFor(response("ping", "after"));
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);
  expect(rpc.lines).toContainEqual({ type: "response", id: "a", command: "abort", success: true });
  const done = rpc.lines.findIndex(ofType("done"));
  expect(rpc.lines.slice(0, done).filter(ofType("turn_end")).at(-1)).toEqual({ type: "turn_end", stop: "aborted" });
  expect(rpc.lines.some(ofType("error"))).toBe(false);
});

test("compact: started, compact_done with the summary, done; an empty transcript ends with error then done", async () => {
  env.server.enqueue({ type: "text", text: "a1" }, { type: "text", text: "a2" }, { type: "text", text: "a3" }, { type: "text", text: "SUMMARY OF WORK" });
  const rpc = await startRpc();
  rpc.send({ type: "compact", id: "c0" });
  await rpc.waitFor(ofType("done"));
  for (const word of ["one", "two", "three"]) rpc.send({ type: "prompt", message: word });
  rpc.send({ type: "compact", id: "c1" });
  await rpc.waitFor(ofType("compact_done"));
  rpc.send({ type: "get_messages", id: "gm" });
  await rpc.waitFor(response("get_messages"));
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);

  const first = rpc.lines.slice(0, 3);
  expect(first[0]).toEqual({ type: "response", id: "c0", command: "compact", success: true, data: { started: true } });
  expect(first[1]).toMatchObject({ type: "error", message: expect.stringContaining("nothing to compact") });
  expect(first[2]).toEqual({ type: "done" });
  const started = rpc.lines.findIndex(response("compact", "c1"));
  expect(rpc.lines[started]).toMatchObject({ success: true, data: { started: true } });
  expect(rpc.lines.slice(started + 1, started + 3)).toEqual([{ type: "compact_done", summary: "SUMMARY OF WORK" }, { type: "done" }]);
  const messages = ((await rpc.waitFor(response("get_messages"))).data as { messages: Json[] }).messages;
  expect(messages).toHaveLength(5);
  expect(JSON.stringify(messages[0]?.content)).toContain("SUMMARY OF WORK");
});

test("compact: a retried summary call shows its retry event before compact_done", async () => {
  env.server.enqueue(
    { type: "text", text: "a1" },
    { type: "text", text: "a2" },
    { type: "text", text: "a3" },
    { type: "http_error", status: 503, message: "busy", headers: { "retry-after-ms": "10" } },
    { type: "text", text: "SUMMARY AFTER RETRY" },
  );
  const rpc = await startRpc();
  for (const word of ["one", "two", "three"]) rpc.send({ type: "prompt", message: word });
  rpc.send({ type: "compact", id: "c" });
  await rpc.waitFor(ofType("compact_done"));
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);
  const started = rpc.lines.findIndex(response("compact", "c"));
  expect(rpc.lines.slice(started + 1)).toEqual([
    {
      type: "retry",
      provider: "anthropic",
      attempt: 1,
      max_retries: 5,
      delay_ms: 10,
      status: 503,
      error: "anthropic: http 503: api_error: busy",
      message: "anthropic: retrying in 10 ms (retry 1 of 5): 503 service unavailable",
    },
    { type: "compact_done", summary: "SUMMARY AFTER RETRY" },
    { type: "done" },
  ]);
});

test("stdin closing mid-prompt: the prompt finishes, then zot exits 0", async () => {
  env.server.enqueue({ type: "text", text: "slow but complete", chunks: 5, delayMs: 60 });
  const rpc = await startRpc();
  rpc.send({ type: "prompt", id: "p", message: "take your time" });
  await rpc.waitFor(response("prompt", "p"));
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);
  expect(rpc.lines.at(-1)).toEqual({ type: "done" });
  expect(JSON.stringify(rpc.lines.find(ofType("assistant_message")))).toContain("slow but complete");
});

function notesExtension(): string {
  const dir = join(env.base, "rpc-notes");
  cpSync(join(MODES_FIXTURES, "rpc-notes"), dir, { recursive: true });
  return dir;
}

function notePid(note: Json): number {
  return Number(/\(pid (\d+)\)/.exec(String(note.message))?.[1]);
}

test("SIGTERM aborts the running prompt, ends it with done, shuts extensions down and exits 143", async () => {
  env.server.enqueue({ type: "stall", text: "forever" });
  const rpc = await startRpc(["--ext", notesExtension()]);
  const pid = notePid(await rpc.waitFor(ofType("ext_notify")));
  rpc.send({ type: "prompt", id: "p", message: "hang" });
  rpc.send({ type: "prompt", id: "queued", message: "never runs" });
  await rpc.waitFor(ofType("text_delta"));
  rpc.kill("SIGTERM");
  expect(await rpc.exited()).toBe(143);
  const tail = rpc.lines.slice(rpc.lines.findIndex(ofType("done")));
  expect(tail).toEqual([{ type: "done" }, { type: "response", id: "queued", command: "prompt", success: false, error: "interrupted: zot is shutting down" }]);
  expect(await rpc.stderr()).toContain("zot: interrupted");
  expect(await waitFor(() => !isAlive(pid))).toBe(true);
  expect(env.server.requests).toHaveLength(1);
});

test("a line over 16 MiB gets an error response and is skipped", async () => {
  const rpc = await startRpc();
  rpc.send(`{"type":"ping","pad":"${"x".repeat(16 * 1024 * 1024 + 10)}"}\n`);
  rpc.send({ type: "ping", id: "ok" });
  await rpc.waitFor(response("ping", "ok"));
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);
  expect(rpc.lines).toHaveLength(2);
  expect(rpc.lines[0]).toMatchObject({ command: "", success: false, error: expect.stringContaining("line too long") });
});

test("extension notes arrive as ext_notify / ext_clear_notes; slash commands stay plain text", async () => {
  env.server.enqueue({ type: "text", text: "hi" });
  const rpc = await startRpc(["--ext", notesExtension()]);
  const note = await rpc.waitFor(ofType("ext_notify"));
  expect(note).toEqual({ type: "ext_notify", extension: "rpc-notes", level: "info", message: expect.stringMatching(/^notes ready for claude-sonnet-4-5 \(pid \d+\)$/) });
  rpc.send({ type: "prompt", id: "p", message: "/greet everyone" });
  await rpc.waitFor(ofType("done"));
  await rpc.waitFor(ofType("ext_clear_notes"));
  rpc.closeStdin();
  expect(await rpc.exited()).toBe(0);
  expect(rpc.lines).toContainEqual({ type: "ext_clear_notes", extension: "rpc-notes" });
  expect(rpc.lines.filter(ofType("ext_notify"))).toHaveLength(1);
  expect(requestTexts(env.server.requests[0])).toContain("/greet everyone");
  expect(await waitFor(() => !isAlive(notePid(note)))).toBe(true);
});

test("a client that never stops writing cannot starve signal handling: SIGTERM still exits 143", async () => {
  const binary = await zotBinary();
  // zot's stdin is an endless flood of junk lines (its answers go to /dev/null: a stalled stdout is another test);
  // the shell prints zot's pid and reports its exit code.
  const script = 'yes "not json" | "$0" rpc --base-url "$1" >/dev/null 2>&1 & echo "$!"; wait "$!"; echo "exit $?"';
  const shell = Bun.spawn(["/bin/sh", "-c", script, binary, env.server.anthropicBaseUrl], {
    cwd: env.cwd,
    env: cleanEnv(env.home, { ANTHROPIC_API_KEY: "test-key" }),
    stdout: "pipe",
    stderr: "ignore",
  });
  const lines = shell.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let pid = 0;
  try {
    pid = Number((await lines.read()).value?.trim());
    expect(pid).toBeGreaterThan(0);
    // Let the flood run past startup: answering junk lines keeps the process busy.
    await Bun.sleep(1_000);
    process.kill(pid, "SIGTERM");
    expect(await waitFor(() => !isAlive(pid), 10_000)).toBe(true);
    let rest = "";
    for (let chunk = await lines.read(); !chunk.done; chunk = await lines.read()) rest += chunk.value;
    expect(rest.trim()).toBe("exit 143");
  } finally {
    if (pid > 0 && isAlive(pid)) process.kill(pid, "SIGKILL");
    await shell.exited;
  }
});

test("reading a long flood of input keeps memory bounded: 200 MB of junk lines in, under 150 MB peak RSS", async () => {
  const binary = await zotBinary();
  const junk = "x".repeat(1000);
  const run = await runMeasured(["/bin/sh", "-c", 'yes "$1" | head -n 200000 | "$0" rpc >/dev/null', binary, junk], {
    cwd: env.cwd,
    env: cleanEnv(env.home, { ANTHROPIC_API_KEY: "test-key" }),
  });
  expect(run.code).toBe(0);
  // Every 64 KiB chunk read was kept alive by a race against a never-settling promise: ≈300 MB.
  expect(run.maxRss).toBeLessThan(150 * 1024 * 1024);
}, 30_000);
