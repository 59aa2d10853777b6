/**
 * How much of an extension's text reaches the model, through dist/zot: a
 * tool result's text is cut at 256 Ki characters in all (as an MCP
 * result's), with a note naming the extension, and a guard's block reason
 * at 16 Ki characters. One result of megabytes would otherwise overflow the
 * model's context on that request and on every later one of the
 * conversation (and the session would carry it into every resume).
 */
import { expect, test } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_BLOCK_REASON_CHARS } from "../../src/ext/intercept.ts";
import { MAX_RESULT_TEXT_CHARS } from "../../src/ext/tool-adapter.ts";
import { behaveExtension } from "../support/extensions.ts";
import { MODES_FIXTURES, toolResultsSent, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

test("a 3,000,000-character tool result reaches the model and the session as 256 Ki characters and a note", async () => {
  const ext = behaveExtension(env.base, "bulky", ["huge-result=3000000"]);
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_big", name: "py_echo", arguments: { text: "x" } }] },
    { type: "text", text: "ok" },
  );
  const result = await env.run(["-p", "fetch", "--ext", ext, ...env.providerArgs()]);
  expect(result.code).toBe(0);
  const sent = toolResultsSent(env.server.requests[1]).get("call_big") ?? "";
  const note = `[… ${(3_000_000 + 4 - MAX_RESULT_TEXT_CHARS).toLocaleString("en-US")} more characters of the result of extension bulky not shown (limit 262,144) …]`;
  expect(sent).toBe(`${"H".repeat(MAX_RESULT_TEXT_CHARS)}\n${note}`);
  const session = readFileSync(env.sessionFiles()[0]!, "utf8");
  expect(session.length).toBeLessThan(MAX_RESULT_TEXT_CHARS + 64 * 1024);
  expect(session).not.toContain("TAIL");
});

test("a guard's 100,000-character block reason reaches the model cut at 16 Ki characters", async () => {
  const guard = join(env.base, "guard");
  cpSync(join(MODES_FIXTURES, "guard"), guard, { recursive: true });
  writeFileSync(join(guard, "extension.json"), JSON.stringify({ name: "guard", exec: "./guard.py", args: ["deny-huge"], language: "python" }));
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_no", name: "bash", arguments: { command: "true" } }] },
    { type: "text", text: "refused" },
  );
  const result = await env.run(["-p", "try", "--ext", guard, ...env.providerArgs()]);
  expect(result.code).toBe(0);
  const sent = toolResultsSent(env.server.requests[1]).get("call_no") ?? "";
  expect(sent).toBe(`${"R".repeat(MAX_BLOCK_REASON_CHARS)}… [${(100_000 - MAX_BLOCK_REASON_CHARS).toLocaleString("en-US")} more characters of the reason not shown]`);
});
