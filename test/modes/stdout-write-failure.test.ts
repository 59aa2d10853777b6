/**
 * A stdout that fails (a full disk: `zot -p … > out.txt` on a full file
 * system, here /dev/full, whose writes fail with ENOSPC), through dist/zot:
 * unlike a reader that went away (EPIPE, exit 141 quietly:
 * stdout-gone.test.ts), the run fails — exit 1 and one `zot: cannot write
 * to stdout: ENOSPC (no space left on device); the output is incomplete`
 * line on stderr — in print, JSON and RPC mode; in JSON mode the run stops
 * at that write (the tool the model would have asked for never runs).
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { closeSync, existsSync, openSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, removeTempDirs, zotBinary } from "../support/binary.ts";
import { createModeEnv, type ModeEnv } from "./helpers.ts";

afterAll(removeTempDirs);

const LINE = "zot: cannot write to stdout: ENOSPC (no space left on device); the output is incomplete\n";

let env: ModeEnv;
let zot = "";
let full = -1;

beforeEach(async () => {
  env = createModeEnv();
  zot = await zotBinary();
  full = openSync("/dev/full", "w");
});
afterEach(async () => {
  closeSync(full);
  await env.dispose();
});

async function runIntoFull(args: readonly string[], stdin?: string): Promise<{ code: number | null; stderr: string }> {
  const proc = Bun.spawn([zot, ...args], {
    cwd: env.cwd,
    env: cleanEnv(env.home),
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: full,
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  const stderr = await new Response(proc.stderr).text();
  await proc.exited;
  clearTimeout(timer);
  return { code: proc.exitCode, stderr };
}

describe.if(process.platform === "linux" && existsSync("/dev/full"))("stdout on a full disk", () => {
  test("-p: the answer cannot be written: exit 1 and a line naming ENOSPC (was: exit 141, nothing said)", async () => {
    env.server.enqueue({ type: "text", text: "the answer" });
    const result = await runIntoFull(["-p", "hi", ...env.providerArgs()]);
    expect(result.stderr).toBe(LINE);
    expect(result.code).toBe(1);
  });

  test("--json: the run stops at the first event it cannot write (the tool asked for next never runs), exit 1", async () => {
    const marker = join(env.cwd, "ran");
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "toolu_1", name: "bash", arguments: { command: `touch ${marker}` } }] },
      { type: "text", text: "done" },
    );
    const result = await runIntoFull(["--json", "go", ...env.providerArgs()]);
    expect(result.stderr).toBe(LINE);
    expect(result.code).toBe(1);
    expect(existsSync(marker)).toBe(false);
  });

  test("rpc: a response it cannot write ends the server with exit 1 and the line", async () => {
    const result = await runIntoFull(["rpc", ...env.providerArgs()], '{"type":"get_state","id":"1"}\n');
    expect(result.stderr).toBe(LINE);
    expect(result.code).toBe(1);
  });
});
