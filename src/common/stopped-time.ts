/**
 * How long this process has been stopped in all (Ctrl+Z on the chat screen
 * until `fg`), for timeouts that measure silence from the other side: the
 * model stream's stall deadlines (providers/deadline.ts) must not count
 * the time zot itself could not read. The monotonic clock goes on while a
 * process is stopped, so a suspension longer than the stall bound made the
 * stream "stall" as soon as zot ran again, with the model's events waiting
 * unread in the socket. The terminal (tui/terminal.ts suspend()) adds each
 * stop it measures; readers compare totals taken at two moments.
 */
let stoppedMs = 0;

/** Adds a stop of `ms` milliseconds (ignored unless positive and finite). */
export function addStoppedTime(ms: number): void {
  if (Number.isFinite(ms) && ms > 0) stoppedMs += ms;
}

/** Milliseconds this process has spent stopped so far. */
export function stoppedTime(): number {
  return stoppedMs;
}
