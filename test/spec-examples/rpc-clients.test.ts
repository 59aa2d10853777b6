/**
 * RPC clients written from zot-reference-notes.md §5.3 (POSIX sh + jq,
 * Python, plain Node; test/fixtures/spec-examples/rpc-clients) run against
 * dist/zot as `zot` on PATH with the stand-in model: hello, ping, prompt
 * (its `started` response, the JSON-mode events, `turn_end` stop `end`,
 * the final `done`), get_state, get_messages, get_models, set_model,
 * clear, abort, an unknown command, a line that is not an object, and the
 * exit when stdin closes.
 */
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { REPO_ROOT, cleanEnv, zotBinary } from "../support/binary.ts";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";
import { SPEC_EXAMPLES } from "./support.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const CLIENTS = join(SPEC_EXAMPLES, "rpc-clients");

async function runClient(argv: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const binary = await zotBinary();
  const base = cleanEnv(env.home);
  const proc = Bun.spawn([...argv, ...env.providerArgs()], {
    cwd: env.cwd,
    env: { ...base, PATH: `${dirname(binary)}:${base.PATH}` },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  clearTimeout(killer);
  return { code: proc.exitCode, stdout, stderr };
}

test("shell + jq: piped commands, stdin closed, the prompt still runs to done", async () => {
  env.server.enqueue({ type: "text", text: "Hello from the model", chunks: 3 });
  const result = await runClient(["sh", join(CLIENTS, "client.sh")]);
  expect(result.code).toBe(0);
  const lines = result.stdout.trimEnd().split("\n");
  expect(lines[0]).toMatch(/^response h hello true \{"protocol_version":1,"version":"[^"]+","provider":"anthropic","model":"[^"]+"\}$/);
  expect(lines.slice(1)).toEqual([
    'response 1 ping true {"pong":true}',
    'response p prompt true {"started":true}',
    "assistant Hello from the model",
    "turn_end end",
    "done",
  ]);
});

test("Python: every command of the table", async () => {
  env.server.enqueue(
    { type: "text", text: "Hello from the model", chunks: 3 },
    { type: "text", text: "two" },
    { type: "text", text: "three" },
    { type: "text", text: "SUMMARY: said hello" },
  );
  const result = await runClient(["python3", join(CLIENTS, "client.py")]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const lines = result.stdout.trimEnd().split("\n");
  expect(lines[0]).toMatch(/^hello True 1 anthropic \S+$/);
  expect(lines.slice(1)).toEqual([
    'ping {"pong": true}',
    "turn_end end",
    "prompt True Hello from the model",
    "turn_end end",
    "prompt True two",
    "turn_end end",
    "prompt True three",
    "state anthropic 6 False ['cache_read', 'cache_write', 'cost_usd', 'input', 'output']",
    "messages ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'] True",
    'compact True {"started": true}',
    expect.stringMatching(/^compact_done .*SUMMARY: said hello/) as unknown as string,
    "models True ['context_window', 'id', 'max_output', 'provider', 'reasoning']",
    "set_model True",
    "clear True 0",
    "abort True",
    "unknown False frobnicate unknown command",
    expect.stringMatching(/^malformed \{"type": "response", "command": "", "success": false, "error": "[^"]+"\}$/) as unknown as string,
    "exit 0",
  ]);
});

test("Node: prompt events in order, then state and exit", async () => {
  env.server.enqueue({ type: "text", text: "Hello from the model", chunks: 3 });
  const result = await runClient(["node", join(CLIENTS, "client.mjs")]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout.trimEnd().split("\n")).toEqual([
    "hello true 1",
    'prompt true {"started":true}',
    // §4.2: user_message, turn_start, assistant_start, deltas, usage, assistant_message, turn_end, then the server's done.
    "events user_message,turn_start,assistant_start,text_delta,usage,assistant_message,turn_end,done",
    "state 2 false",
    "exit 0",
  ]);
});

test("ZOTCORE_RPC_TOKEN: commands before hello are refused, a wrong token ends the process", async () => {
  const lines = (stdout: string): Record<string, unknown>[] => stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  const refused = await env.run(["rpc", ...env.providerArgs()], {
    env: { ZOTCORE_RPC_TOKEN: "s3cret" },
    stdin: '{"id":1,"type":"ping"}\n{"id":2,"type":"hello","token":"s3cret"}\n{"id":3,"type":"ping"}\n',
  });
  expect(refused.code).toBe(0);
  expect(lines(refused.stdout)).toEqual([
    { type: "response", id: 1, command: "ping", success: false, error: "auth required: send hello with token first" },
    { type: "response", id: 2, command: "hello", success: true, data: expect.objectContaining({ protocol_version: 1 }) },
    { type: "response", id: 3, command: "ping", success: true, data: { pong: true } },
  ]);
  const wrong = await env.run(["rpc", ...env.providerArgs()], { env: { ZOTCORE_RPC_TOKEN: "s3cret" }, stdin: '{"type":"hello","token":"nope"}\n{"type":"ping"}\n' });
  expect(wrong.code).toBe(1);
  expect(lines(wrong.stdout)).toEqual([{ type: "response", command: "hello", success: false, error: "invalid token" }]);
});

/** A `zot` on PATH that is dist/zot pointed at the stand-in model (the docs' examples rely on a configured provider). */
async function zotShimDir(): Promise<string> {
  const bin = join(env.base, "shim-bin");
  mkdirSync(bin, { recursive: true });
  const quoted = env.providerArgs().map((arg) => `'${arg}'`).join(" ");
  writeFileSync(join(bin, "zot"), `#!/bin/sh\nexec '${await zotBinary()}' "$@" ${quoted}\n`);
  chmodSync(join(bin, "zot"), 0o755);
  return bin;
}

function docsBlock(language: string): string {
  const text = readFileSync(join(REPO_ROOT, "docs", "rpc.md"), "utf8");
  const examples = text.slice(text.indexOf("## Examples"));
  const match = examples.match(new RegExp("```" + language + "\\n([\\s\\S]*?)```"));
  if (match?.[1] === undefined) throw new Error(`docs/rpc.md has no ${language} example`);
  return match[1];
}

async function runScript(argv: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = cleanEnv(env.home);
  const proc = Bun.spawn([...argv], { cwd: env.cwd, env: { ...base, PATH: `${await zotShimDir()}:${base.PATH}` }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  clearTimeout(killer);
  return { code: proc.exitCode, stdout, stderr };
}

test("docs/rpc.md: the shell + jq examples", async () => {
  env.server.enqueue({ type: "text", text: "It is a coding agent.", chunks: 2 }, { type: "text", text: "tests pass" });
  const script = join(env.base, "example.sh");
  writeFileSync(script, docsBlock("sh"));
  const result = await runScript(["sh", script]);
  expect(result.code).toBe(0);
  // The first example prints the text without a newline (jq -j); the second's lines follow it.
  expect(result.stdout).toStartWith("It is a coding agent.{");
  const rest = result.stdout.slice("It is a coding agent.".length).split("\n").filter((line) => line !== "");
  const frames = rest.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(frames[0]).toMatchObject({ type: "response", command: "hello", success: true });
  expect(frames.find((frame) => frame.id === "p1")).toMatchObject({ command: "prompt", success: true, data: { started: true } });
  expect(frames.find((frame) => frame.id === "st")).toMatchObject({ command: "get_state", success: true });
  expect(frames.at(-1)).toEqual({ type: "done" });
});

test("docs/rpc.md: the Python example", async () => {
  env.server.enqueue({ type: "text", text: "README says hi", chunks: 2 });
  const script = join(env.base, "example.py");
  writeFileSync(script, docsBlock("python"));
  const result = await runScript(["python3", script]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const lines = result.stdout.split("\n");
  expect(lines[0]).toBe("README says hi");
  expect(Object.keys(JSON.parse(lines[1]?.replaceAll("'", '"') ?? "{}") as object).sort()).toEqual(["cache_read", "cache_write", "cost_usd", "input", "output"]);
});

test("prompt with images: {mime_type, data} reaches the model as an image block", async () => {
  // A 1x1 PNG.
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  env.server.enqueue({ type: "text", text: "a pixel" });
  const result = await env.run(["rpc", ...env.providerArgs()], {
    stdin: `${JSON.stringify({ id: "i", type: "prompt", message: "what is this?", images: [{ mime_type: "image/png", data: png }] })}\n`,
  });
  expect(result.code).toBe(0);
  const body = JSON.stringify(env.server.requests[0]?.body);
  expect(body).toContain(png);
  expect(body).toContain("image/png");
  expect(result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string }).at(-1)).toEqual({ type: "done" });
});
