/**
 * A deadline `ms` after the last touch(), for the stream stall timeouts
 * (http.ts): one timer, rescheduled only when it fires early, so touching it
 * for every event costs a clock read. hold() stops its clock until
 * release() (zot waiting on its own output): that time does not count;
 * neither does time the process spent stopped (common/stopped-time.ts:
 * Ctrl+Z until `fg`), when the other side may well have answered.
 */
import { stoppedTime } from "../common/stopped-time.ts";

export class Deadline {
  private last = 0;
  /** stoppedTime() when `last` was taken: a stop since then moves the deadline by its length. */
  private stoppedAtLast = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private heldAt: number | undefined;

  constructor(
    readonly ms: number,
    private readonly onExpire: () => void,
  ) {}

  start(): void {
    this.last = performance.now();
    this.stoppedAtLast = stoppedTime();
    this.running = true;
    this.schedule(this.ms);
  }

  touch(): void {
    this.last = performance.now();
    this.stoppedAtLast = stoppedTime();
  }

  stop(): void {
    this.running = false;
    this.clearTimer();
  }

  hold(): void {
    if (!this.running || this.heldAt !== undefined) return;
    this.heldAt = performance.now();
    this.clearTimer();
  }

  release(): void {
    if (this.heldAt === undefined) return;
    this.last += performance.now() - this.heldAt;
    this.heldAt = undefined;
    if (this.running) this.schedule(Math.max(1, this.last + this.ms + (stoppedTime() - this.stoppedAtLast) - performance.now()));
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delay: number): void {
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const left = this.last + this.ms + (stoppedTime() - this.stoppedAtLast) - performance.now();
      if (left > 1) this.schedule(left);
      else this.onExpire();
    }, delay);
  }
}
