/**
 * The `read` tool: returns one page of a text file (offset = 1-based first
 * line, limit = most lines; 0 for either = not given, as in the original), capped at MAX_OUTPUT_LINES lines and
 * MAX_OUTPUT_BYTES bytes, with a note telling the model the offset to continue
 * from; pages through files of any size. PNG/JPEG/GIF/WebP files (extension
 * and magic bytes) come back as one base64 image block. Directories, special
 * files and binary files (NUL in the first 8 KiB) are refused with an error.
 * Under --jail the path must be inside the root (paths.ts), or be a spill
 * file of this process's own bash commands; a file with several hard links
 * is refused, checked again on the opened file.
 *
 * Small files take a synchronous path: without --jail, a path that
 * resolves (realpath) to a regular file of at most BINARY_SNIFF_BYTES is
 * opened (O_NONBLOCK, so a FIFO swapped in never blocks the open), checked
 * with fstat and read whole in-process — ≈20 µs against four fs thread-pool
 * round trips (≈0.3 ms of a round). Anything else (errors, larger files,
 * --jail) goes the asynchronous way, which gives the same answers and error
 * texts. The cost: a read of a small file on a hung network mount blocks
 * the whole process instead of one pool thread until the kernel returns.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { open, readFile, stat, type FileHandle } from "node:fs/promises";
import { extname } from "node:path";
import * as v from "valibot";
import { checkToolPath, describeFsError, hardLinkRefusal, resolveToolPath } from "./paths.ts";
import { scanPage, type TextPage } from "./read-scan.ts";
import { formatBytes, guarded, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, PATH_PROPERTY, parseToolArgs, PathArg } from "./shared.ts";
import { textOutcome, type Tool, type ToolContext, type ToolOutcome } from "./types.ts";

const BINARY_SNIFF_BYTES = 8 * 1024;
/** Images larger than this are refused rather than base64-encoded into the context. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

const IMAGE_EXTENSIONS: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

const ReadArgs = v.object({
  path: PathArg,
  // 0 means "not given", as with the original zot (models that fill every field send offset 0 / limit 0).
  offset: v.nullish(v.pipe(v.number("expected a number"), v.integer("expected an integer"), v.minValue(0, "must be a line number ≥ 1"))),
  limit: v.nullish(v.pipe(v.number("expected a number"), v.integer("expected an integer"), v.minValue(0, "must be ≥ 1"))),
});

/** The image MIME type the leading bytes prove, if any. */
export function sniffImageMime(head: Uint8Array): string | undefined {
  const starts = (bytes: readonly number[], at = 0): boolean => bytes.every((byte, i) => head[at + i] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) return "image/gif";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return undefined;
}

/**
 * The first BINARY_SNIFF_BYTES of the file, and whether they are all of it:
 * a short read that brought in at least the `size` stat reported is taken as
 * end of file, so no read that could only return 0 follows (each read is a
 * thread-pool round trip). Files whose stat size is 0 or larger than what
 * they give (/proc, /sys: short reads mid-file) are read until a read
 * returns 0, as before.
 */
async function readHead(handle: FileHandle, size: number): Promise<{ readonly head: Uint8Array; readonly eof: boolean }> {
  const head = new Uint8Array(BINARY_SNIFF_BYTES);
  let filled = 0;
  while (filled < head.length) {
    const wanted = head.length - filled;
    const { bytesRead } = await handle.read(head, filled, wanted, null);
    filled += bytesRead;
    if (bytesRead === 0 || (bytesRead < wanted && size > 0 && filled >= size)) return { head: head.subarray(0, filled), eof: true };
  }
  return { head, eof: false };
}

const QUICK_OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

interface SmallFile {
  readonly canonical: string;
  readonly head: Uint8Array;
  readonly size: number;
}

