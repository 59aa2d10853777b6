/**
 * The busy spinner and elapsed-time text. Pure: the time is a parameter.
 * spinnerFrame(nowMs) is one of ten braille frames, 100 ms each.
 * formatElapsed: "4s" under a minute, "1m 05s" under an hour, "1h 02m" after.
 */

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
export const SPINNER_FRAME_MS = 100;

export function spinnerFrame(nowMs: number): string {
  const index = Math.floor(Math.max(0, nowMs) / SPINNER_FRAME_MS) % FRAMES.length;
  return FRAMES[Number.isFinite(index) ? index : 0]!;
}

export function formatElapsed(ms: number): string {
  const seconds = Math.floor(Math.max(0, Number.isFinite(ms) ? ms : 0) / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}
