import { afterAll, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, readSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { cloexecPipe, EWOULDBLOCK, flock, isattyIfLoaded, libcAvailable, LOCK_EX, LOCK_NB, LOCK_UN } from "../../src/common/libc.ts";
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

test.if(process.platform === "linux")("cloexecPipe: both ends close-on-exec, what is written is read", () => {
  const pipe = cloexecPipe();
  expect(pipe).toBeDefined();
  const { read, write } = pipe!;
  try {
    for (const fd of [read, write]) {
      const flags = /flags:\s*(\d+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1];
      expect(Number.parseInt(flags ?? "0", 8) & 0o2000000).toBe(0o2000000);
    }
    writeSync(write, "through");
    const bytes = Buffer.alloc(16);
    expect(bytes.toString("utf8", 0, readSync(read, bytes))).toBe("through");
  } finally {
    closeSync(read);
    closeSync(write);
  }
});

test.if(process.platform === "linux")("isattyIfLoaded: libc's isatty once libc is open; a file or a pipe is no terminal", () => {
  expect(libcAvailable()).toBe(true);
  const dir = tempDir();
  const path = join(dir, "plain");
  writeFileSync(path, "");
  const fd = openSync(path, "r");
  const pipe = cloexecPipe()!;
  try {
    expect(isattyIfLoaded(fd)).toBe(false);
    expect(isattyIfLoaded(pipe.read)).toBe(false);
    expect(isattyIfLoaded(-1)).toBe(false);
  } finally {
    closeSync(fd);
    closeSync(pipe.read);
    closeSync(pipe.write);
  }
});
