/**
 * How much of a guard's block reason reaches the model, through dist/zot:
 * 16 Ki characters, then a note (a reason of megabytes went to the model,
 * and into the session, as the tool error).
 */
import { expect, test } from "bun:test";
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_BLOCK_REASON_CHARS } from "../../src/ext/intercept.ts";
import { MODES_FIXTURES, toolResultsSent, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

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
