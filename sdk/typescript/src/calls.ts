/**
 * The extension side of `call_tool`: each request gets a fresh id
 * (`call-<n>`), waits for the host's correlated `tool_result`, and can be
 * cancelled with an AbortSignal (sends `call_tool_cancel`, rejects with the
 * signal's reason). A request whose reply never comes rejects after the
 * host's 60 s deadline plus 5 s of slack, or at once when the host goes away
 * (`failAll`). Tool failures are results (`is_error: true`); transport,
 * cancellation and refusal-before-sending are rejections.
 */
import { HOST_DEADLINES, type CallToolResult, type ContentBlock, type HostFrame, type JsonObject } from "./protocol.ts";

interface Pending {
  readonly name: string;
  resolve(result: CallToolResult): void;
  reject(error: Error): void;
}

export interface CallToolOptions {
  /** Aborting it sends `call_tool_cancel` and rejects the call. */
  signal?: AbortSignal;
  /** The `tool_call` id this call is nested in (set for you by a tool handler's `ctx.callTool`). */
  parentId?: string;
}

export class ToolCalls {
  private next = 0;
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly send: (frame: { type: string; [field: string]: unknown }) => Promise<void>) {}

  call(name: string, args: JsonObject, options: CallToolOptions): Promise<CallToolResult> {
    const { signal, parentId } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const id = `call-${++this.next}`;
    return new Promise<CallToolResult>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = (): void => {
        if (!this.pending.delete(id)) return;
        cleanup();
        void this.send({ type: "call_tool_cancel", id }).catch(() => {});
        reject(abortReason(signal!));
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      this.pending.set(id, {
        name,
        resolve: (result) => {
          cleanup();
          resolve(result);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      timer = setTimeout(() => this.settle(id, new Error(`call_tool ${name}: no reply within ${HOST_DEADLINES.callTool + 5_000} ms`)), HOST_DEADLINES.callTool + 5_000);
      const frame: { type: string; [field: string]: unknown } = { type: "call_tool", id, name, args };
      if (parentId !== undefined) frame.parent_id = parentId;
      this.send(frame).catch((error: Error) => this.settle(id, new Error(`call_tool ${name} not sent: ${error.message}`)));
    });
  }

  /** Handles a host `tool_result`; false when no call waits for its id. */
  reply(frame: HostFrame): boolean {
    const id = String(frame.id);
    const pending = this.pending.get(id);
    if (!pending) return false;
    this.pending.delete(id);
    pending.resolve({
      name: typeof frame.name === "string" ? frame.name : pending.name,
      content: Array.isArray(frame.content) ? (frame.content as ContentBlock[]) : [],
      is_error: frame.is_error === true,
      ...(frame.truncated === true ? { truncated: true } : {}),
    });
    return true;
  }

  failAll(reason: string): void {
    for (const id of [...this.pending.keys()]) this.settle(id, new Error(reason));
  }

  private settle(id: string, error: Error): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    pending.reject(error);
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("call_tool cancelled", "AbortError");
}
