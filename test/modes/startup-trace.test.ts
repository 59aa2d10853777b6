/**
 * ZOT_TRACE_STARTUP=1 through dist/zot: a print run writes one
 * `zot: trace <ms> +<ms> rss=<MiB> <phase>` line per startup phase to
 * stderr, in order, and nothing else changes (stdout, exit code); without
 * the variable there is no trace line. (A binary laid out by a bytecode
 * order adds `zot: trace bytecode …` after "prompt answered":
 * test/release/bytecode-order.test.ts.)
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
beforeEach(() => {
  env = createModeEnv();
});
afterEach(async () => {
  await env.dispose();
});

const PHASES = [
  "headless run",
  "setup start",
  "config, catalog, provider and key",
  "trust, extensions, mcp, skills started",
  "session open",
  "system prompt built",
  "swarm ready",
  "agent created",
  "extensions waited",
  "first model request",
  "prompt answered",
  "cleanup done",
];

test("ZOT_TRACE_STARTUP=1: the phases on stderr, in order; stdout and exit code unchanged", async () => {
  env.server.enqueue({ type: "text", text: "answer" });
  const traced = await env.run(["-p", "go", ...env.providerArgs()], { env: { ZOT_TRACE_STARTUP: "1" } });
  expect(traced.code).toBe(0);
  expect(traced.stdout).toBe("answer\n");
  const lines = traced.stderr.split("\n").filter((line) => line !== "" && !line.startsWith("zot: trace bytecode "));
  for (const line of lines) expect(line).toMatch(/^zot: trace \d+\.\d\d \+\d+\.\d\d rss=\d+\.\d .+$/);
  expect(lines.map((line) => line.replace(/^zot: trace \S+ \S+ \S+ /, ""))).toEqual(PHASES);

  env.server.enqueue({ type: "text", text: "answer" });
  const plain = await env.run(["-p", "go", ...env.providerArgs()]);
  expect(plain.code).toBe(0);
  expect(plain.stdout).toBe("answer\n");
  expect(plain.stderr).toBe("");
});
