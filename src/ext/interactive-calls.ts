/**
 * Interactive tool calls the host is waiting on (extensions.md "Interactive
 * tools"), oldest first, so an interactive host can tie a panel to the call
 * it belongs to: `begin` (tool-adapter, when an interactive call is sent)
 * gives the call a signal of its own that `dismiss` aborts (the user closed
 * the call's panel: the call ends as cancelled, tool_cancel goes to
 * extensions that advertised it); `end` runs once when the call is over,
 * telling `endListeners` whether it was answered (a tool_result arrived) or
 * abandoned (dismissed, cancelled with the turn, disconnected). Nothing here
 * times out: interactive calls have no reply deadline.
 */

export interface InteractiveCall {
  /** The tool_call frame's id (what tool_cancel names). */
  readonly requestId: string;
  readonly extension: string;
  readonly tool: string;
  /** Aborted by dismiss() only. */
  readonly signal: AbortSignal;
}

export type InteractiveCallEnd = "answered" | "abandoned";

interface Entry {
  readonly call: InteractiveCall;
  readonly controller: AbortController;
}

export class InteractiveCalls {
  readonly #calls = new Map<string, Entry>();
  /** Told once per call when it is over. */
  readonly endListeners = new Set<(call: InteractiveCall, end: InteractiveCallEnd) => void>();

  begin(requestId: string, extension: string, tool: string): InteractiveCall {
    const controller = new AbortController();
    const call: InteractiveCall = { requestId, extension, tool, signal: controller.signal };
    this.#calls.set(requestId, { call, controller });
    return call;
  }

  end(requestId: string, end: InteractiveCallEnd): void {
    const entry = this.#calls.get(requestId);
    if (entry === undefined) return;
    this.#calls.delete(requestId);
    for (const listener of this.endListeners) listener(entry.call, end);
  }

  /** The user gave up on the call (closed its panel): it ends as cancelled. False when it is already over. */
  dismiss(requestId: string): boolean {
    const entry = this.#calls.get(requestId);
    if (entry === undefined) return false;
    entry.controller.abort();
    return true;
  }

  get(requestId: string): InteractiveCall | undefined {
    return this.#calls.get(requestId)?.call;
  }

  /** The extension's pending interactive calls, oldest first. */
  pending(extension: string): InteractiveCall[] {
    return [...this.#calls.values()].map((entry) => entry.call).filter((call) => call.extension === extension);
  }
}
