/**
 * Yielding to the event loop. A `for await` over a pipe that always has data
 * (Bun subprocess stdout/stderr) resolves every read from the microtask
 * queue, so timers and I/O callbacks never run while it lasts: one flooding
 * child would freeze the whole process. Readers of outside pipes await
 * `yieldToEventLoop()` once per chunk (setImmediate: after pending I/O
 * callbacks, without a timer's minimum delay).
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
