/**
 * The process's working directory, for the places that default to it.
 * `currentDirectory()` is process.cwd(), except that a directory removed
 * while zot was started from it (getcwd(2) fails with ENOENT; the binary
 * is built to start anyway, scripts/compile.ts) is a ZotError
 * "cwd.removed" saying so and how to go on, instead of an internal error.
 * `resolveFromCwd(path)` is path.resolve with that same error.
 */
import { resolve } from "node:path";
import { ZotError, errorMessage, systemErrorCode } from "./errors.ts";

/** process.cwd(), or ZotError "cwd.removed" ending with `remedy` (how this command is given a directory). */
export function currentDirectory(remedy = "pass --cwd <dir>"): string {
  try {
    return process.cwd();
  } catch (err) {
    const code = systemErrorCode(err);
    const why = code === "ENOENT" ? "no longer exists (it was removed after the shell went into it)" : `cannot be read (${code ?? errorMessage(err)})`;
    throw new ZotError("cwd.removed", `the working directory ${why}; cd into a directory that exists, or ${remedy}`, { code }, { cause: err });
  }
}

/** `path` made absolute against the working directory (an absolute path never needs it). */
export function resolveFromCwd(path: string): string {
  return path.startsWith("/") ? resolve(path) : resolve(currentDirectory(), path);
}
