/**
 * The status bar's context figure: how many tokens the conversation takes
 * in the model's window. The last response's usage (input + cache read +
 * cache write + output) when there is one; an estimate from the messages
 * (estimateTokens) at start, after a compaction and after a session switch;
 * unknown (undefined) for an empty conversation or after /clear. Also
 * whether a compaction the user did not ask for (/compact) is running.
 */
import { estimateTokens } from "../../agent/compaction-text.ts";
import type { Message } from "../../providers/types.ts";

function estimate(messages: readonly Message[]): number | undefined {
  return messages.length > 0 ? estimateTokens(messages) : undefined;
}

export class ContextGauge {
  #tokens: number | undefined;
  #autoCompacting = false;

  constructor(messages: readonly Message[]) {
    this.#tokens = estimate(messages);
  }

  get tokens(): number | undefined {
    return this.#tokens;
  }

  get autoCompacting(): boolean {
    return this.#autoCompacting;
  }

  usage(usage: { readonly input: number; readonly cache_read: number; readonly cache_write: number; readonly output: number }): void {
    this.#tokens = usage.input + usage.cache_read + usage.cache_write + usage.output;
  }

  compactionStarted(byCommand: boolean): void {
    this.#autoCompacting = !byCommand;
  }

  compactionEnded(messages: readonly Message[]): void {
    this.#autoCompacting = false;
    this.#tokens = estimate(messages);
  }

  /** The conversation was replaced (a session switch) or cleared (empty messages). */
  reset(messages: readonly Message[]): void {
    this.#tokens = estimate(messages);
  }
}
