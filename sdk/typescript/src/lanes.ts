/**
 * How inbound frames are run. `serial(key, task)`: tasks with the same key
 * run one after another in the order they were queued, each awaited (a
 * panel's keys, lifecycle events); different keys never wait for each other.
 * `concurrent(task)`: runs at once (tool calls, commands, interceptions).
 * A task that throws or rejects is reported to `onError` and never stops its
 * lane. `idle()` resolves when every queued task has settled.
 */
export class Lanes {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly onError: (error: unknown, what: string) => void) {}

  serial(key: string, what: string, task: () => unknown): void {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.guard(task, what));
    this.tails.set(key, next);
    this.track(next);
    void next.then(() => {
      if (this.tails.get(key) === next) this.tails.delete(key);
    });
  }

  concurrent(what: string, task: () => unknown): void {
    this.track(this.guard(task, what));
  }

  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private async guard(task: () => unknown, what: string): Promise<void> {
    try {
      await task();
    } catch (error) {
      this.onError(error, what);
    }
  }

  private track(promise: Promise<void>): void {
    this.running.add(promise);
    void promise.then(() => this.running.delete(promise));
  }
}
