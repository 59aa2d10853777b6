/**
 * Output capture for the `bash` tool. Keeps only the TAIL of a command's
 * output in memory (where errors usually are), at most MAX_OUTPUT_BYTES
 * bytes and MAX_OUTPUT_LINES lines, starting at a line boundary. Once output
 * is truncated, the complete output is written to `$TMPDIR/zot-bash-<hex>.log`
 * (mode 0600), spilled as it streams so memory stays bounded.
 */
import { open, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  /** Where the complete output was saved; set when truncated and saving worked. */
  readonly fullOutputPath: string | undefined;
  /** Why saving the full output failed, if it did. */
  readonly saveError: string | undefined;
}

export function fullOutputFilePath(): string {
  return join(tmpdir(), `zot-bash-${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex")}.log`);
}

export class TailCapture {
  private chunks: Uint8Array[] = [];
  private heldBytes = 0;
  private totalBytes = 0;
  private newlines = 0;
  private lastByte = -1;
  private spill: FileHandle | undefined;
  private spillPath: string | undefined;
  private spillError: string | undefined;

  constructor(
    private readonly maxBytes = MAX_OUTPUT_BYTES,
    private readonly maxLines = MAX_OUTPUT_LINES,
  ) {}

  /** Adds a chunk; callers must await each call before the next (keeps the spill file ordered). */
  async append(bytes: Uint8Array): Promise<void> {
    if (bytes.length === 0) return;
    this.totalBytes += bytes.length;
    this.lastByte = bytes[bytes.length - 1] ?? -1;
    for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) this.newlines++;
    this.chunks.push(bytes);
    this.heldBytes += bytes.length;
    if (this.spill) await this.writeSpill([bytes]);
    else if (this.totalBytes > this.maxBytes && this.spillError === undefined) {
      await this.openSpill();
      await this.writeSpill(this.chunks);
    }
    for (let first = this.chunks[0]; first && this.chunks.length > 1 && this.heldBytes - first.length >= this.maxBytes; first = this.chunks[0]) {
      this.chunks.shift();
      this.heldBytes -= first.length;
    }
  }

  private async openSpill(): Promise<void> {
    const path = fullOutputFilePath();
    try {
      this.spill = await open(path, "wx", 0o600);
      this.spillPath = path;
    } catch (err) {
      this.spillError = err instanceof Error ? err.message : String(err);
    }
  }

  private async writeSpill(parts: readonly Uint8Array[]): Promise<void> {
    if (!this.spill) return;
    try {
      for (const part of parts) await this.spill.write(part);
    } catch (err) {
      this.spillError = err instanceof Error ? err.message : String(err);
      await this.closeSpill();
      this.spillPath = undefined;
    }
  }

  private async closeSpill(): Promise<void> {
    const handle = this.spill;
    this.spill = undefined;
    if (handle) await handle.close().catch(() => undefined);
  }

  /** Finishes capturing: trims to the tail and closes (or, for line-only truncation, writes) the full-output file. */
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
    if (linesTruncated && !this.spill && this.spillPath === undefined && this.spillError === undefined) {
      await this.openSpill();
      await this.writeSpill(this.chunks);
    }
    await this.closeSpill();
    const truncated = bytesTruncated || linesTruncated;
    return {
      text,
      totalBytes: this.totalBytes,
      totalLines,
      shownLines: lines.length,
      shownBytes: Buffer.byteLength(text, "utf8"),
      linesTruncated,
      bytesTruncated,
      fullOutputPath: truncated ? this.spillPath : undefined,
      saveError: truncated ? this.spillError : undefined,
    };
  }
}
