/**
 * The bash tool through dist/zot: the result layout is the original zot's
 * byte for byte; 1 GiB of fast output keeps zot's memory bounded and leaves
 * one capped 0600 spill file in $ZOT_HOME/tmp (0700) that the result
 * describes; --json progress is coalesced; spill files older than three days
 * are swept by a run's first bash command, never by a run without one,
 * --version or --help.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { runMeasured, type MeasuredRun } from "../support/rss.ts";
import { toolResultsSent, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const TOOK = /  Took \d+\.\ds$/;

function tookless(text: string | undefined): string {
  expect(text).toMatch(TOOK);
  return (text ?? "").replace(TOOK, "  Took <d>");
}

test("the result layout is the original's: `$ cmd`, blank line, output, blank line, [exit N], Took", async () => {
  const commands = ["echo hi", "true", "printf 'no newline'", "echo out; echo err >&2; exit 3"];
  env.server.enqueue(
    { type: "tool_calls", calls: commands.map((command, i) => ({ id: `c${i}`, name: "bash", arguments: { command } })) },
    { type: "text", text: "done" },
  );
  const result = await env.run(["-p", "run them", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  const sent = toolResultsSent(env.server.requests[1]);
  expect(tookless(sent.get("c0"))).toBe("$ echo hi\n\nhi\n\n[exit 0]  Took <d>");
  expect(tookless(sent.get("c1"))).toBe("$ true\n\n[exit 0]  Took <d>");
  expect(tookless(sent.get("c2"))).toBe("$ printf 'no newline'\n\nno newline\n\n[exit 0]  Took <d>");
  expect(tookless(sent.get("c3"))).toBe("$ echo out; echo err >&2; exit 3\n\nout\nerr\n\n[exit 3]  Took <d>");
});

/** dist/zot with the given args, and its peak RSS (support/rss.ts). */
async function runZotMeasured(args: readonly string[]): Promise<MeasuredRun> {
  return runMeasured([await zotBinary(), ...args], { cwd: env.cwd, env: cleanEnv(env.home), timeoutMs: 25_000 });
}

test.if(process.platform === "linux")(
  "1 GiB of output: bounded memory, the tail in the result, a 64 MiB 0600 spill file the result describes",
  async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "flood", name: "bash", arguments: { command: "yes | head -c 1G" } }] },
      { type: "text", text: "done" },
    );
    const run = await runZotMeasured(["-p", "flood", ...env.providerArgs()]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.maxRss).toBeGreaterThan(0);
    expect(run.maxRss).toBeLessThan(200 * 1024 * 1024);

    const text = toolResultsSent(env.server.requests[1]).get("flood") ?? "";
    const spillDir = join(env.home, "tmp");
    const [name, ...others] = readdirSync(spillDir);
    expect(others).toEqual([]);
    const spill = join(spillDir, name as string);
    expect(text.startsWith("$ yes | head -c 1G\n\ny\ny\n")).toBe(true);
    const notes =
      "y\n... [truncated at 2000 lines: showing the last 2000 of 536870912 lines]\n" +
      "... [truncated at 51200 bytes: showing the last 4000 of 1073741824 bytes]\n" +
      "... [full output capped at 64.0 MiB: the file holds the first 67108864 of 1073741824 bytes]\n" +
      `\n[exit 0] (full output: ${spill})  Took `;
    expect(text.includes(notes)).toBe(true);
    expect(statSync(spill).size).toBe(64 * 1024 * 1024);
    expect(statSync(spill).mode & 0o777).toBe(0o600);
    expect(statSync(spillDir).mode & 0o777).toBe(0o700);
  },
  30_000,
);

test.if(process.platform === "linux")("--json: live output of a flood is coalesced, not 1:1", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "flood", name: "bash", arguments: { command: "yes | head -c 256M" } }] },
    { type: "text", text: "done" },
  );
  const run = await runZotMeasured(["--json", "flood", ...env.providerArgs()]);
  expect(run.code).toBe(0);
  // 256 MiB of output arrives in far fewer bytes of tool_progress (≈1.25 MiB per second of runtime at most).
  expect(run.stdout.length).toBeLessThan(32 * 1024 * 1024);
  expect(run.stdout).toContain('"type":"tool_progress"');
  expect(run.maxRss).toBeLessThan(200 * 1024 * 1024);
}, 30_000);

test("spill files older than three days are swept by a run's first bash command, not by a run without one, --version or --help", async () => {
  const tmp = join(env.base, "systmp");
  const spillDir = join(env.home, "tmp");
  mkdirSync(tmp);
  mkdirSync(spillDir);
  const old = (Date.now() - 4 * 24 * 3600 * 1000) / 1000;
  const plant = (dir: string, name: string, aged: boolean): string => {
    const path = join(dir, name);
    writeFileSync(path, "output\n");
    if (aged) utimesSync(path, old, old);
    return path;
  };
  const oldSpill = plant(spillDir, "zot-bash-00112233aabb.log", true);
  const oldLegacy = plant(tmp, "zot-bash-44556677ccdd.log", true);
  const fresh = plant(spillDir, "zot-bash-8899aabbccdd.log", false);
  const unrelated = plant(tmp, "keep-me.log", true);

  for (const flag of ["--version", "--help"]) {
    expect((await env.run([flag], { env: { TMPDIR: tmp } })).code).toBe(0);
  }
  expect(existsSync(oldSpill) && existsSync(oldLegacy)).toBe(true);

  env.server.enqueue({ type: "text", text: "hello", delayMs: 100 });
  expect((await env.run(["-p", "hi", ...env.providerArgs()], { env: { TMPDIR: tmp } })).code).toBe(0);
  expect(existsSync(oldSpill) && existsSync(oldLegacy)).toBe(true);

  env.server.enqueue({ type: "tool_calls", calls: [{ id: "toolu_1", name: "bash", arguments: { command: "true" } }] });
  env.server.enqueue({ type: "text", text: "done", delayMs: 100 });
  const result = await env.run(["-p", "hi", ...env.providerArgs()], { env: { TMPDIR: tmp } });
  expect(result.code).toBe(0);
  expect(existsSync(oldSpill)).toBe(false);
  expect(existsSync(oldLegacy)).toBe(false);
  expect(existsSync(fresh)).toBe(true);
  expect(existsSync(unrelated)).toBe(true);
});
