/**
 * Waiting for "this, unless that" inside loops. `Promise.race([p, stop])`
 * against a promise `stop` that stays pending for long (a shutdown, a
 * signal) attaches one reaction to `stop` per call, and each reaction keeps
 * its race's result alive — a read loop doing it per chunk keeps every
 * chunk. settledOrAborted waits on an AbortSignal instead and removes its
 * listener when it resolves, so nothing accumulates however often a loop
 * calls it.
 */

/** Resolves (never rejects) once `promise` settles or `signal` aborts, whichever is first. */
export function settledOrAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    promise.then(done, done);
  });
}
