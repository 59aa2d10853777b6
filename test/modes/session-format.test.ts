/**
 * Session rows through dist/zot (issue 7 classes 1 and 3): tool-call
 * arguments are written as JSON objects, in shapes the original zot tells
 * apart by their fields; both the object and the legacy string form resume;
 * and a session holding data nested 100,000 levels deep (arguments as a
 * string, as an object, or elsewhere in a line) still resumes with a
 * warning, sending the provider a bounded request.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionDirForCwd } from "../../src/session/index.ts";
import { requestMessages, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

type Json = Record<string, unknown>;

function rowsOf(path: string): Json[] {
  return readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Json);
}

function blocksOf(rows: readonly Json[]): Json[] {
  return rows.flatMap((row) => (row.type === "message" ? ((row.message as Json).content as Json[]) : []));
}

/** How the original Go zot classifies a stored block: by field presence, ignoring `type` (reference notes §4.7). */
function originalKind(block: Json): string {
  if ("reasoning_id" in block || "encrypted_content" in block) return "reasoning";
  if ("name" in block && "id" in block) return "tool_call";
  if ("call_id" in block) return "tool_result";
  if ("mime_type" in block) return "image";
  return "text";
}

function writeSession(lines: readonly string[]): string {
  const dir = sessionDirForCwd(env.cwd, join(env.home, "sessions"));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "20240101-000000-0ld5e551.jsonl");
  writeFileSync(path, lines.map((line) => `${line}\n`).join(""));
  return path;
}

const META = JSON.stringify({ type: "meta", meta: { id: "0ld5e551-0000-4000-8000-000000000000", cwd: "/p", model: "m", provider: "anthropic", started: "2024-01-01T00:00:00Z", version: "0" } });
const USER = JSON.stringify({ type: "message", message: { role: "user", content: [{ type: "text", text: "read it" }], time: "t1" } });
const RESULT = JSON.stringify({ type: "message", message: { role: "tool", content: [{ type: "tool_result", call_id: "c1", content: [{ type: "text", text: "file body" }], is_error: false }], time: "t3" } });

/** An assistant message row whose tool call's `arguments` is the raw JSON text `argumentsJson`. */
function callRow(argumentsJson: string): string {
  return `{"type":"message","message":{"role":"assistant","content":[{"type":"tool_call","id":"c1","name":"read","arguments":${argumentsJson}}],"time":"t2"}}`;
}

function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/** The tool_use blocks of an Anthropic request. */
function toolUses(index: number): Json[] {
  return requestMessages(env.server.requests[index]).flatMap((message) =>
    Array.isArray(message.content) ? (message.content as Json[]).filter((block) => block.type === "tool_use") : [],
  );
}

test("tool-call arguments are stored as JSON objects, in blocks the original zot classifies correctly", async () => {
  writeFileSync(join(env.cwd, "notes.txt"), "remember the milk\n");
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_read", name: "read", arguments: { path: "notes.txt" } }] },
    { type: "text", text: "It says to remember the milk." },
  );
  const result = await env.run(["-p", "what do my notes say?", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  const [file] = env.sessionFiles();
  const blocks = blocksOf(rowsOf(file as string));
  const call = blocks.find((block) => block.type === "tool_call");
  expect(call).toMatchObject({ id: "call_read", name: "read", arguments: { path: "notes.txt" } });
  expect(blocks.map(originalKind)).toEqual(blocks.map((block) => String(block.type)));
});

test("a session with arguments in either form resumes: object (original zot) and string (earlier zot)", async () => {
  for (const form of ['{"path":"a.txt"}', JSON.stringify('{"path":"a.txt"}')]) {
    writeSession([META, USER, callRow(form), RESULT]);
    env.server.enqueue({ type: "text", text: "resumed" });
    const result = await env.run(["-p", "-c", "and now?", ...env.providerArgs()]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const uses = toolUses(env.server.requests.length - 1);
    expect(uses).toEqual([{ type: "tool_use", id: "c1", name: "read", input: { path: "a.txt" } }]);
  }
});

test("arguments nested 100,000 levels deep, as a string or as an object, resume as {} with a warning", async () => {
  for (const [form, args] of [["string", JSON.stringify(nested(100_000))], ["object", nested(100_000)]] as const) {
    const path = writeSession([META, USER, callRow(args), RESULT]);
    env.server.enqueue({ type: "text", text: `resumed ${form}` });
    const result = await env.run(["-p", "-c", "hi", ...env.providerArgs()]);
    expect(result.stderr).toBe(`zot: warning: ${path}:3: 1 tool call argument value(s) nested deeper than 128 levels replaced by {}\n`);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`resumed ${form}\n`);
    expect(toolUses(env.server.requests.length - 1)).toEqual([{ type: "tool_use", id: "c1", name: "read", input: {} }]);
  }
});

test("any other line nested too deep is skipped with a warning and the rest resumes", async () => {
  const deepRow = `{"type":"message","message":{"role":"user","content":[{"type":"text","text":"lost"}],"time":"t"},"extra":${nested(100_000)}}`;
  const path = writeSession([META, USER, deepRow, JSON.stringify({ type: "message", message: { role: "assistant", content: [{ type: "text", text: "still here" }], time: "t4" } })]);
  env.server.enqueue({ type: "text", text: "fine" });
  const result = await env.run(["-p", "-c", "hi", ...env.providerArgs()]);
  expect(result.stderr).toBe(`zot: warning: ${path}:3: JSON nested deeper than 256 levels, skipped\n`);
  expect(result.code).toBe(0);
  const texts = JSON.stringify(requestMessages(env.server.requests[0]));
  expect(texts).toContain("still here");
  expect(texts).not.toContain("lost");
});

test("a FIFO named like a session never blocks zot: --session and --fork refuse it, --continue passes it by", async () => {
  const dir = sessionDirForCwd(env.cwd, join(env.home, "sessions"));
  mkdirSync(dir, { recursive: true });
  const fifo = join(dir, "20990101-000000-f1f0f1f0.jsonl");
  expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
  for (const flag of ["--session", "--fork"]) {
    const result = await env.run(["-p", flag, fifo, "hi", ...env.providerArgs()], { timeoutMs: 10_000 });
    expect(result.stderr).toBe(`zot: ${fifo}: not a regular file\n`);
    expect(result.code).toBe(1);
  }
  const path = writeSession([META, USER]);
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
  env.server.enqueue({ type: "text", text: "continued" });
  const result = await env.run(["-p", "-c", "next", ...env.providerArgs()], { timeoutMs: 10_000 });
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe("continued\n");
  expect(JSON.stringify(requestMessages(env.server.requests[0]))).toContain("read it");
});
