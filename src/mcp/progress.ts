/**
 * Live progress of one MCP tool call for ctx.onProgress (tool_progress
 * events, the tool card): each notifications/progress becomes one line
 * `[progress/total] message\n` (`[progress]` without a total; the message
 * on one line, at most MAX_PROGRESS_MESSAGE_CHARS). At most one line per
 * PROGRESS_INTERVAL_MS goes out: a report arriving sooner replaces the one
 * waiting, which is sent when the interval ends (so a flood of
 * notifications costs one line per interval and the latest state always
 * shows). `finish()` sends what waits and stops; call it before the
 * result so every progress event precedes it.
 */
import type { ProgressReport } from "./session.ts";

export const PROGRESS_INTERVAL_MS = 50;
export const MAX_PROGRESS_MESSAGE_CHARS = 500;

export function progressLine(report: ProgressReport): string {
  const count = report.total === undefined ? `${report.progress}` : `${report.progress}/${report.total}`;
  const message = report.message === undefined ? "" : ` ${report.message.replace(/\s+/g, " ").trim().slice(0, MAX_PROGRESS_MESSAGE_CHARS)}`;
  return `[${count}]${message}\n`;
}

export class ProgressLines {
  #waiting: ProgressReport | undefined;
  #lastSent = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #done = false;

  constructor(private readonly listener: (line: string) => void) {}

  report(report: ProgressReport): void {
    if (this.#done) return;
    this.#waiting = report;
    const wait = this.#lastSent + PROGRESS_INTERVAL_MS - performance.now();
    if (wait <= 0) this.#send();
    else this.#timer ??= setTimeout(() => this.#send(), wait);
  }

  finish(): void {
    if (this.#done) return;
    this.#send();
    this.#done = true;
  }

  #send(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const report = this.#waiting;
    this.#waiting = undefined;
    if (report === undefined) return;
    this.#lastSent = performance.now();
    try {
      this.listener(progressLine(report));
    } catch {
      // a throwing listener does not stop the call
    }
  }
}
