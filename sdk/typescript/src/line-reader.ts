/**
 * Splits a byte stream into lines ("\n"-terminated, a trailing "\r" dropped)
 * however the bytes arrive: a line split across any number of chunks, many
 * lines in one chunk, a multi-byte character split between chunks. Each chunk
 * is scanned once (no rescanning of what is buffered), so a huge line costs
 * linear time. A line longer than `maxLineBytes` is not buffered: its bytes
 * are discarded up to the next newline and `onOversized(bytes)` is called
 * once for it. `finish()` delivers a last line that had no newline.
 */
export class LineReader {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private skipping = false;
  private skippedBytes = 0;
  private readonly decoder = new TextDecoder("utf-8");

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOversized: (bytes: number) => void,
    private readonly maxLineBytes: number,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) break;
      this.take(chunk.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  finish(): void {
    if (this.pendingBytes > 0 || this.skipping) this.endLine();
  }

  private take(part: Uint8Array): void {
    if (part.length === 0) return;
    if (this.skipping) {
      this.skippedBytes += part.length;
      return;
    }
    if (this.pendingBytes + part.length > this.maxLineBytes) {
      this.skipping = true;
      this.skippedBytes = this.pendingBytes + part.length;
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    // Copy: the caller may reuse its chunk buffer.
    this.pending.push(part.slice());
    this.pendingBytes += part.length;
  }

  private endLine(): void {
    if (this.skipping) {
      const bytes = this.skippedBytes;
      this.skipping = false;
      this.skippedBytes = 0;
      this.onOversized(bytes);
      return;
    }
    let bytes: Uint8Array;
    if (this.pending.length === 1) bytes = this.pending[0]!;
    else {
      bytes = new Uint8Array(this.pendingBytes);
      let at = 0;
      for (const part of this.pending) {
        bytes.set(part, at);
        at += part.length;
      }
    }
    this.pending = [];
    this.pendingBytes = 0;
    let line = this.decoder.decode(bytes);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.trim() !== "") this.onLine(line);
  }
}