/** A regular file of at most BINARY_SNIFF_BYTES, read whole and synchronously; undefined for anything else (the async path decides). */
function readSmallFile(absolute: string): SmallFile | undefined {
  let canonical: string;
  let fd: number;
  try {
    canonical = realpathSync.native(absolute);
    fd = openSync(canonical, QUICK_OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > BINARY_SNIFF_BYTES) return undefined;
    // One byte of room past the limit tells a file that grew (or a /proc file whose size says 0) from one that fits.
    const buffer = new Uint8Array(BINARY_SNIFF_BYTES + 1);
    let filled = 0;
    for (;;) {
      const bytesRead = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled > BINARY_SNIFF_BYTES) return undefined;
    }
    return { canonical, head: buffer.subarray(0, filled), size: stats.size };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

async function imageOutcome(file: string, path: string, absolute: string, mime: string, size: number): Promise<ToolOutcome> {
  if (size > MAX_IMAGE_BYTES) {
    return textOutcome(`${path}: image is ${formatBytes(size)}, larger than the ${formatBytes(MAX_IMAGE_BYTES)} limit`, true);
  }
  const data = await readFile(file);
  return {
    content: [{ type: "image", mime_type: mime, data: Buffer.from(data).toString("base64") }],
    isError: false,
    details: { path: absolute, mime_type: mime, bytes: data.length },
  };
}

function continuationNote(page: TextPage, requestedLimit: number | undefined): string | undefined {
  const first = page.startLine;
  const last = first + page.linesShown - 1;
  const total = page.totalLines === undefined ? `at least ${page.linesSeen}` : String(page.totalLines);
  const more = page.totalLines === undefined || page.totalLines > last;
  const next = `call read with offset=${last + 1} to continue`;
  if (page.cutLine) {
    const tail = more ? `; ${next}` : "";
    return `[truncated: line ${first} is longer than ${MAX_OUTPUT_BYTES} bytes and was cut; use bash (e.g. head -c / cut -c) to see the rest of it${tail}]`;
  }
  if (!more) return undefined;
  const capped = page.stop === "byte_cap" || (page.stop === "window" && (requestedLimit === undefined || requestedLimit > MAX_OUTPUT_LINES));
  if (capped) {
    const why = page.stop === "byte_cap" ? ` (${MAX_OUTPUT_BYTES}-byte limit)` : ` (${MAX_OUTPUT_LINES}-line limit)`;
    return `[truncated${why}: showing lines ${first}-${last} of ${total}; ${next}]`;
  }
  return `[showing lines ${first}-${last} of ${total}; ${next}]`;
}

async function readText(
  handle: FileHandle | undefined,
  { head, eof }: { readonly head: Uint8Array; readonly eof: boolean },
  path: string,
  absolute: string,
  offset: number,
  limit: number | undefined,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const maxLines = Math.min(limit ?? MAX_OUTPUT_LINES, MAX_OUTPUT_LINES);
  const page = await scanPage(handle, { startLine: offset, maxLines, maxBytes: MAX_OUTPUT_BYTES, signal: ctx.signal, head, headIsWholeFile: eof });
  if (page.stop === "cancelled") return textOutcome(`read: cancelled while reading ${path}`, true, { status: "cancelled" });
  const lastLine = offset + page.linesShown - 1;
  const details = {
    path: absolute,
    start_line: offset,
    end_line: page.linesShown > 0 ? lastLine : undefined,
    total_lines: page.totalLines,
    lines_truncated: page.stop === "window" && maxLines === MAX_OUTPUT_LINES && (page.totalLines ?? Infinity) > lastLine,
    bytes_truncated: page.stop === "byte_cap",
  };
  if (page.linesSeen === 0) return textOutcome("[empty file]", false, { details });
  if (page.linesShown === 0) {
    return textOutcome(`[offset ${offset} is past the end of ${path} (${page.linesSeen} lines)]`, false, { details });
  }
  const note = continuationNote(page, limit ?? undefined);
  return textOutcome(note === undefined ? page.text : `${page.text}${note}`, false, { details });
}

interface ReadRequest {
  readonly path: string;
  readonly absolute: string;
  readonly canonical: string;
  readonly size: number;
  readonly offset: number;
  readonly limit: number | undefined;
}

/** The answer once the head is in: an image, a refusal of binary data, or a page of text (`handle` only when more may follow). */
async function outcomeFromHead(
  handle: FileHandle | undefined,
  start: { readonly head: Uint8Array; readonly eof: boolean },
  request: ReadRequest,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const { path, absolute, canonical, size } = request;
  const head = start.head;
  const extensionMime = IMAGE_EXTENSIONS[extname(canonical).toLowerCase()];
  const looksBinary = head.includes(0);
  if (extensionMime !== undefined || looksBinary) {
    const sniffed = sniffImageMime(head);
    if (sniffed !== undefined) return await imageOutcome(canonical, path, absolute, sniffed, size);
    if (extensionMime !== undefined) {
      return textOutcome(`${path} has an image extension but is not a valid PNG, JPEG, GIF or WebP file`, true);
    }
  }
  if (looksBinary) return textOutcome(`${path} looks binary; refusing to read as text`, true);
  return await readText(handle, start, path, absolute, request.offset, request.limit, ctx);
}

async function executeRead(rawArgs: Readonly<Record<string, unknown>>, ctx: ToolContext): Promise<ToolOutcome> {
  const parsed = parseToolArgs("read", ReadArgs, rawArgs);
  if (!parsed.ok) return parsed.outcome;
  const { path } = parsed.value;
  const offset = parsed.value.offset || 1;
  const limit = parsed.value.limit || undefined;
  if (ctx.jailRoot === undefined) {
    const absolute = resolveToolPath(ctx.cwd, path);
    const small = readSmallFile(absolute);
    if (small !== undefined) {
      const request = { path, absolute, canonical: small.canonical, size: small.size, offset, limit };
      return outcomeFromHead(undefined, { head: small.head, eof: true }, request, ctx);
    }
  }
  const checked = await checkToolPath(ctx, path, { ownSpillFiles: true });
  if (!checked.ok) return checked.outcome;
  const { absolute, canonical } = checked;

  let size: number;
  try {
    const stats = await stat(canonical);
    if (stats.isDirectory()) return textOutcome(`${absolute} is a directory`, true);
    if (!stats.isFile()) return textOutcome(`${path} is not a regular file`, true);
    size = stats.size;
  } catch (err) {
    return textOutcome(describeFsError(err, path), true);
  }

  let handle: FileHandle;
  try {
    handle = await open(canonical, "r");
  } catch (err) {
    return textOutcome(describeFsError(err, path), true);
  }
  try {
    if (ctx.jailRoot !== undefined) {
      // The file opened may not be the one checked (a link swapped in between): check the open file itself.
      const links = (await handle.stat()).nlink;
      if (links > 1) return hardLinkRefusal(path, links);
    }
    const start = await readHead(handle, size);
    return await outcomeFromHead(handle, start, { path, absolute, canonical, size, offset, limit }, ctx);
  } finally {
    // Not awaited: the outcome does not depend on it, and a read-only close cannot lose data.
    void handle.close().catch(() => undefined);
  }
}

export function createReadTool(): Tool {
  return {
    name: "read",
    description: "Read a file, a page at a time (offset = 1-based line). Images (png/jpg/gif/webp) return inline.",
    schema: {
      type: "object",
      properties: {
        path: PATH_PROPERTY,
        offset: { type: "integer" },
        limit: { type: "integer" },
      },
      required: ["path"],
    },
    execute: guarded("read", executeRead),
  };
}
