/**
 * Hand-written LF line splitter for a child's stdout (extensions, MCP stdio
 * servers, subagents) and the RPC stdin. Feed it byte chunks in
 * any split; it emits each complete line as a string, decoded as UTF-8 only
 * once the whole line is in hand (so multi-byte characters split across
 * chunks survive), with one trailing CR stripped. Only LF (0x0A) ends a line:
 * U+2028/U+2029 are ordinary characters. A line longer than `maxLineBytes`
 * (excluding the LF) is an overflow, reported through the sink; then, by
 * default, the reader stops (an extension that sent it is disconnected), or
 * with `afterOverflow: "skip-line"` it discards the rest of that line and
 * carries on with the next (the RPC stdin). Memory stays bounded by the limit
 * plus one chunk either way.
 */

/** The extension protocol's frame cap (docs/limits.md); other readers pass their own. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

export interface LineSink {
  line(text: string): void;
  /** The pending line passed the limit (bytes seen so far). */
  overflow(pendingBytes: number): void;
}

export type AfterOverflow = "stop" | "skip-line";

export class LineReader {
  private readonly decoder = new TextDecoder("utf-8");
  /** Chunks (or chunk tails) of the current, unfinished line. */
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private failed = false;
  /** Inside an over-long line being skipped: drop bytes up to the next LF. */
  private skipping = false;

  constructor(
    private readonly sink: LineSink,
    private readonly maxLineBytes: number = MAX_FRAME_BYTES,
    private readonly afterOverflow: AfterOverflow = "stop",
  ) {}

  get overflowed(): boolean {
    return this.failed;
  }

  /** Bytes of the unfinished line currently held. */
  get buffered(): number {
    return this.pendingBytes;
  }

  push(chunk: Uint8Array): void {
    if (this.failed) return;
    let start = 0;
    const length = chunk.length;
    while (start < length) {
      const newline = chunk.indexOf(LF, start);
      if (this.skipping) {
        if (newline === -1) return;
        this.skipping = false;
        start = newline + 1;
        continue;
      }
      if (newline === -1) {
        this.hold(chunk, start, length);
        return;
      }
      if (this.pendingBytes + (newline - start) > this.maxLineBytes) {
        this.fail(this.pendingBytes + (newline - start), false);
        if (this.failed) return;
      } else {
        this.emit(chunk, start, newline);
        if (this.failed) return;
      }
      start = newline + 1;
    }
  }

  /**
   * End of stream. A final line without LF is emitted too: a frame is only
   * complete with its LF, but an extension that exits right after writing its
   * last frame without a newline should not lose it.
   */
  end(): void {
    if (this.failed || this.skipping || this.pendingBytes === 0) return;
    const bytes = this.takePending(undefined, 0, 0);
    this.deliver(bytes);
  }

  private hold(chunk: Uint8Array, start: number, end: number): void {
    const size = end - start;
    if (this.pendingBytes + size > this.maxLineBytes) {
      this.fail(this.pendingBytes + size, true);
      return;
    }
    // Copy: the caller may reuse its buffer.
    this.pending.push(chunk.slice(start, end));
    this.pendingBytes += size;
  }

  private emit(chunk: Uint8Array, start: number, end: number): void {
    if (this.pendingBytes === 0) {
      this.deliver(chunk.subarray(start, end));
      return;
    }
    this.deliver(this.takePending(chunk, start, end));
  }

  private takePending(chunk: Uint8Array | undefined, start: number, end: number): Uint8Array {
    const total = this.pendingBytes + (end - start);
    const joined = new Uint8Array(total);
    let offset = 0;
    for (const part of this.pending) {
      joined.set(part, offset);
      offset += part.length;
    }
    if (chunk) joined.set(chunk.subarray(start, end), offset);
    this.pending = [];
    this.pendingBytes = 0;
    return joined;
  }

  private deliver(bytes: Uint8Array): void {
    const end = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
    this.sink.line(this.decoder.decode(end === bytes.length ? bytes : bytes.subarray(0, end)));
  }

  /** `lineContinues`: the over-long line's LF has not been seen yet. */
  private fail(bytes: number, lineContinues: boolean): void {
    this.pending = [];
    this.pendingBytes = 0;
    if (this.afterOverflow === "stop") this.failed = true;
    else this.skipping = lineContinues;
    this.sink.overflow(bytes);
  }
}
