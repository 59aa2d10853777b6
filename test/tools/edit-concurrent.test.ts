/**
 * `edit` against a real concurrent appender process (test/fixtures/appender):
 * edits run in a loop while lines are appended; afterwards every appended
 * line is in the file exactly once, and each edit either landed or failed
 * with the "changed on disk" error and left its slot untouched. The race
 * mostly exercises the carrying of late appends; the re-check before the
 * rename, which refuses changes other than appends, and the carrying itself
 * are also tested one by one on file-snapshot.ts.
 */
import { afterAll, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { assertUnchanged, carryLateAppends, FileChangedError, recentlyWrittenByOthers, releaseSnapshot, takeSnapshot } from "../../src/tools/file-snapshot.ts";
import { createEditTool } from "../../src/tools/index.ts";
import { NotRegularFileError } from "../../src/common/regular-file.ts";
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
  const quiet = await edit.execute({ path: "f.txt", edits: [{ oldText: "append 0\n", newText: "quiet 0\n" }] }, makeContext(dir));
  expect(quiet.isError).toBe(false);
  expect(readFileSync(file, "utf8")).toContain("quiet 0\n");
}, 30_000);

test("the re-check before the rename refuses a file rewritten in place or replaced, even with the same size", () => {
  const dir = tempDir();
  const file = join(dir, "f.txt");
  writeFileSync(file, "one\n");
  const unchanged = takeSnapshot(file, "f.txt");
  try {
    expect(() => assertUnchanged(unchanged, file, "f.txt")).not.toThrow();
    writeFileSync(file, "two\n"); // same inode, same size, maybe the same mtime: only the content differs
    expect(() => assertUnchanged(unchanged, file, "f.txt")).toThrow(FileChangedError);
  } finally {
    releaseSnapshot(unchanged);
  }
  const replaced = takeSnapshot(file, "f.txt");
  try {
    writeFileSync(join(dir, "other"), "two\n");
    renameSync(join(dir, "other"), file); // same content, another inode
    expect(() => assertUnchanged(replaced, file, "f.txt")).toThrow(FileChangedError);
  } finally {
    releaseSnapshot(replaced);
  }
});

test("a FIFO swapped in for the file is refused at once, when the snapshot is taken and at the re-check (never waited on)", () => {
  const dir = tempDir();
  const file = join(dir, "f.txt");
  expect(Bun.spawnSync(["mkfifo", file]).success).toBe(true);
  expect(() => takeSnapshot(file, "f.txt")).toThrow(NotRegularFileError);
  const real = join(dir, "g.txt");
  writeFileSync(real, "one\n");
  const snapshot = takeSnapshot(real, "g.txt");
  try {
    renameSync(file, real); // the FIFO now stands where the file was
    expect(() => assertUnchanged(snapshot, real, "g.txt")).toThrow(FileChangedError);
  } finally {
    releaseSnapshot(snapshot);
  }
});

test("bytes a writer puts into the replaced file after the rename are carried to the new one", async () => {
  const dir = tempDir();
  const file = join(dir, "f.txt");
  writeFileSync(file, "old\n");
  const snapshot = takeSnapshot(file, "f.txt");
  const writer = openSync(file, "a"); // opened before the rename: it keeps writing to the old inode
  try {
    writeFileSync(join(dir, "new"), "new\n");
    renameSync(join(dir, "new"), file);
    writeSync(writer, "late\n");
    expect(await carryLateAppends(snapshot, file)).toBe(5);
    expect(readFileSync(file, "utf8")).toBe("new\nlate\n");
  } finally {
    closeSync(writer);
    releaseSnapshot(snapshot);
  }
});

test("a file zot itself just wrote is not watched for another writer; a file someone else touched since is", async () => {
  const dir = tempDir();
  const file = join(dir, "a.txt");
  writeFileSync(file, "one\n");
  const edit = createEditTool();
  const ctx = makeContext(dir);
  expect((await edit.execute({ path: file, edits: [{ oldText: "one", newText: "two" }] }, ctx)).isError).toBe(false);
  const mine = takeSnapshot(file, "a.txt");
  try {
    expect(recentlyWrittenByOthers(mine, file)).toBe(false);
  } finally {
    releaseSnapshot(mine);
  }
  writeFileSync(file, "two\nthree\n", { flag: "a" });
  const theirs = takeSnapshot(file, "a.txt");
  try {
    expect(recentlyWrittenByOthers(theirs, file)).toBe(true);
    // Long ago is not recent, whoever wrote it.
    expect(recentlyWrittenByOthers(theirs, file, theirs.stats.mtimeMs + 60_000)).toBe(false);
  } finally {
    releaseSnapshot(theirs);
  }
});
