/**
 * DroppedFrames is one extension's account of every frame the
 * host dropped (invalid JSON, unknown type, failed validation, replies to
 * unknown ids, anything frames.ts reports as a problem): a total, the last
 * few reasons for `zot ext doctor`, and rate-limited log lines. Texts that
 * came from an extension are made one line and clipped before they are kept.
 */
import { oneLine, type RateLimitedNotes } from "../common/rate-limited-notes.ts";

export { formatCount, MAX_REASON_CHARS, NOTE_BURST, NOTE_WINDOW_MS, oneLine, RateLimitedNotes, type RateLimitOptions } from "../common/rate-limited-notes.ts";
export const RECENT_DROPS_KEPT = 5;

export class DroppedFrames {
  total = 0;
  private readonly lastReasons: string[] = [];

  constructor(private readonly notes: RateLimitedNotes) {}

  record(reason: string): void {
    this.total += 1;
    const line = oneLine(reason);
    this.lastReasons.push(line);
    if (this.lastReasons.length > RECENT_DROPS_KEPT) this.lastReasons.shift();
    this.notes.note(line);
  }

  /** The most recent reasons, oldest first. */
  get recent(): readonly string[] {
    return this.lastReasons;
  }

  finish(): void {
    this.notes.finish();
  }
}
