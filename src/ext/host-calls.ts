/**
 * Host-invoked extension tool calls that are still running, with the chain of
 * tool names that led to each (for call_tool's parent_id rules). The chain of
 * the call being made is carried implicitly through async work with
 * AsyncLocalStorage, so a tool run on behalf of `call_tool` knows its parents
 * without threading ids through the agent.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface HostCall {
  readonly requestId: string;
  readonly extension: string;
  /** Tool names from the original call to this one, inclusive. */
  readonly chain: readonly string[];
  readonly signal: AbortSignal | undefined;
}

/** The chain of tool names above the call being made (empty for model calls). */
export const parentChain = new AsyncLocalStorage<readonly string[]>();

export class HostCallTracker {
  private readonly calls = new Map<string, HostCall>();

  begin(call: HostCall): void {
    this.calls.set(call.requestId, call);
  }

  end(requestId: string): void {
    this.calls.delete(requestId);
  }

  get(requestId: string): HostCall | undefined {
    return this.calls.get(requestId);
  }

  /** True while the host is waiting on a tool call it sent to `extension`. */
  activeFor(extension: string): boolean {
    for (const call of this.calls.values()) if (call.extension === extension) return true;
    return false;
  }
}
