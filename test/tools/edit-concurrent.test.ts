/**
 * `edit` against a real concurrent appender process (test/fixtures/appender):
 * edits run in a loop while lines are appended; afterwards every appended
 * line is in the file exactly once, and each edit either landed or failed
 * with the "changed on disk" error and left its slot untouched.
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEditTool } from "../../src/tools/index.ts";
import { CHANGED_ERROR, expectAllAppended, startAppender } from "../support/appender.ts";
import { cleanupTempDirs, makeContext, tempDir, textOf } from "./helpers.ts";

afterAll(cleanupTempDirs);

const SLOTS = 40;

test("edits racing a concurrent appender lose no appended line; each lands or fails with a clear error", async () => {
  const dir = tempDir();
  const file = join(dir, "f.txt");
  writeFileSync(file, Array.from({ length: SLOTS }, (_, i) => `slot ${i + 1}\n`).join(""));
  const edit = createEditTool();
  const appender = await startAppender(file, dir);
  const landed: number[] = [];
  try {
    for (let slot = 1; slot <= SLOTS; slot++) {
      const outcome = await edit.execute({ path: "f.txt", edits: [{ oldText: `slot ${slot}\n`, newText: `done ${slot}\n` }] }, makeContext(dir));
      if (outcome.isError) expect(textOf(outcome)).toMatch(CHANGED_ERROR);
      else landed.push(slot);
    }
  } finally {
    const written = await appender.stop();
    const content = readFileSync(file, "utf8");
    expectAllAppended(content, written);
    for (let slot = 1; slot <= SLOTS; slot++) {
      expect(content.includes(`done ${slot}\n`)).toBe(landed.includes(slot));
      expect(content.includes(`slot ${slot}\n`)).toBe(!landed.includes(slot));
    }
  }
  // With nobody writing, the edit lands.
  const quiet = await edit.execute({ path: "f.txt", edits: [{ oldText: "slot 1\n", newText: "quiet 1\n" }] }, makeContext(dir));
  if (!landed.includes(1)) expect(quiet.isError).toBe(false);
}, 30_000);
