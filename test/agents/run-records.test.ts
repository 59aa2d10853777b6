/**
 * Run records read back from disk (src/agents/runs.ts), through dist/zot:
 * `zot agents` lists the well-formed ones and skips, with a warning each,
 * files that are not records, including JSON objects that lack a field the
 * listing prints or have one of the wrong type (such a file used to crash
 * `zot agents` with an internal error).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runZot, tempDir } from "../support/binary.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const GOOD = {
  agent_id: "good1",
  agent_run_id: "run1",
  name: "scout",
  description: "look around",
  prompt: "look around",
  parent_session_id: "s1",
  cwd: "/tmp",
  status: "completed",
  started: "2026-01-02T03:04:05.000Z",
};

test("zot agents skips records with missing or mistyped fields instead of crashing", async () => {
  const home = tempDir("zot-home-");
  const runs = join(home, "agents", "runs");
  mkdirSync(runs, { recursive: true });
  writeFileSync(join(runs, "good1.json"), JSON.stringify(GOOD));
  const { description: _dropped, ...noDescription } = GOOD;
  writeFileSync(join(runs, "nodesc.json"), JSON.stringify({ ...noDescription, agent_id: "nodesc" }));
  writeFileSync(join(runs, "badstatus.json"), JSON.stringify({ ...GOOD, agent_id: "badstatus", status: 7 }));
  writeFileSync(join(runs, "array.json"), "[1]");

  const listed = await runZot(["agents"], { home });
  expect(listed.stderr).not.toContain("internal error");
  expect(listed.code).toBe(0);
  expect(listed.stdout).toBe("good1  completed  2026-01-02T03:04:05.000Z  -  look around\n");
  for (const name of ["nodesc", "badstatus", "array"]) expect(listed.stderr).toContain(`${join(runs, name)}.json: not a run record; skipped`);

  const json = await runZot(["agents", "--json"], { home });
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout)).toEqual([GOOD]);
});
