/**
 * One correlated host → extension request (tool_call, command_invoked,
 * event_intercept) from submission to its end. It first passes the
 * extension's flow control (request-flow.ts) and may wait there, unsent.
 * Once dispatched it is serialised (a frame over the outbound queue's byte
 * bound fails as too_large instead of overflowing the queue), registered for
 * its reply and queued; its reply deadline starts then (or, with
 * `timeoutStartsAfterWrite`, once the pipe took it). It ends exactly once:
 * reply, deadline, cancellation (a waiting request is withdrawn and nothing
 * is sent), refusal by flow control, or the connection closing; every ending
 * frees its flow-control slot.
 */
import { ExtensionRequestError, type RequestFailure } from "./errors.ts";
import type { InboundFrame, OutboundFrame } from "./frames.ts";
import { type OutboundQueue, prepareFrame } from "./outbound-queue.ts";
import type { FlowTicket, RequestFlow, RequestLane } from "./request-flow.ts";

export interface RequestOptions {
  /** Reply deadline, from dispatch; undefined means none (interactive tools). */
  readonly timeoutMs?: number;
  /** Start the deadline once the request reached the pipe instead of at dispatch (legacy interceptors). */
  readonly timeoutStartsAfterWrite?: boolean;
  readonly signal?: AbortSignal;
  /** Flow-control lane; default "model" for tool_call, "priority" for the rest (request-flow.ts). */
  readonly lane?: RequestLane;
}

/** A dispatched request waiting for its reply frame. */
export interface PendingRequest {
  readonly expect: InboundFrame["type"];
  resolve(frame: InboundFrame): void;
  reject(error: ExtensionRequestError): void;
}

/** What a request needs from its connection. */
export interface RequestChannel {
  readonly extension: string;
  readonly flow: RequestFlow;
  readonly queue: OutboundQueue;
  readonly pending: Map<string, PendingRequest>;
  /** Why a frame the queue reported unwritten was lost (disconnected, or not delivered). */
  unwritten(): RequestFailure;
}

export function sendRequest(
  channel: RequestChannel,
  frame: OutboundFrame & { readonly id: string },
  expect: InboundFrame["type"],
  options: RequestOptions,
): Promise<InboundFrame> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new ExtensionRequestError(channel.extension, { kind: "cancelled", sent: false }));
      return;
    }
    let timer: Timer | undefined;
    let settled = false;
    let sent = false;
    let ticket: FlowTicket | undefined;
    const finish = (reply: InboundFrame | undefined, failure?: RequestFailure): void => {
      if (settled) return;
      settled = true;
      if (sent) channel.pending.delete(frame.id);
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      ticket?.release();
      if (reply) resolve(reply);
      else reject(new ExtensionRequestError(channel.extension, failure ?? { kind: "not_delivered" }));
    };
    const onAbort = (): void => {
      // A request still waiting in the host is withdrawn: nothing is sent.
      if (ticket?.withdraw()) finish(undefined, { kind: "cancelled", sent: false });
      else finish(undefined, { kind: "cancelled", sent });
    };
    const timeoutMs = options.timeoutMs;
    const armTimer = (): void => {
      if (timeoutMs !== undefined && !settled) timer = setTimeout(() => finish(undefined, { kind: "timeout", timeoutMs }), timeoutMs);
    };
    const dispatch = (): void => {
      const prepared = prepareFrame(frame);
      const queue = channel.queue;
      if (prepared.bytes > queue.maxFrameBytes) {
        finish(undefined, { kind: "too_large", bytes: prepared.bytes, limit: queue.maxFrameBytes });
        return;
      }
      sent = true;
      channel.pending.set(frame.id, { expect, resolve: (reply) => finish(reply), reject: (error) => finish(undefined, error.failure) });
      if (!options.timeoutStartsAfterWrite) armTimer();
      queue.enqueuePrepared(prepared, (ok) => {
        if (!ok) finish(undefined, channel.unwritten());
        else if (options.timeoutStartsAfterWrite) armTimer();
      });
    };
    ticket = channel.flow.submit({
      lane: options.lane ?? (frame.type === "tool_call" ? "model" : "priority"),
      stallMs: timeoutMs,
      dispatch,
      refuse: (failure) => finish(undefined, failure),
    });
    // Settled during submit (refused, or failed on dispatch): free the slot it may hold.
    if (settled) ticket.release();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
