/**
 * Numeric ZOT_* settings that do not parse (`ZOT_STREAM_IDLE_TIMEOUT_MS=30s`,
 * `ZOT_MAX_RETRIES=three`), through dist/zot: `-p`, `--json` and `rpc` say so
 * once on stderr, naming the variable and its value, and run with the
 * default as before (they were ignored without a word); valid and blank
 * values say nothing.
 */
import { describe, expect, test } from "bun:test";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const BAD = { ZOT_STREAM_IDLE_TIMEOUT_MS: "30s", ZOT_MAX_RETRIES: "three", ZOT_EXT_READY_TIMEOUT_MS: "-5" };
const WARNINGS = [
  'zot: warning: ZOT_STREAM_IDLE_TIMEOUT_MS="30s" is not a positive number (of milliseconds); it is ignored and the default applies',
  'zot: warning: ZOT_EXT_READY_TIMEOUT_MS="-5" is not a positive number (of milliseconds); it is ignored and the default applies',
  'zot: warning: ZOT_MAX_RETRIES="three" is not a whole number; it is ignored and the default applies',
].join("\n");

describe("numeric ZOT_* settings that do not parse", () => {
  test("-p and --json warn once per variable and run with the defaults", async () => {
    env.server.enqueue({ type: "text", text: "ran" }, { type: "text", text: "ran too" });
    const print = await env.run(["-p", "hi", ...env.providerArgs()], { env: BAD });
    expect([print.code, print.stdout, print.stderr]).toEqual([0, "ran\n", `${WARNINGS}\n`]);
    const json = await env.run(["--json", "hi", ...env.providerArgs()], { env: BAD });
    expect(json.code).toBe(0);
    expect(json.stderr).toBe(`${WARNINGS}\n`);
    expect(json.stdout.trim().split("\n").at(-1)).toBe('{"type":"done"}');
  });

  test("rpc warns the same way", async () => {
    const rpc = await env.run(["rpc", ...env.providerArgs()], { env: BAD, stdin: "" });
    expect(rpc.code).toBe(0);
    expect(rpc.stderr).toBe(`${WARNINGS}\n`);
  });

  test("valid and blank values say nothing", async () => {
    env.server.enqueue({ type: "text", text: "quiet" });
    const result = await env.run(["-p", "hi", ...env.providerArgs()], {
      env: { ZOT_STREAM_IDLE_TIMEOUT_MS: "30000", ZOT_MAX_RETRIES: "0", ZOT_MCP_CALL_TIMEOUT_MS: " ", ZOT_AGENT_TIMEOUT_MS: "1e6" },
    });
    expect([result.code, result.stdout, result.stderr]).toEqual([0, "quiet\n", ""]);
  });
});
