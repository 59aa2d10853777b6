/**
 * Where session files live and how they are named:
 * `<sessionsRoot>/<first 8 bytes of sha256(cwd) as 16 hex>/<UTC YYYYMMDD-HHMMSS>-<8 hex>.jsonl`.
 * The 8 hex are the first 8 characters of the session's UUID (meta.id), as in
 * the original zot. Pure functions: nothing is created here.
 */
import { join, resolve } from "node:path";
import { zotPaths } from "../common/home.ts";

export const SESSION_FILE_EXTENSION = ".jsonl";

/** 16 hex characters identifying a working directory. */
export function cwdHash(cwd: string): string {
  return new Bun.CryptoHasher("sha256").update(resolve(cwd)).digest("hex").slice(0, 16);
}

/** The directory holding every session of `cwd`. */
export function sessionDirForCwd(cwd: string, sessionsRoot: string = zotPaths().sessions): string {
  return join(sessionsRoot, cwdHash(cwd));
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, "0");
}

/** UTC `YYYYMMDD-HHMMSS`. */
export function sessionTimestamp(at: Date): string {
  return (
    `${pad(at.getUTCFullYear(), 4)}${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())}-` +
    `${pad(at.getUTCHours())}${pad(at.getUTCMinutes())}${pad(at.getUTCSeconds())}`
  );
}

/** File name of a session started at `started` with UUID `id`. */
export function sessionFileName(started: Date, id: string): string {
  const suffix = id.replace(/-/g, "").slice(0, 8).toLowerCase();
  return `${sessionTimestamp(started)}-${suffix}${SESSION_FILE_EXTENSION}`;
}
