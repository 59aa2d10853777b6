/**
 * zot started from a directory that was removed (a CI step that cleaned up
 * the checkout it was in, `cd build && rm -rf ../build`), through dist/zot:
 * the binary still starts (it used to be refused by Bun's loader with
 * "error: The current working directory was deleted…", no `zot:` line and
 * no JSON), `--version` works, a run with an absolute `--cwd` works, and
 * without one `-p` / `--json` / `zot ext list` stop with exit 1 and one line
 * saying what is wrong and how to go on (`--json`: as its only stdout line).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, removeTempDirs, tempDir, zotBinary } from "../support/binary.ts";
import { startModelServer } from "../support/model-server.ts";

afterAll(removeTempDirs);

const MESSAGE = "the working directory no longer exists (it was removed after the shell went into it); cd into a directory that exists, or pass --cwd <dir>";

/** Runs dist/zot with `args` from a directory the shell removes just before exec. */
async function runFromRemovedDir(base: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const binary = await zotBinary();
  const doomed = join(base, "doomed");
  mkdirSync(doomed);
  const proc = Bun.spawn(["/bin/sh", "-c", 'cd "$1" && rmdir "$1" && shift && exec "$@"', "sh", doomed, binary, ...args], {
    cwd: base,
    env: cleanEnv(join(base, "home"), { ANTHROPIC_API_KEY: "test-key" }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  clearTimeout(timer);
  return { code: proc.exitCode, stdout, stderr };
}

describe.if(process.platform === "linux")("started from a removed directory", () => {
  test("--json: one error line saying so, exit 1; -p and zot ext list: the same zot: line", async () => {
    const base = tempDir("zot-removed-cwd-");
    const server = startModelServer();
    try {
      const json = await runFromRemovedDir(base, ["--json", "hi", "--base-url", server.anthropicBaseUrl]);
      expect(json.stdout).toBe(`${JSON.stringify({ type: "error", message: MESSAGE }).replaceAll("<", "\\u003c").replaceAll(">", "\\u003e")}\n`);
      expect(json.stderr).toBe(`zot: ${MESSAGE}\n`);
      expect(json.code).toBe(1);
      const print = await runFromRemovedDir(base, ["-p", "hi", "--base-url", server.anthropicBaseUrl]);
      expect([print.code, print.stdout, print.stderr]).toEqual([1, "", `zot: ${MESSAGE}\n`]);
      const ext = await runFromRemovedDir(base, ["ext", "list"]);
      expect([ext.code, ext.stderr]).toEqual([1, `zot: ${MESSAGE}\n`]);
      // zot trust takes its directory as an argument, not --cwd: the remedy says so.
      const trust = await runFromRemovedDir(base, ["trust"]);
      expect([trust.code, trust.stderr]).toEqual([1, `zot: ${MESSAGE.replace("pass --cwd <dir>", "give the directory as an argument")}\n`]);
      expect(server.requests.length).toBe(0);
    } finally {
      await server.stop();
    }
  });

  test("--version works, and so does a run given an absolute --cwd", async () => {
    const base = tempDir("zot-removed-cwd-");
    const project = join(base, "project");
    mkdirSync(project);
    const server = startModelServer();
    try {
      const version = await runFromRemovedDir(base, ["--version"]);
      expect(version.code).toBe(0);
      expect(version.stdout).toStartWith("zot ");
      server.enqueue({ type: "text", text: "answered" });
      const run = await runFromRemovedDir(base, ["-p", "hi", "--cwd", project, "--base-url", server.anthropicBaseUrl]);
      expect([run.code, run.stdout, run.stderr]).toEqual([0, "answered\n", ""]);
    } finally {
      await server.stop();
    }
  });
});
