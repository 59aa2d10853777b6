import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { isLockedByOther, lockFilePathFor, lockWithLockFile } from "../../src/session/lock.ts";
import { SessionError, SessionWriter, loadSession } from "../../src/session/index.ts";
import { removeTempDirs } from "../support/temp.ts";
import { newWriter, tempHome, userText } from "./helpers.ts";

afterAll(removeTempDirs);

function busyError(run: () => unknown): SessionError {
  try {
    run();
  } catch (err) {
    if (err instanceof SessionError) return err;
    throw err;
  }
  throw new Error("expected a SessionError");
}

describe("one writer per session file (flock)", () => {
  test("a second writer is refused with the --fork remedy until the first closes", () => {
    const home = tempHome();
    const first = newWriter(home);
    first.appendMessage(userText("mine"));
    expect(isLockedByOther(first.path)).toBe(true);
    const refused = busyError(() => SessionWriter.resume(first.path));
    expect(refused.kind).toBe("busy");
    expect(refused.message).toBe(`${first.path}: in use by another zot; to continue from it in a new session, run: zot --fork ${first.path}`);
    first.close();
    expect(isLockedByOther(first.path)).toBe(false);
    const { writer, loaded } = SessionWriter.resume(first.path);
    expect(loaded.messages).toHaveLength(1);
    writer.appendMessage(userText("second"));
    writer.close();
    expect(loadSession(first.path).messages).toHaveLength(2);
  });

  test("a path with spaces is quoted in the remedy", () => {
    const home = tempHome();
    const first = newWriter({ ...home, sessionsRoot: `${home.home}/with space` });
    first.appendMessage(userText("mine"));
    expect(busyError(() => SessionWriter.openExisting(first.path)).message).toEndWith(`zot --fork '${first.path}'`);
    first.close();
  });
});

describe("lock-file fallback", () => {
  test("the lock file holds our pid, refuses a second taker naming it, and is removed on release", () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("x"));
    writer.close();
    const first = lockWithLockFile(writer.path);
    expect(first.ok).toBe(true);
    expect(readFileSync(lockFilePathFor(writer.path), "utf8")).toBe(`${process.pid}\n`);
    expect(lockWithLockFile(writer.path)).toEqual({ ok: false, reason: "busy", holderPid: process.pid });
    if (first.ok) first.lock.release();
    expect(existsSync(lockFilePathFor(writer.path))).toBe(false);
  });

  test("a stale lock file (its process is gone) is taken over; a fresh unreadable one is busy", async () => {
    const home = tempHome();
    const writer = newWriter(home);
    writer.appendMessage(userText("x"));
    writer.close();
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    writeFileSync(lockFilePathFor(writer.path), `${dead.pid}\n`);
    const taken = lockWithLockFile(writer.path);
    expect(taken.ok).toBe(true);
    if (taken.ok) taken.lock.release();
    writeFileSync(lockFilePathFor(writer.path), "");
    expect(lockWithLockFile(writer.path)).toEqual({ ok: false, reason: "busy" });
    expect(isLockedByOther(writer.path)).toBe(false);
  });
});
