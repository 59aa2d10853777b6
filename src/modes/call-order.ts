/**
 * The model's calls of one step run concurrently where that is safe (agent
 * tool-exec.ts), so their `tool_result` events arrive in the order the
 * calls finish. The original zot ran them one by one, so its `--json` and
 * RPC streams list the results in call order, and scripts written for it
 * may rely on that. CallOrder sits in front of those two writers: a step's
 * `tool_result` is held back until every earlier call of the step (its
 * `tool_call` events, in order) has its result written; every other event
 * passes at once. A step's batch ends at the next `turn_start`, `done` or
 * `error`, which first releases whatever is still held, in call order. A
 * result for a call the step did not announce (an extension's call_tool)
 * passes at once. The chat screen does not use this: it shows each result
 * as soon as it is there.
 */
import type { AgentEvent } from "../agent/events.ts";

export class CallOrder {
  /** Ids of the step's announced calls whose results are not written yet, in call order. */
  #waiting: string[] = [];
  readonly #held = new Map<string, AgentEvent>();

  constructor(private readonly write: (event: AgentEvent) => void) {}

  event(event: AgentEvent): void {
    switch (event.type) {
      case "tool_call":
        this.#waiting.push(event.id);
        break;
      case "tool_result":
        if (this.#waiting.includes(event.id)) {
          this.#held.set(event.id, event);
          this.#release(false);
          return;
        }
        break;
      case "turn_start":
      case "done":
      case "error":
        this.#release(true);
        break;
      default:
    }
    this.write(event);
  }

  /** Ends the step's batch without an event: every held result is written, in call order. */
  flush(): void {
    this.#release(true);
  }

  /** Writes held results from the front while the next call's result is there (`all`: every held one, the batch is over). */
  #release(all: boolean): void {
    while (this.#waiting.length > 0) {
      const id = this.#waiting[0] as string;
      const held = this.#held.get(id);
      if (held === undefined && !all) return;
      this.#waiting.shift();
      if (held === undefined) continue;
      this.#held.delete(id);
      this.write(held);
    }
  }
}
