/**
 * `zot --json … 2>&1 | reader`: stdout and stderr are one pipe. While a long
 * JSON line is only partly written (the reader is slow, the pipe is full),
 * stderr lines (an extension's notes) must land between lines, never inside
 * one: every line the reader gets is whole JSON or a whole note. Run through
 * dist/zot with a real Python extension and a slow Python reader
 * (fixtures/noisy-notes).
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { createModeEnv, MODES_FIXTURES, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
beforeEach(() => {
  env = createModeEnv();
});
afterEach(async () => {
  await env.dispose();
});

test("stderr into stdout's pipe: notes land between JSON lines, never inside one", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [1, 2, 3].map((n) => ({ id: `call_${n}`, name: "noisy", arguments: {} })) },
    { type: "text", text: "done" },
  );
  const args = ["--json", "go", ...env.providerArgs(), "--ext", join(MODES_FIXTURES, "noisy-notes"), "--no-session"].map((arg) => `'${arg}'`).join(" ");
  const reader = join(MODES_FIXTURES, "noisy-notes", "slow-reader.py");
  const proc = Bun.spawn(["sh", "-c", `'${await zotBinary()}' ${args} 2>&1 | python3 '${reader}'`], { cwd: env.cwd, env: cleanEnv(env.home), stdout: "pipe", stderr: "ignore" });
  try {
    const lines = (await new Response(proc.stdout).text()).split("\n").filter((line) => line !== "");
    expect(await proc.exited).toBe(0);
    const notes = lines.filter((line) => !line.startsWith("{"));
    const events = lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { type: string });
    expect(notes.filter((line) => !/^\[noisy-notes\] info: note \d+ n{200}$/.test(line))).toEqual([]);
    expect(notes).toHaveLength(900);
    expect(events.filter((event) => event.type === "tool_result")).toHaveLength(3);
    expect(events.some((event) => event.type === "done")).toBe(true);
  } finally {
    if (proc.exitCode === null) proc.kill("SIGKILL");
    await proc.exited;
  }
}, 30_000);
