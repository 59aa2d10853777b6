/**
 * The profile-guided bytecode layout (scripts/bytecode-order.ts,
 * scripts/compile.ts): the committed scripts/bytecode-order.txt is a
 * `bun build --bytecode-order` file (opens with `v2`, lists used
 * functions), and dist/zot is laid out by it: a print run with tool calls
 * under ZOT_TRACE_STARTUP=1 reports `zot: trace bytecode hot= cold=
 * unknown=` (only a binary built with an order does), and the functions the
 * run loaded are nearly all in the profile's hot part. A profile gone stale
 * (large source changes since `npm run bytecode-order`) fails the share
 * bound: record it again.
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, runZot, tempDir } from "../support/binary.ts";
import { startModelServer } from "../support/model-server.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const ORDER_FILE = join(REPO_ROOT, "scripts", "bytecode-order.txt");
/** Most loaded functions must come from the profile's hot part: at most this share cold or unknown (≈0.5% when freshly recorded). */
const MAX_NOT_HOT_SHARE = 0.25;

test("scripts/bytecode-order.txt is a v2 order file listing used functions", () => {
  const lines = readFileSync(ORDER_FILE, "utf8").split("\n");
  expect(lines[0]).toBe("v2");
  const used = lines.filter((line) => /^F [0-9a-f]{16}$/.test(line));
  expect(used.length).toBeGreaterThan(100);
  // Merged once per line: no route's line repeated.
  expect(new Set(lines).size).toBe(lines.length);
});

test("dist/zot is laid out by the profile: a traced print run loads its functions from the hot part", async () => {
  const server = startModelServer();
  try {
    const home = tempDir("zot-bco-home-");
    const cwd = tempDir("zot-bco-project-");
    writeFileSync(join(cwd, "notes.txt"), "alpha\nbeta\n");
    server.enqueue(
      { type: "tool_calls", calls: [{ id: "toolu_1", name: "bash", arguments: { command: "echo hi" } }] },
      { type: "tool_calls", calls: [{ id: "toolu_2", name: "read", arguments: { path: "notes.txt" } }] },
      { type: "tool_calls", calls: [{ id: "toolu_3", name: "write", arguments: { path: "new.txt", content: "one\ntwo\n" } }] },
      { type: "tool_calls", calls: [{ id: "toolu_4", name: "edit", arguments: { path: "new.txt", edits: [{ oldText: "two", newText: "zwei" }] } }] },
      { type: "text", text: "done" },
    );
    const result = await runZot(
      ["-p", "go", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--api-key", "x", "--base-url", server.anthropicBaseUrl, "--max-steps", "6"],
      { home, cwd, env: { ZOT_TRACE_STARTUP: "1" } },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("done\n");
    expect(readFileSync(join(cwd, "new.txt"), "utf8")).toBe("one\nzwei\n");
    const lines = result.stderr.split("\n");
    const line = lines.find((row) => row.startsWith("zot: trace bytecode "));
    if (line === undefined) throw new Error(`no 'zot: trace bytecode' line: dist/zot was built without scripts/bytecode-order.txt\n${result.stderr}`);
    // Written right after the "prompt answered" phase.
    expect(lines[lines.indexOf(line) - 1]).toMatch(/ prompt answered$/);
    const match = /^zot: trace bytecode hot=(\d+) cold=(\d+) unknown=(\d+)$/.exec(line);
    expect(match).not.toBeNull();
    const [hot, cold, unknown] = (match ?? []).slice(1).map(Number) as [number, number, number];
    const notHotShare = (cold + unknown) / (hot + cold + unknown);
    if (notHotShare > MAX_NOT_HOT_SHARE) {
      throw new Error(`${line}: ${(notHotShare * 100).toFixed(1)}% of the loaded functions are not in the profile's hot part (bound ${MAX_NOT_HOT_SHARE * 100}%): run \`npm run bytecode-order\` again`);
    }
    expect(hot).toBeGreaterThan(100);
  } finally {
    await server.stop();
  }
});
