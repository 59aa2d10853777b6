/**
 * Found by an extension author's acceptance run (extensions written only
 * from extensions.md, no SDK), through dist/zot and the stand-in model:
 * the POSIX sh + jq guard in test/fixtures/extensions/author-shguard
 * (rules in its data_dir's `rules` file, see guard.sh).
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "bun:test";
import { FIXTURES } from "../support/extensions.ts";
import { type ModeEnv, useModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((fresh) => (env = fresh));

/** Installs the sh guard into the run's ZOT_HOME with these rules. */
function installGuard(rules: string): void {
  const dir = join(env.home, "extensions", "shguard");
  cpSync(join(FIXTURES, "author-shguard"), dir, { recursive: true });
  writeFileSync(join(dir, "rules"), rules);
}

type Line = Record<string, unknown>;
const lines = (stdout: string): Line[] => stdout.trim().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Line);
const deltas = (events: Line[]): string => events.filter((e) => e.type === "text_delta").map((e) => e.delta as string).join("");

test("a guard that sends ready but takes a while to register (here 0.8 s) is waited for: its tool_call block applies to the first prompt", async () => {
  installGuard("start_delay 0.8\nblock_tool bash\n");
  env.server.enqueue({ type: "tool_calls", calls: [{ name: "bash", arguments: { command: "echo UNGUARDED" } }] }, { type: "text", text: "done" });
  const result = await env.run(["--json", "go", ...env.providerArgs()], { timeoutMs: 25_000 });
  expect(result.code).toBe(0);
  const toolResult = lines(result.stdout).find((e) => e.type === "tool_result");
  expect(toolResult).toMatchObject({ is_error: true, content: [{ type: "text", text: "shguard refused bash" }] });
  expect(result.stdout).not.toContain("UNGUARDED\\n");
});

test("--json and RPC: while a guard intercepts assistant_message, streamed text_delta carries only the delivered text", async () => {
  installGuard("redact sk-ant-[0-9]+\n");
  env.server.enqueue(
    { type: "tool_calls", text: "key sk-ant-123 here", calls: [{ name: "bash", arguments: { command: "true" } }] },
    { type: "text", text: "again sk-ant-456 there", chunks: 4 },
  );
  const json = await env.run(["--json", "go", ...env.providerArgs()], { timeoutMs: 25_000 });
  expect(json.code).toBe(0);
  expect(json.stdout).not.toContain("sk-ant");
  const events = lines(json.stdout);
  expect(deltas(events)).toBe("key [redacted] hereagain [redacted] there");
  // Order kept: the delta, the tool-use stream, usage, then the message.
  const types = events.map((e) => e.type).filter((t) => t !== "tool_use_args");
  expect(types.slice(0, 9)).toEqual(["user_message", "turn_start", "assistant_start", "text_delta", "tool_use_start", "tool_use_end", "usage", "assistant_message", "tool_call"]);

  env.server.enqueue({ type: "text", text: "rpc sk-ant-789 end", chunks: 3 });
  const rpc = await env.run(["rpc", ...env.providerArgs()], { stdin: '{"type":"prompt","message":"hi"}\n', timeoutMs: 25_000 });
  expect(rpc.code).toBe(0);
  expect(rpc.stdout).not.toContain("sk-ant");
  expect(deltas(lines(rpc.stdout))).toBe("rpc [redacted] end");
});

test("--json: a message the guard hides streams no text at all", async () => {
  installGuard("hide_reply not for you\n");
  env.server.enqueue({ type: "text", text: "the hidden words", chunks: 3 });
  const result = await env.run(["--json", "go", ...env.providerArgs()], { timeoutMs: 25_000 });
  expect(result.code).toBe(0);
  expect(result.stdout).not.toContain("hidden words");
  expect(lines(result.stdout).filter((e) => e.type === "text_delta")).toEqual([]);
  expect(result.stderr).toContain("[shguard] hid the assistant's message: not for you");
});

test("-p with stderr on a pipe: a notify longer than the 1 MiB stderr queue is cut with a note, not dropped without a word", async () => {
  installGuard("");
  const result = await env.run(["-p", "/sbig 2000000", ...env.providerArgs()], { timeoutMs: 25_000 });
  expect(result.code).toBe(0);
  expect(result.stderr).toContain("[shguard] info: aaaaaaaa");
  expect(result.stderr).toMatch(/zot: warning: \d+ bytes of stderr output were dropped \(a text longer than the 1 MiB stderr queue was cut\)\n$/);
  expect(result.stderr.length).toBeGreaterThan(1_000_000);
  expect(result.stderr.length).toBeLessThanOrEqual(1024 * 1024 + 200);
});

test("command_invoked carries args \"\" when nothing follows the command name (as zot ext test sends it), trimmed otherwise", async () => {
  installGuard("");
  expect((await env.run(["-p", "/sg", ...env.providerArgs()])).code).toBe(0);
  expect((await env.run(["-p", "/sg    rewrite_bash   echo x  ", ...env.providerArgs()])).code).toBe(0);
  const received = readFileSync(join(env.home, "extensions", "shguard", "frames.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Line);
  const invoked = received.filter((f) => f.type === "command_invoked").map(({ name, args }) => ({ name, args }));
  expect(invoked).toEqual([{ name: "sg", args: "" }, { name: "sg", args: "rewrite_bash   echo x" }]);
});

test("zot ext test warns about a command named like one of zot's own (/help) and does not exercise it, as zot never routes it", async () => {
  installGuard("");
  const result = await env.run(["ext", "test", join(env.home, "extensions", "shguard"), "--json"], { timeoutMs: 25_000 });
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as { checks: { check: string; status: string; detail: string }[] };
  expect(report.checks).toContainEqual({ check: "registration", status: "warn", detail: `command "/help" is one of zot's own slash commands, which wins: it is never invoked` });
  expect(report.checks.map((c) => c.check)).not.toContain("command /help");
  expect(report.checks.map((c) => c.check)).toContain("command /sg");
});

test("--ext of an extension whose manifest says enabled: false is not started, and a warning says why", async () => {
  const dir = join(env.base, "disabled-guard");
  cpSync(join(FIXTURES, "author-shguard"), dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, "extension.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ ...manifest, enabled: false }));
  env.server.enqueue({ type: "text", text: "plain answer" });
  const result = await env.run(["-p", "hi", "--ext", dir, ...env.providerArgs()]);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("plain answer\n");
  expect(result.stderr).toContain(`zot: warning: extension "shguard" not started: ${join(dir, "extension.json")} says "enabled": false (--ext does not override it)`);
});

test("--json: a subagent's streamed text passes its guard too (subagent_event text_delta carries only the delivered text)", async () => {
  installGuard("redact sk-ant-[0-9]+\n");
  env.server.enqueue(
    { type: "tool_calls", calls: [{ name: "agent", arguments: { prompt: "sub task", description: "d" } }] },
    { type: "text", text: "child sk-ant-42 answer", chunks: 3 },
    { type: "text", text: "parent done" },
  );
  const result = await env.run(["--json", "spawn", ...env.providerArgs()], { timeoutMs: 25_000 });
  expect(result.code).toBe(0);
  expect(result.stdout).not.toContain("ant-42");
  const childDeltas = lines(result.stdout).filter((e) => e.type === "subagent_event").map((e) => e.event as Line);
  expect(deltas(childDeltas)).toBe("child [redacted] answer");
});
