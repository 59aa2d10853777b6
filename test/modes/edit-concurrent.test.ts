/**
 * `edit` through dist/zot while a real appender process writes to the same
 * file (issue 7 class 3): the model edits the file 30 times in a row; no
 * appended line is lost, and every edit either landed or answered the model
 * with the "changed on disk" error.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSession } from "../../src/session/index.ts";
import { CHANGED_ERROR, expectAllAppended, startAppender } from "../support/appender.ts";
import type { ScriptedReply } from "../support/model-server.ts";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const EDITS = 30;

test("30 edits by the model racing an appender lose no line; each lands or reports the change", async () => {
  const file = join(env.cwd, "f.txt");
  writeFileSync(file, Array.from({ length: EDITS }, (_, i) => `slot ${i + 1}\n`).join(""));
  const replies: ScriptedReply[] = Array.from({ length: EDITS }, (_, i) => ({
    type: "tool_calls",
    calls: [{ id: `edit_${i + 1}`, name: "edit", arguments: { path: "f.txt", edits: [{ oldText: `slot ${i + 1}\n`, newText: `done ${i + 1}\n` }] } }],
  }));
  env.server.enqueue(...replies, { type: "text", text: "edited" });
  const appender = await startAppender(file, env.cwd);
  let written: number;
  try {
    const result = await env.run(["-p", "edit every slot", ...env.providerArgs()], { timeoutMs: 60_000 });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  } finally {
    written = await appender.stop();
  }
  const content = readFileSync(file, "utf8");
  expectAllAppended(content, written);

  const [session] = env.sessionFiles();
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const message of loadSession(session as string).messages) {
    for (const block of message.content) {
      if (block.type !== "tool_result") continue;
      results.set(block.call_id, { text: block.content.map((part) => (part.type === "text" ? part.text : "")).join(""), isError: block.is_error });
    }
  }
  expect(results.size).toBe(EDITS);
  for (let slot = 1; slot <= EDITS; slot++) {
    const outcome = results.get(`edit_${slot}`);
    if (outcome?.isError) expect(outcome.text).toMatch(CHANGED_ERROR);
    expect(content.includes(`done ${slot}\n`)).toBe(outcome?.isError === false);
    expect(content.includes(`slot ${slot}\n`)).toBe(outcome?.isError === true);
  }
}, 90_000);
