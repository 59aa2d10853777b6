/**
 * What a plain headless run never calls stays out of its chunk (issue 10,
 * docs/benchmarks.md "Fifth pass"): the bash sandboxes (tools/sandbox*.ts,
 * only under --jail), the edit diff (tools/diff.ts, only after an edit),
 * session forking (session/fork.ts, --fork) and the barrel's import /
 * rename / delete code (session/import.ts, manage.ts: interactive commands).
 * In the bundle dist/zot is built from (--splitting), the sandbox and import
 * code are in chunks the run setup's chunk does not import statically; at
 * run time (zot from source with a preload recording the modules Bun loads)
 * a print run that writes, reads and runs bash loads none of them, an edit
 * loads the diff, and --fork loads fork.ts.
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv } from "../support/binary.ts";
import { type RecordedRun, recordLoads, splitBundle, staticClosure } from "../support/lazy-loads.ts";
import { removeTempDirs } from "../support/temp.ts";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

afterAll(removeTempDirs);

let env: ModeEnv;
useModeEnv((created) => (env = created));

const LAZY = /\/src\/(tools\/sandbox[^/]*|tools\/diff|session\/fork|session\/import|session\/manage)\.ts$/;

test("the sandboxes and session import are only in lazily imported chunks of the bundle", () => {
  const { dir, holding } = splitBundle({ minify: true });
  // Strings only src/tools/sandbox-linux.ts, src/session/import.ts and src/modes/session-setup.ts hold.
  const lazyChunks = [...holding("Install bubblewrap (Debian"), ...holding("neither a session file (line 1 a meta row)")];
  expect(lazyChunks.length).toBeGreaterThanOrEqual(2);
  const setupChunks = holding("no previous session in this directory");
  expect(setupChunks).toHaveLength(1);
  for (const root of ["main.js", setupChunks[0]!]) {
    const eager = staticClosure(dir, root);
    for (const chunk of lazyChunks) expect(eager.has(chunk)).toBe(false);
  }
});

function loadedLazyModules(args: readonly string[]): Promise<RecordedRun> {
  return recordLoads({ args, cwd: env.cwd, env: cleanEnv(env.home), logDir: env.base, filter: LAZY });
}

test("a print run loads no sandbox, diff, fork or import module until it needs one", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_w", name: "write", arguments: { path: "notes.txt", content: "alpha\nbeta\n" } }] },
    { type: "tool_calls", calls: [{ id: "call_r", name: "read", arguments: { path: "notes.txt" } }] },
    { type: "tool_calls", calls: [{ id: "call_b", name: "bash", arguments: { command: "echo hi" } }] },
    { type: "text", text: "done" },
  );
  const plain = await loadedLazyModules(["-p", "go", ...env.providerArgs()]);
  expect(plain.stderr).not.toContain("error");
  expect(plain.exitCode).toBe(0);
  expect(plain.loaded).toEqual([]);

  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_e", name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "beta", newText: "gamma" }] } }] },
    { type: "text", text: "edited" },
  );
  const edit = await loadedLazyModules(["-p", "edit", ...env.providerArgs()]);
  expect(edit.exitCode).toBe(0);
  expect(readFileSync(join(env.cwd, "notes.txt"), "utf8")).toBe("alpha\ngamma\n");
  expect(edit.loaded).toEqual(["src/tools/diff.ts"]);
});

test("--fork loads session/fork.ts (and a plain run did not)", async () => {
  env.server.enqueue({ type: "text", text: "first" }, { type: "text", text: "forked" });
  const first = await loadedLazyModules(["-p", "one", ...env.providerArgs()]);
  expect(first.exitCode).toBe(0);
  expect(first.loaded).toEqual([]);
  const sessions = readdirSync(join(env.home, "sessions"), { recursive: true, encoding: "utf8" }).filter((path) => path.endsWith(".jsonl"));
  expect(sessions).toHaveLength(1);
  const fork = await loadedLazyModules(["-p", "two", "--fork", join(env.home, "sessions", sessions[0]!), ...env.providerArgs()]);
  expect(fork.exitCode).toBe(0);
  expect(fork.loaded).toEqual(["src/session/fork.ts"]);
});
