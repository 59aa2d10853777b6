/**
 * Found by an extension author's acceptance run (extensions written only
 * from extensions.md, no SDK), through dist/zot and the stand-in model:
 * the POSIX sh + jq guard in test/fixtures/extensions/author-shguard
 * (rules in its data_dir's `rules` file, see guard.sh).
 */
import { cpSync, writeFileSync } from "node:fs";
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

test("a guard that sends ready but takes a while to register (here 0.8 s) is waited for: its tool_call block applies to the first prompt", async () => {
  installGuard("start_delay 0.8\nblock_tool bash\n");
  env.server.enqueue({ type: "tool_calls", calls: [{ name: "bash", arguments: { command: "echo UNGUARDED" } }] }, { type: "text", text: "done" });
  const result = await env.run(["--json", "go", ...env.providerArgs()], { timeoutMs: 25_000 });
  expect(result.code).toBe(0);
  const toolResult = lines(result.stdout).find((e) => e.type === "tool_result");
  expect(toolResult).toMatchObject({ is_error: true, content: [{ type: "text", text: "shguard refused bash" }] });
  expect(result.stdout).not.toContain("UNGUARDED\\n");
});
