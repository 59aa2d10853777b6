/**
 * Bounded session reads through dist/zot, with a real 420 MB session file
 * beside a small one (issue 7 class 3): `zot -c` resuming the small session
 * reads only the head of the big one, `--resume` (on a pseudo-terminal)
 * lists both without holding the big one, and resuming the big one streams it,
 * keeping only the newest messages within the resume budget. Memory is the
 * peak RSS of the zot process (support/rss.ts), asserted against a bound
 * under the file size; nothing is timed. The big file is removed afterwards.
 */
import { expect, test } from "bun:test";
import { closeSync, mkdirSync, openSync, utimesSync, writeSync } from "node:fs";
import { join } from "node:path";
import { RESUME_BUDGET_BYTES, sessionDirForCwd } from "../../src/session/index.ts";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { runMeasured, type MeasuredRun } from "../support/rss.ts";
import { requestMessages, requestTexts, useModeEnv, type ModeEnv } from "./helpers.ts";

const MiB = 1024 * 1024;
const BIG_PAIRS = 200; // 400 rows of 1 MiB: a file of 420 MB
/** Resuming the small session: about 50 MB measured (as a run with no session); 1.3 GB before bounded reads. */
const SMALL_RSS_BOUND = 150 * MiB;
/** Resuming the big one: about 155 MB measured; below the file's size, so the file was never held in memory. */
const BIG_RSS_BOUND = 300 * MiB;

let env: ModeEnv;
useModeEnv((created) => (env = created));

/** Writes a 420 MB session of BIG_PAIRS user/assistant pairs of 1 MiB each; mtime an hour ago. */
function writeBigSession(): string {
  const dir = sessionDirForCwd(env.cwd, join(env.home, "sessions"));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "20240101-000000-b16b16b1.jsonl");
  const fd = openSync(path, "w", 0o600);
  try {
    const meta = { id: "b16b16b1-0000-4000-8000-000000000000", cwd: env.cwd, model: "m", provider: "anthropic", started: "2024-01-01T00:00:00Z", version: "0" };
    writeSync(fd, `${JSON.stringify({ type: "meta", meta })}\n`);
    const filler = "x".repeat(MiB);
    for (let i = 0; i < BIG_PAIRS; i++) {
      for (const role of ["user", "assistant"] as const) {
        const message = { role, content: [{ type: "text", text: `big ${role} ${i} ${filler}` }], time: "2024-01-01T00:00:01Z" };
        writeSync(fd, `${JSON.stringify({ type: "message", message })}\n`);
      }
    }
  } finally {
    closeSync(fd);
  }
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(path, old, old);
  return path;
}

async function runZotMeasured(args: readonly string[]): Promise<MeasuredRun> {
  return runMeasured([await zotBinary(), ...args], { cwd: env.cwd, env: cleanEnv(env.home) });
}

test("zot -c resumes a small session beside a 420 MB one without reading the big one", async () => {
  writeBigSession();
  env.server.enqueue({ type: "text", text: "small answer" }, { type: "text", text: "follow-up answer" });
  expect((await env.run(["-p", "small question", ...env.providerArgs()])).code).toBe(0);

  const result = await runZotMeasured(["-p", "-c", "follow-up", ...env.providerArgs()]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("follow-up answer\n");
  const texts = requestTexts(env.server.requests[1]);
  expect(texts).toContain("small question");
  expect(texts).not.toContain("big user");
  expect(result.maxRss).toBeLessThan(SMALL_RSS_BOUND);
}, 60_000);

test("resuming the 420 MB session streams it and keeps only the newest messages within the budget", async () => {
  const big = writeBigSession();
  env.server.enqueue({ type: "text", text: "big answer" });
  const result = await runZotMeasured(["-p", "--session", big, "what now?", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("big answer\n");
  expect(result.stderr).toMatch(/^zot: warning: .*: resumed the newest messages only: \d+ older message row\(s\) since the start are beyond the 32 MiB resume budget \(they stay in the file\)\n$/);
  const messages = requestMessages(env.server.requests[0]);
  // The budget holds ~31 rows of 1 MiB; the resumed part starts at a user message and ends with the newest rows.
  expect(messages.length).toBeGreaterThan(10);
  expect(messages.length * MiB).toBeLessThanOrEqual(RESUME_BUDGET_BYTES + 2 * MiB);
  expect(messages[0]?.role).toBe("user");
  const texts = requestTexts(env.server.requests[0]);
  expect(texts).toContain(`big assistant ${BIG_PAIRS - 1} `);
  expect(texts).not.toContain("big user 0 ");
  expect(result.maxRss).toBeLessThan(BIG_RSS_BOUND);
}, 60_000);

const PTY_RUN = join(import.meta.dir, "..", "fixtures", "pty-run.py");

test("--resume lists a small session and the 420 MB one without holding the big one in memory, and resumes the pick", async () => {
  writeBigSession();
  env.server.enqueue({ type: "text", text: "small answer" }, { type: "text", text: "picked answer" });
  expect((await env.run(["-p", "small question", ...env.providerArgs()])).code).toBe(0);
  const result = await runMeasured(["python3", PTY_RUN, await zotBinary(), "-p", "--resume", "again", ...env.providerArgs()], {
    cwd: env.cwd,
    env: cleanEnv(env.home),
    input: "1\n",
  });
  expect(result.stdout).toMatch(/ {2}1\) [\d-]+ [\d:]+ {2}2 msgs +small question\r\n/);
  expect(result.stdout).toMatch(/ {2}2\) [\d-]+ [\d:]+ {2}400 msgs +big user 0 x+…\r\n/);
  expect(result.stdout).toContain("picked answer");
  expect(result.stdout).toMatch(/EXIT 0\n$/);
  expect(requestTexts(env.server.requests[1])).toContain("small question");
  expect(result.maxRss).toBeLessThan(SMALL_RSS_BOUND);
}, 60_000);
