/**
 * Output capture for the `bash` tool, in bounded memory whatever the output
 * size. Keeps only the TAIL of a command's output (where errors and
 * summaries usually are): at most MAX_OUTPUT_BYTES bytes and
 * MAX_OUTPUT_LINES lines, starting at a line boundary; memory held is that
 * tail plus one pipe chunk. Once output is truncated, the output from its
 * first byte is also written, as it streams, to a spill file (bash-spill.ts)
 * that keeps at most its cap (the HEAD). append() resolves only when the
 * chunk is handled, spill write included; the caller awaits it before
 * reading the next chunk, which is what gives the pipe backpressure.
 */
import { SpillFile } from "./bash-spill.ts";
import { MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } from "./shared.ts";

const NEWLINE = 0x0a;

export interface CapturedOutput {
  /** The kept tail, decoded as UTF-8. */
  readonly text: string;
  readonly totalBytes: number;
  readonly totalLines: number;
  readonly shownLines: number;
  readonly shownBytes: number;
  readonly linesTruncated: boolean;
  readonly bytesTruncated: boolean;
  /** Where the output was saved; set when truncated and creating the file worked. */
  readonly fullOutputPath: string | undefined;
  /** Bytes the spill file holds (the head of the output). */
  readonly savedBytes: number;
  /** The spill file stopped at its cap: it holds only the first savedBytes bytes. */
  readonly spillCapped: boolean;
  /** Why creating or writing the spill file failed, if it did. */
  readonly saveError: string | undefined;
}

export interface CaptureLimits {
  readonly maxBytes?: number;
  readonly maxLines?: number;
  /** Directory for the spill file. */
  readonly spillDir: string;
  /** Cap of the spill file (default MAX_SPILL_BYTES). */
  readonly spillCap?: number;
}

/** A plain loop: for dense newlines (`yes`) it is several times faster than indexOf per line. */
function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === NEWLINE) count++;
  return count;
}

export class TailCapture {
  private chunks: Uint8Array[] = [];
  private heldBytes = 0;
  private totalBytes = 0;
  private newlines = 0;
  private lastByte = -1;
  private spill: SpillFile | undefined;
  private spillError: string | undefined;
  private readonly maxBytes: number;
  private readonly maxLines: number;

  constructor(private readonly limits: CaptureLimits) {
    this.maxBytes = limits.maxBytes ?? MAX_OUTPUT_BYTES;
    this.maxLines = limits.maxLines ?? MAX_OUTPUT_LINES;
  }

  /** Adds a chunk; callers must await each call before the next (keeps the spill file ordered, gives backpressure). */
  async append(bytes: Uint8Array): Promise<void> {
    if (bytes.length === 0) return;
    this.totalBytes += bytes.length;
    this.lastByte = bytes[bytes.length - 1] ?? -1;
    this.newlines += countNewlines(bytes);
    this.chunks.push(bytes);
    this.heldBytes += bytes.length;
    if (this.spill) await this.spill.write(bytes);
    else if (this.totalBytes > this.maxBytes && this.spillError === undefined) await this.startSpill();
    for (let first = this.chunks[0]; first && this.chunks.length > 1 && this.heldBytes - first.length >= this.maxBytes; first = this.chunks[0]) {
      this.chunks.shift();
      this.heldBytes -= first.length;
    }
  }

  /** Opens the spill file and writes everything held so far (the whole output up to now). */
  private async startSpill(): Promise<void> {
    const created = await SpillFile.create(this.limits.spillDir, this.limits.spillCap);
    if (!(created instanceof SpillFile)) {
      this.spillError = created.error;
      return;
    }
    this.spill = created;
    for (const chunk of this.chunks) await created.write(chunk);
  }

  /** Finishes capturing: trims to the tail and closes (or, for line-only truncation, writes) the spill file. */
  async finish(): Promise<CapturedOutput> {
    const held = Buffer.concat(this.chunks, this.heldBytes);
    const bytesTruncated = this.totalBytes > this.maxBytes;
    let start = bytesTruncated ? held.length - this.maxBytes : 0;
    if (bytesTruncated) {
      while (start < held.length && ((held[start] ?? 0) & 0xc0) === 0x80) start++;
      const previous = held[start - 1];
      const newline = held.indexOf(NEWLINE, start);
      if (previous !== NEWLINE && newline !== -1 && newline + 1 < held.length) start = newline + 1;
    }
    let text = held.subarray(start).toString("utf8");
    const totalLines = this.newlines + (this.totalBytes > 0 && this.lastByte !== NEWLINE ? 1 : 0);
    let lines = text.split("\n");
    if (text.endsWith("\n")) lines.pop();
    const linesTruncated = lines.length > this.maxLines;
    if (linesTruncated) {
      lines = lines.slice(lines.length - this.maxLines);
      text = lines.join("\n") + (text.endsWith("\n") ? "\n" : "");
    }
    if (linesTruncated && !this.spill && this.spillError === undefined) await this.startSpill();
    const spill = this.spill;
    await spill?.close();
    const truncated = bytesTruncated || linesTruncated;
    const saveError = this.spillError ?? spill?.error;
    return {
      text,
      totalBytes: this.totalBytes,
      totalLines,
      shownLines: lines.length,
      shownBytes: Buffer.byteLength(text, "utf8"),
      linesTruncated,
      bytesTruncated,
      fullOutputPath: truncated && spill !== undefined ? spill.path : undefined,
      savedBytes: spill?.savedBytes ?? 0,
      spillCapped: spill?.capped ?? false,
      saveError: truncated ? saveError : undefined,
    };
  }
}
