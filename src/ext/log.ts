/**
 * Per-extension log file ($ZOT_HOME/logs/ext-<name>.log; cap, rotation to
 * `.1`, 0600/0700 modes and non-blocking writes are log-file.ts's). The
 * extension's stderr is piped through the host into it (`pipeFrom`), with
 * backpressure: while more than STDERR_HIGH_WATER_BYTES wait to be written
 * the host stops reading, so a chatty extension slows down on a slow disk
 * instead of growing zot's memory. The host adds its own `[zot] …` lines
 * (start markers, dropped frames, rejected and shadowed registrations,
 * disconnect reasons); `limited(noun)` is a rate-limited channel for
 * anything an extension can trigger in a flood. Logging never throws.
 */
import { yieldToEventLoop } from "../common/yield.ts";
import { type LogFile, logFileFor } from "../common/log-file.ts";
import { oneLine, RateLimitedNotes } from "./drop-log.ts";

export const STDERR_HIGH_WATER_BYTES = 256 * 1024;

/** How much of the end of the extension's stderr is kept in memory for error messages (lastStderrLine). */
const STDERR_TAIL_BYTES = 2048;

export class ExtensionLog {
  private readonly file: LogFile;
  private readonly limiters = new Map<string, RateLimitedNotes>();
  /** The last bytes the extension wrote to stderr (its last words, for "exited before hello"). */
  private tail: Uint8Array = new Uint8Array(0);

  constructor(readonly path: string) {
    this.file = logFileFor(path);
  }

  startMarker(name: string, version: string | undefined): void {
    this.file.appendNote(`\n[zot] starting ${name}/${version ?? "-"} at ${new Date().toISOString()}\n`);
  }

  note(message: string): void {
    this.file.appendNote(`[zot] ${message}\n`);
  }

  /** A rate-limited note channel; `noun` names what its summary line counts ("dropped frames"). */
  limited(noun: string): RateLimitedNotes {
    let limiter = this.limiters.get(noun);
    if (!limiter) {
      limiter = new RateLimitedNotes((line) => this.note(line), noun);
      this.limiters.set(noun, limiter);
    }
    return limiter;
  }

  /** Copies a child's stderr into the log until it ends; never rejects. */
  async pipeFrom(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        this.file.appendBytes(value);
        this.keepTail(value);
        if (this.file.pendingBytes >= STDERR_HIGH_WATER_BYTES) await this.file.whenBelow(STDERR_HIGH_WATER_BYTES);
        else await yieldToEventLoop();
      }
    } catch {
      // the pipe broke: nothing more to copy
    } finally {
      reader.releaseLock();
    }
  }

  private keepTail(chunk: Uint8Array): void {
    const joined = new Uint8Array(Math.min(STDERR_TAIL_BYTES, this.tail.length + chunk.length));
    const fromChunk = chunk.subarray(Math.max(0, chunk.length - joined.length));
    const fromTail = this.tail.subarray(this.tail.length - (joined.length - fromChunk.length));
    joined.set(fromTail, 0);
    joined.set(fromChunk, fromTail.length);
    this.tail = joined;
  }

  /** The last non-blank line the extension wrote to stderr (at most 300 characters, one line); undefined when none. */
  lastStderrLine(): string | undefined {
    const lines = new TextDecoder().decode(this.tail).split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
    const last = lines.at(-1);
    return last === undefined ? undefined : oneLine(last, 300);
  }

  /** Writes pending rate-limit summaries and waits until everything queued is on disk. */
  async flush(): Promise<void> {
    for (const limiter of this.limiters.values()) limiter.finish();
    await this.file.flush();
  }
}
