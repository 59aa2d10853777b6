/**
 * How many `call_tool` requests of one extension run at once (a zot
 * addition): at most MAX_RUNNING_CALL_TOOLS; later ones wait in arrival
 * order and start as running ones finish. An extension that sends calls in
 * a loop therefore runs 16 `bash` processes, not one per request (a fork
 * bomb through zot). At most MAX_WAITING_CALL_TOOLS wait; past that a
 * request is refused at once. A waiting request whose signal aborts
 * (call_tool_cancel, its 60 s deadline, a disconnect) leaves the queue
 * without a slot. Nested requests (with `parent_id`) never wait: a running
 * call may be waiting for them.
 */

export const MAX_RUNNING_CALL_TOOLS = 16;
export const MAX_WAITING_CALL_TOOLS = 10_000;

interface Waiter {
  readonly wake: (granted: boolean) => void;
}

interface Lane {
  running: number;
  readonly waiting: Waiter[];
}

/** What `acquire` gives: `release` frees the slot (a no-op when none was granted); `refused` when the queue is full. */
export type SlotGrant = { readonly refused: false; readonly release: () => void } | { readonly refused: true; readonly waiting: number };

export class CallToolSlots {
  readonly #lanes = new Map<string, Lane>();

  constructor(
    readonly maxRunning: number = MAX_RUNNING_CALL_TOOLS,
    readonly maxWaiting: number = MAX_WAITING_CALL_TOOLS,
  ) {}

  /** Waits for a running slot of `extension` (or for `signal` to abort, which grants none). */
  async acquire(extension: string, signal: AbortSignal): Promise<SlotGrant> {
    const lane = this.#lane(extension);
    if (lane.running < this.maxRunning && lane.waiting.length === 0) {
      lane.running += 1;
      return { refused: false, release: this.#releaser(extension, lane) };
    }
    if (lane.waiting.length >= this.maxWaiting) return { refused: true, waiting: lane.waiting.length };
    if (signal.aborted) return { refused: false, release: noop };
    const granted = await new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        wake: (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
      };
      const onAbort = (): void => {
        const index = lane.waiting.indexOf(waiter);
        if (index !== -1) lane.waiting.splice(index, 1);
        waiter.wake(false);
        this.#forget(extension, lane);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      lane.waiting.push(waiter);
    });
    return { refused: false, release: granted ? this.#releaser(extension, lane) : noop };
  }

  /** Requests of `extension` running / waiting now (for tests and diagnostics). */
  counts(extension: string): { readonly running: number; readonly waiting: number } {
    const lane = this.#lanes.get(extension);
    return { running: lane?.running ?? 0, waiting: lane?.waiting.length ?? 0 };
  }

  #lane(extension: string): Lane {
    let lane = this.#lanes.get(extension);
    if (lane === undefined) {
      lane = { running: 0, waiting: [] };
      this.#lanes.set(extension, lane);
    }
    return lane;
  }

  #releaser(extension: string, lane: Lane): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes to the oldest waiter, or is freed.
      const next = lane.waiting.shift();
      if (next !== undefined) next.wake(true);
      else lane.running -= 1;
      this.#forget(extension, lane);
    };
  }

  #forget(extension: string, lane: Lane): void {
    if (lane.running === 0 && lane.waiting.length === 0 && this.#lanes.get(extension) === lane) this.#lanes.delete(extension);
  }
}

function noop(): void {}
