/**
 * Bounded logging of floods. RateLimitedNotes writes the first NOTE_BURST
 * notes of each NOTE_WINDOW_MS window in full and only counts the rest; when
 * the window ends (a timer, or `finish()` at disconnect or process exit) it
 * writes one summary line ("… 99,990 more dropped frames not logged in the
 * last second"). oneLine makes an outside text one printable, clipped line.
 * Shared by the extension host (ext/drop-log.ts) and the MCP client.
 */
import { beforeExitFlush } from "./log-file.ts";

export const NOTE_BURST = 10;
export const NOTE_WINDOW_MS = 1_000;
export const MAX_REASON_CHARS = 300;

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** `text` as one printable line of at most `max` characters (control characters escaped). */
export function oneLine(text: string, max: number = MAX_REASON_CHARS): string {
  // Every dropped frame passes here: the common case (short, printable) allocates nothing.
  if (text.length <= max && !CONTROL_CHARACTER.test(text)) return text;
  const head = text.length > max * 2 ? text.slice(0, max * 2) : text;
  const escaped = head.replace(/[\u0000-\u001f\u007f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return escaped.length > max || head.length < text.length ? `${escaped.slice(0, max)}…` : escaped;
}

export function formatCount(count: number): string {
  return count.toLocaleString("en-US");
}

export interface RateLimitOptions {
  readonly burst?: number;
  readonly windowMs?: number;
}

export class RateLimitedNotes {
  private readonly burst: number;
  private readonly windowMs: number;
  private windowStart = 0;
  private loggedInWindow = 0;
  private suppressed = 0;
  private timer: Timer | undefined;
  private unhookExit: (() => void) | undefined;

  constructor(
    private readonly write: (line: string) => void,
    /** What the summary counts, e.g. "dropped frames". */
    private readonly noun: string,
    options: RateLimitOptions = {},
  ) {
    this.burst = options.burst ?? NOTE_BURST;
    this.windowMs = options.windowMs ?? NOTE_WINDOW_MS;
  }

  note(message: string): void {
    const now = Date.now();
    if (now - this.windowStart >= this.windowMs) {
      this.finish();
      this.windowStart = now;
      this.loggedInWindow = 0;
    }
    if (this.loggedInWindow < this.burst) {
      this.loggedInWindow += 1;
      this.write(message);
      return;
    }
    this.suppressed += 1;
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.finish(), Math.max(0, this.windowStart + this.windowMs - now));
      this.timer.unref?.();
      this.unhookExit = beforeExitFlush(() => this.finish());
    }
  }

  /** Writes the pending summary (if any) now. */
  finish(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.unhookExit?.();
    this.unhookExit = undefined;
    if (this.suppressed === 0) return;
    const span = this.windowMs === 1_000 ? "second" : `${this.windowMs / 1_000} s`;
    this.write(`… ${formatCount(this.suppressed)} more ${this.noun} not logged in the last ${span}`);
    this.suppressed = 0;
  }
}
