import { afterAll, afterEach, expect, test } from "bun:test";
import { closeSync, openSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EWOULDBLOCK, LOCK_EX, LOCK_NB, LOCK_UN, flock } from "../../src/common/libc.ts";
import { tempDir } from "../support/binary.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test("flock: a second exclusive non-blocking lock on the same file is refused until the first is released", () => {
  const dir = tempDir();
  made.push(dir);
  const path = join(dir, "lock");
  writeFileSync(path, "");
  const first = openSync(path, "r");
  const second = openSync(path, "r");
  try {
    expect(flock(first, LOCK_EX | LOCK_NB)).toEqual({ ok: true });
    expect(flock(second, LOCK_EX | LOCK_NB)).toEqual({ ok: false, reason: "failed", errno: EWOULDBLOCK });
    expect(flock(first, LOCK_UN)).toEqual({ ok: true });
    expect(flock(second, LOCK_EX | LOCK_NB)).toEqual({ ok: true });
  } finally {
    closeSync(first);
    closeSync(second);
  }
});
