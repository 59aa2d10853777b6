import { afterAll, expect, test } from "bun:test";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EWOULDBLOCK, LOCK_EX, LOCK_NB, LOCK_UN, flock } from "../../src/common/libc.ts";
import { removeTempDirs, tempDir } from "../support/temp.ts";

afterAll(removeTempDirs);

test("flock: a second exclusive non-blocking lock on the same file is refused until the first is released", () => {
  const dir = tempDir();
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
