/**
 * The busy spinner and elapsed-time text. Pure: the time is a parameter.
 * spinnerFrame(nowMs) is one of ten braille frames, 100 ms each.
 * formatElapsed: "4s" under a minute, "1m 05s" under an hour, "1h 02m" after;
 * with `tenths`, one decimal (rounded) under 10 s: "1.9s", as bash's `Took`.
 */

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
export const SPINNER_FRAME_MS = 100;

export function spinnerFrame(nowMs: number): string {
  const index = Math.floor(Math.max(0, nowMs) / SPINNER_FRAME_MS) % FRAMES.length;
  return FRAMES[Number.isFinite(index) ? index : 0]!;
}

export function formatElapsed(ms: number, options: { readonly tenths?: boolean } = {}): string {
  let clean = Math.max(0, Number.isFinite(ms) ? ms : 0);
  if (options.tenths === true) {
    const tenths = Math.round(clean / 100);
    if (tenths < 100) return `${(tenths / 10).toFixed(1)}s`;
    // 9.95 s rounds up to 10 s, not down to 9 s.
    clean = Math.max(clean, 10_000);
  }
  const seconds = Math.floor(clean / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}
