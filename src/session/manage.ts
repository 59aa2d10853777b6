/**
 * Renaming and deleting a session file that no writer of this process has
 * open (the `/sessions` picker's `r` and `d`). Both take the session's lock
 * first (lock.ts), so a session another zot is writing is refused with
 * SessionError "busy" and is never changed under it. Rename appends one
 * `{"type":"rename","title"}` row (the original zot's row; listing shows the
 * last one) with one write(2), after a newline when the file's last line is
 * unterminated. Delete removes the file, its index and its lock file. The
 * title is cut to one line of at most TITLE_MAX characters; an empty one is
 * refused.
 */
import { closeSync, constants, fstatSync, readSync, unlinkSync, writeSync } from "node:fs";
import { systemErrorCode } from "../common/errors.ts";
import { SessionError } from "./errors.ts";
import { openRegular } from "../common/regular-file.ts";
import { serializeRow } from "./format.ts";
import { removeIndex } from "./index-file.ts";
import { sessionFsError } from "./load.ts";
import { lockSession } from "./lock.ts";

/** Characters of a session title kept. */
export const TITLE_MAX = 200;

/** The title as stored: one line, trimmed, at most TITLE_MAX characters; undefined when empty. */
export function cleanTitle(title: string): string | undefined {
  const line = title.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").replace(/\s+/g, " ").trim();
  if (line === "") return undefined;
  return Array.from(line).slice(0, TITLE_MAX).join("");
}

function withLockedSession<T>(path: string, use: (fd: number) => T): T {
  let fd: number;
  try {
    fd = openRegular(path, constants.O_RDWR | constants.O_APPEND);
  } catch (err) {
    throw sessionFsError(path, err, "open");
  }
  try {
    const attempt = lockSession(fd, path);
    if (!attempt.ok) {
      if (attempt.reason === "error") throw new SessionError("unreadable", path, `cannot lock session file (${attempt.code})`);
      const holder = attempt.holderPid === undefined ? "another zot" : `another zot (pid ${attempt.holderPid})`;
      throw new SessionError("busy", path, `in use by ${holder}`, attempt.holderPid === undefined ? {} : { pid: attempt.holderPid });
    }
    try {
      return use(fd);
    } finally {
      attempt.lock.release();
    }
  } finally {
    closeSync(fd);
  }
}

function endsWithNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

/** Appends a rename row to the session at `path`; returns the stored title. */
export function renameSession(path: string, title: string): string {
  const clean = cleanTitle(title);
  if (clean === undefined) throw new SessionError("write", path, "a session name cannot be empty");
  withLockedSession(path, (fd) => {
    try {
      const row = serializeRow({ type: "rename", title: clean });
      writeSync(fd, endsWithNewline(fd) ? row : `\n${row}`);
    } catch (err) {
      throw new SessionError("write", path, `cannot write session file (${systemErrorCode(err) ?? "error"})`, {}, { cause: err });
    }
  });
  return clean;
}

/** Deletes the session at `path` (and its index and lock files). */
export function deleteSession(path: string): void {
  withLockedSession(path, () => {
    try {
      unlinkSync(path);
    } catch (err) {
      throw new SessionError("write", path, `cannot delete session file (${systemErrorCode(err) ?? "error"})`, {}, { cause: err });
    }
    removeIndex(path);
  });
}
