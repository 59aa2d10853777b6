/**
 * Serialises the long-running RPC operations (prompt, compact): at most one
 * runs at a time, the rest wait in arrival order. Each operation gets its own
 * AbortSignal: abortActive() cancels only the running one (queued operations
 * still run afterwards, as clients sent them), shutdown() cancels the running
 * one and hands every operation that starts later an already-aborted signal
 * so it can answer without doing work. An operation must not reject; if it
 * does, the error goes to `onFailure` and the queue moves on. idle() resolves
 * once nothing is running or waiting.
 */

export type Operation = (signal: AbortSignal) => Promise<void>;

export class OperationQueue {
  #tail: Promise<void> = Promise.resolve();
  #active: AbortController | undefined;
  #waiting = 0;
  #shuttingDown = false;

  constructor(private readonly onFailure: (err: unknown) => void) {}

  /** An operation is running or waiting. */
  get busy(): boolean {
    return this.#active !== undefined || this.#waiting > 0;
  }

  enqueue(operation: Operation): void {
    this.#waiting += 1;
    this.#tail = this.#tail.then(async () => {
      this.#waiting -= 1;
      const controller = new AbortController();
      if (this.#shuttingDown) controller.abort();
      this.#active = controller;
      try {
        await operation(controller.signal);
      } catch (err) {
        this.onFailure(err);
      } finally {
        this.#active = undefined;
      }
    });
  }

  /** Cancels the running operation, if any. */
  abortActive(): void {
    this.#active?.abort();
  }

  /** Cancels the running operation and every one still waiting. */
  shutdown(): void {
    this.#shuttingDown = true;
    this.#active?.abort();
  }

  async idle(): Promise<void> {
    let tail: Promise<void>;
    do {
      tail = this.#tail;
      await tail;
    } while (tail !== this.#tail);
  }
}
