/**
 * File access for skills, with errors as values. readSkillHead reads only as
 * much of a SKILL.md as it takes to settle its frontmatter (chunks of 8 KiB,
 * at most 64 KiB; a file whose frontmatter does not close within that is
 * treated as having none), so discovery stays cheap however large the bodies
 * are. readSkillBody reads the whole file when the skill is actually used.
 * "Absent" (ENOENT, ENOTDIR) is distinguished from real read failures, which
 * callers turn into warnings. Opens never block: a FIFO or device named
 * SKILL.md is "not a regular file" (common/regular-file.ts), not a hang.
 */
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { NotRegularFileError } from "../common/regular-file.ts";
import { errorMessage, systemErrorCode } from "../common/errors.ts";
import { frontmatterSettled, parseSkillFile, splitSkillFile, parseFrontmatter, EMPTY_FRONTMATTER, type SkillFrontmatter } from "./parse.ts";

export const HEAD_CHUNK_BYTES = 8 * 1024;
export const HEAD_LIMIT_BYTES = 64 * 1024;

export type FileRead<T> =
  | { readonly kind: "ok"; readonly value: T }
  | { readonly kind: "absent" }
  | { readonly kind: "error"; readonly message: string };

export function isAbsentError(err: unknown): boolean {
  const code = systemErrorCode(err);
  return code === "ENOENT" || code === "ENOTDIR";
}

function failed<T>(path: string, err: unknown): FileRead<T> {
  if (isAbsentError(err)) return { kind: "absent" };
  return { kind: "error", message: `cannot read ${path}: ${errorMessage(err)}` };
}

/** `path` opened read-only without blocking on a special file (common/regular-file.ts); NotRegularFileError for one. */
async function openRegularHandle(path: string): Promise<FileHandle> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if ((await handle.stat()).isFile()) return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
  await handle.close();
  throw new NotRegularFileError(path);
}

/** The start of a file: enough to hold its whole frontmatter when it has one. */
async function readHead(path: string): Promise<string> {
  const handle = await openRegularHandle(path);
  try {
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(HEAD_LIMIT_BYTES);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, Math.min(HEAD_CHUNK_BYTES, buffer.length - filled), null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (frontmatterSettled(decoder.decode(buffer.subarray(0, filled)))) break;
    }
    return decoder.decode(buffer.subarray(0, filled));
  } finally {
    await handle.close();
  }
}

/** Frontmatter fields of a SKILL.md, read from its head only. */
export async function readSkillHead(path: string): Promise<FileRead<SkillFrontmatter>> {
  try {
    const head = await readHead(path);
    const split = splitSkillFile(head);
    return { kind: "ok", value: split.frontmatter === undefined ? EMPTY_FRONTMATTER : parseFrontmatter(split.frontmatter) };
  } catch (err) {
    return failed(path, err);
  }
}

/** The trimmed body of a SKILL.md (frontmatter removed). */
export async function readSkillBody(path: string): Promise<FileRead<string>> {
  try {
    const handle = await openRegularHandle(path);
    try {
      return { kind: "ok", value: parseSkillFile(await handle.readFile("utf8")).body };
    } finally {
      await handle.close();
    }
  } catch (err) {
    return failed(path, err);
  }
}
