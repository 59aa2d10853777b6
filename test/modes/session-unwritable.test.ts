/**
 * A $ZOT_HOME where no session can be created (read-only in a CI
 * container, full; here its `sessions` is a plain file, which stops even
 * root), through dist/zot: `-p` / `--json` stop before the model call with
 * one line naming the directory and the way out, `--no-session` (or a
 * writable ZOT_HOME); with `--no-session` the same home works.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const HINT = "; pass --no-session to run without saving the session (or set ZOT_HOME to a writable directory)";

describe("no session can be created", () => {
  test("--json and -p: the error names --no-session; with it the run works", async () => {
    writeFileSync(join(env.home, "sessions"), "not a directory\n");
    const json = await env.run(["--json", "hi", ...env.providerArgs()]);
    expect(json.code).toBe(1);
    const line = JSON.parse(json.stdout.trim()) as { type: string; message: string };
    expect(line.type).toBe("error");
    expect(line.message).toStartWith(`${join(env.home, "sessions")}/`);
    expect(line.message).toContain(": cannot create sessions directory (");
    expect(line.message).toEndWith(HINT);
    expect(json.stderr).toBe(`zot: ${line.message}\n`);
    const print = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect([print.code, print.stdout]).toEqual([1, ""]);
    expect(print.stderr).toEndWith(`${HINT}\n`);
    expect(env.server.requests.length).toBe(0);
    env.server.enqueue({ type: "text", text: "without a session" });
    const saved = await env.run(["-p", "hi", "--no-session", ...env.providerArgs()]);
    expect([saved.code, saved.stdout, saved.stderr]).toEqual([0, "without a session\n", ""]);
  });
});
