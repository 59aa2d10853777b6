/**
 * Extension interception in the headless modes, through dist/zot and the
 * guard fixture: a blocked turn is an error (reason on stderr, exit 1, no
 * model call; JSON still ends with `done`), print mode prints the text as
 * rewritten by an assistant_message guard, a hidden message is not printed
 * (the reason goes to stderr), and a blocked tool call reaches the model as
 * an error result.
 */
import { expect, test } from "bun:test";
import { cpSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MODES_FIXTURES, parseJsonLines, toolResultsSent, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

function guardExtension(mode: string): string {
  const dir = join(env.base, `guard-${mode}`);
  cpSync(join(MODES_FIXTURES, "guard"), dir, { recursive: true });
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: "guard", exec: "./guard.py", args: [mode], language: "python" }));
  return dir;
}

test("a turn blocked by an extension guard fails with its reason and calls no model", async () => {
  const guard = guardExtension("block-turn");
  const printed = await env.run(["-p", "hello", "--ext", guard, ...env.providerArgs()]);
  expect(printed.code).toBe(1);
  expect(printed.stdout).toBe("");
  expect(printed.stderr).toBe("zot: no turns today\n");

  const json = await env.run(["--json", "hello", "--ext", guard, ...env.providerArgs()]);
  expect(json.code).toBe(1);
  const events = parseJsonLines(json.stdout);
  expect(events.slice(-2)).toEqual([{ type: "turn_end", stop: "error", error: "no turns today" }, { type: "done" }]);
  expect(env.server.requests).toHaveLength(0);
});

test("print mode prints the assistant text as an extension rewrote it", async () => {
  env.server.enqueue({ type: "text", text: "the secret is 42" });
  const result = await env.run(["-p", "tell me", "--ext", guardExtension("redact"), ...env.providerArgs()]);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("[redacted]\n");
});

test("a message a guard hides is not printed, and the user is told why on stderr (print and JSON)", async () => {
  env.server.enqueue({ type: "text", text: "the secret is 42" }, { type: "text", text: "the secret is 42" });
  const printed = await env.run(["-p", "tell me", "--ext", guardExtension("hide"), ...env.providerArgs()]);
  expect(printed.code).toBe(0);
  expect(printed.stdout).toBe("");
  expect(printed.stderr).toBe("zot: [guard] hid the assistant's message: not for your eyes\n");
  const json = await env.run(["--json", "tell me", "--ext", guardExtension("hide"), ...env.providerArgs()]);
  expect(json.code).toBe(0);
  expect(json.stderr).toBe("zot: [guard] hid the assistant's message: not for your eyes\n");
  const types = parseJsonLines(json.stdout).map((event) => event.type);
  expect(types).not.toContain("assistant_message");
  expect(types).not.toContain("assistant_hidden");
});

test("a tool call refused by a guard reaches the model as an error result", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_rm", name: "bash", arguments: { command: "touch made.txt" } }] },
    { type: "text", text: "could not" },
  );
  const result = await env.run(["-p", "make a file", "--ext", guardExtension("deny-bash"), ...env.providerArgs()]);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("could not\n");
  expect(existsSync(join(env.cwd, "made.txt"))).toBe(false);
  expect(toolResultsSent(env.server.requests[1]).get("call_rm")).toContain("bash is not allowed here");
});

test("a bash command a guard rewrote: the user is told what really runs (stderr), and the model's own arguments stay in the transcript", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_rw", name: "bash", arguments: { command: "touch made.txt" } }] },
    { type: "text", text: "done" },
    { type: "tool_calls", calls: [{ id: "call_rw2", name: "bash", arguments: { command: "touch made.txt" } }] },
    { type: "text", text: "done" },
  );
  const printed = await env.run(["-p", "make a file", "--ext", guardExtension("rewrite-bash"), ...env.providerArgs()]);
  expect(printed.code).toBe(0);
  expect(printed.stdout).toBe("done\n");
  expect(printed.stderr).toBe('zot: [guard] rewrote the arguments of bash; it runs with {"command":"echo REWRITTEN"}\n');
  expect(existsSync(join(env.cwd, "made.txt"))).toBe(false);
  expect(toolResultsSent(env.server.requests[1]).get("call_rw")).toContain("REWRITTEN");
  const json = await env.run(["--json", "make a file", "--ext", guardExtension("rewrite-bash"), ...env.providerArgs()]);
  expect(json.code).toBe(0);
  expect(json.stderr).toBe('zot: [guard] rewrote the arguments of bash; it runs with {"command":"echo REWRITTEN"}\n');
  const events = parseJsonLines(json.stdout);
  // The model's call as it made it (the original's behaviour); the UI-only tool_start is not written.
  expect(events.find((event) => event.type === "tool_call")).toEqual({ type: "tool_call", id: "call_rw2", name: "bash", args: { command: "touch made.txt" } });
  expect(events.map((event) => event.type)).not.toContain("tool_start");
});

test("a guard that rewrites arguments into an invalid shape: the error result names the extension", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_bad", name: "bash", arguments: { command: "echo hi" } }] },
    { type: "text", text: "hm" },
  );
  const printed = await env.run(["-p", "say hi", "--ext", guardExtension("rewrite-bad"), ...env.providerArgs()]);
  expect(printed.code).toBe(0);
  expect(printed.stderr).toBe('zot: [guard] rewrote the arguments of bash; it runs with {"command":["not","a","string"]}\n');
  expect(toolResultsSent(env.server.requests[1]).get("call_bad")).toBe(
    'bash: field "command": expected a string\n(this call ran with arguments rewritten by extension guard, not the ones you sent)',
  );
});

test("a guard that answers with the arguments it was shown rewrote nothing: no note, no marker", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_same", name: "bash", arguments: { command: "exit 3" } }] },
    { type: "text", text: "ok" },
  );
  const printed = await env.run(["-p", "fail", "--ext", guardExtension("echo-args"), ...env.providerArgs()]);
  expect(printed.code).toBe(0);
  expect(printed.stderr).toBe("");
  expect(toolResultsSent(env.server.requests[1]).get("call_same")).not.toContain("rewritten");
});

test("an extension's tool_prompt call that a guard rewrote: the user is told too (stderr)", async () => {
  const actions = join(env.base, "cmd-actions");
  cpSync(join(MODES_FIXTURES, "cmd-actions"), actions, { recursive: true });
  writeFileSync(join(env.cwd, "data.txt"), "the secret is 7\n");
  writeFileSync(join(env.cwd, "other.txt"), "something else\n");
  env.server.enqueue({ type: "text", text: "read it" });
  const result = await env.run(["-p", "/fetch the file", "--ext", actions, "--ext", guardExtension("rewrite-read"), ...env.providerArgs()]);
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('zot: [guard] rewrote the arguments of read; it runs with {"path":"other.txt"}\n');
  expect([...toolResultsSent(env.server.requests[0]).values()].join()).toContain("something else");
});
