/**
 * The suite's leak guard must catch what a test leaves behind: a nested
 * `bun test` of a deliberately leaky file fails, names the directory and the
 * process, and still removes both.
 */
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlive } from "./processes.ts";
import { REPO_ROOT } from "./binary.ts";

test("a run that leaves a temp dir and a process fails, lists both, and cleans them up", async () => {
  const before = new Set(readdirSync(tmpdir()));
  const proc = Bun.spawn([process.execPath, "test", "./test/fixtures/leak-guard/leaky.ts"], {
    cwd: REPO_ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const output = stdout + stderr;
  expect(code).not.toBe(0);
  expect(output).toContain("the test run left things behind");
  expect(output).toMatch(/left in TMPDIR: leaked-dir-/);
  const leaked = /process (\d+) still running: sleep 300/.exec(output);
  expect(leaked).not.toBeNull();
  expect(isAlive(Number(leaked![1]))).toBe(false);
  // The nested run's private TMPDIR (made inside ours) is gone too.
  expect(readdirSync(tmpdir()).filter((name) => !before.has(name))).toEqual([]);
}, 30_000);
