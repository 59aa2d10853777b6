/**
 * Per-extension flow control for correlated host → extension requests
 * (tool_call, command_invoked, event_intercept). A request is dispatched
 * (handed to the outbound queue) only when the outbound queue has room and a
 * slot is free:
 *   - "model" lane (the model's tool calls): while fewer than
 *     MAX_IN_FLIGHT_REQUESTS requests are in flight;
 *   - "priority" lane (interception, slash commands): while fewer than
 *     MAX_IN_FLIGHT_REQUESTS + PRIORITY_RESERVE are, so a guard or a command
 *     never waits behind a burst of tool calls;
 *   - "nested" lane (requests made on behalf of an extension's call_tool):
 *     no slot needed, so a tool that calls back into the host can never
 *     deadlock on slots its own callers hold.
 * Everything else waits here, FIFO per lane; lanes are served nested, then
 * priority, then model. Within a lane dispatch order is submission order (for
 * the model's tool calls: the model's order).
 *
 * Waiting is not the extension's fault: the caller starts the reply deadline
 * when `dispatch` is called. A waiting request still has a user-facing bound:
 * it fails, never sent ("stalled"), once the extension has answered nothing
 * for that request's reply deadline while it waited (also when a slot frees
 * up only because a request in flight timed out). At most
 * MAX_WAITING_REQUESTS wait; past that a request fails at once
 * ("overloaded"). `withdraw` (cancellation) removes a waiting request without
 * sending anything; `close` fails every waiting request at once.
 */
import type { RequestFailure } from "./errors.ts";

export const MAX_IN_FLIGHT_REQUESTS = 16;
export const PRIORITY_RESERVE = 16;
export const MAX_WAITING_REQUESTS = 10_000;

export type RequestLane = "nested" | "priority" | "model";

export interface FlowRequest {
  readonly lane: RequestLane;
  /** The request's reply deadline; a waiting request fails after this long without any reply. Undefined: no bound. */
  readonly stallMs: number | undefined;
  /** Admitted: hand the frame to the outbound queue now (and start the reply deadline). */
  dispatch(): void;
  /** Failed before it was sent (stalled, overloaded, closed). */
  refuse(failure: RequestFailure): void;
}

export interface FlowTicket {
  /** True when the request was still waiting: it is gone and nothing was sent. */
  withdraw(): boolean;
  /** The dispatched request ended (reply, timeout, cancellation): frees its slot. */
  release(): void;
}

export interface RequestFlowOptions {
  /** True while the outbound queue can take another request frame. */
  readonly hasRoom: () => boolean;
  readonly maxInFlight?: number;
  readonly priorityReserve?: number;
  readonly maxWaiting?: number;
  /** Clock (tests). */
  readonly now?: () => number;
}

type EntryState = "waiting" | "in_flight" | "done";

interface Entry {
  readonly request: FlowRequest;
  readonly since: number;
  state: EntryState;
}

/** A FIFO with O(1) push/shift; withdrawn entries are skipped when they reach the head. */
class Line {
  private items: Entry[] = [];
  private head = 0;

  push(entry: Entry): void {
    this.items.push(entry);
  }

  /** The first entry still waiting (drops finished ones from the head). */
  peek(): Entry | undefined {
    while (this.head < this.items.length && this.items[this.head]!.state !== "waiting") this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return this.items[this.head];
  }

  shift(): void {
    this.head++;
  }

  *waiting(): Generator<Entry> {
    for (let i = this.head; i < this.items.length; i++) if (this.items[i]!.state === "waiting") yield this.items[i]!;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

const LANE_ORDER: readonly RequestLane[] = ["nested", "priority", "model"];

export class RequestFlow {
  private readonly lines: Record<RequestLane, Line> = { nested: new Line(), priority: new Line(), model: new Line() };
  private inFlightCount = 0;
  private waitingCount = 0;
  private lastReplyAt: number;
  private stallTimer: Timer | undefined;
  private pumping = false;
  private closedWith: RequestFailure | undefined;
  private readonly maxInFlight: number;
  private readonly priorityReserve: number;
  private readonly maxWaiting: number;
  private readonly now: () => number;

  constructor(private readonly options: RequestFlowOptions) {
    this.now = options.now ?? Date.now;
    this.lastReplyAt = this.now();
    this.maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT_REQUESTS;
    this.priorityReserve = options.priorityReserve ?? PRIORITY_RESERVE;
    this.maxWaiting = options.maxWaiting ?? MAX_WAITING_REQUESTS;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  get waiting(): number {
    return this.waitingCount;
  }

  /** Dispatches the request now when it may go, else queues it. */
  submit(request: FlowRequest): FlowTicket {
    const entry: Entry = { request, since: this.now(), state: "waiting" };
    const ticket: FlowTicket = {
      withdraw: () => {
        if (entry.state !== "waiting") return false;
        entry.state = "done";
        this.waitingCount--;
        if (this.waitingCount === 0) this.clearStallTimer();
        return true;
      },
      release: () => {
        if (entry.state !== "in_flight") return;
        entry.state = "done";
        this.inFlightCount--;
        this.pump();
      },
    };
    if (this.closedWith) {
      entry.state = "done";
      request.refuse(this.closedWith);
      return ticket;
    }
    if (this.waitingCount >= this.maxWaiting) {
      entry.state = "done";
      request.refuse({ kind: "overloaded", waiting: this.waitingCount });
      return ticket;
    }
    this.lines[request.lane].push(entry);
    this.waitingCount++;
    this.pump();
    if (entry.state === "waiting") this.armStallTimer();
    return ticket;
  }

  /** A reply arrived: the extension is making progress. */
  replied(): void {
    this.lastReplyAt = this.now();
  }

  /** Dispatches what may go now (call when the outbound queue made room). */
  pump(): void {
    if (this.pumping || this.closedWith) return;
    this.pumping = true;
    try {
      for (;;) {
        const next = this.nextAdmissible();
        if (!next) break;
        next.line.shift();
        this.waitingCount--;
        const { entry } = next;
        // A slot freed by a timed-out request is no sign of life: what already stalled fails, unsent.
        const now = this.now();
        if (now >= (this.stallsAt(entry) ?? Infinity)) {
          entry.state = "done";
          entry.request.refuse({ kind: "stalled", waitedMs: now - entry.since, inFlight: this.inFlightCount });
          continue;
        }
        entry.state = "in_flight";
        this.inFlightCount++;
        entry.request.dispatch();
        if (this.closedWith) break;
      }
    } finally {
      this.pumping = false;
    }
    if (this.waitingCount === 0) this.clearStallTimer();
  }

  /** Fails every waiting request with `failure` and refuses new ones. */
  close(failure: RequestFailure): void {
    if (this.closedWith) return;
    this.closedWith = failure;
    this.clearStallTimer();
    const waiting: Entry[] = [];
    for (const lane of LANE_ORDER) {
      waiting.push(...this.lines[lane].waiting());
      this.lines[lane].clear();
    }
    this.waitingCount = 0;
    for (const entry of waiting) {
      entry.state = "done";
      entry.request.refuse(failure);
    }
  }

  private nextAdmissible(): { line: Line; entry: Entry } | undefined {
    for (const lane of LANE_ORDER) {
      const line = this.lines[lane];
      const entry = line.peek();
      if (!entry) continue;
      if (lane === "priority" && this.inFlightCount >= this.maxInFlight + this.priorityReserve) continue;
      if (lane === "model" && this.inFlightCount >= this.maxInFlight) continue;
      // The queue bound is shared: when it has no room, nothing else may go either.
      return this.options.hasRoom() ? { line, entry } : undefined;
    }
    return undefined;
  }

  private armStallTimer(): void {
    if (this.stallTimer !== undefined) return;
    const due = this.nextStallDue();
    if (due === undefined) return;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = undefined;
      this.failStalled();
      if (this.waitingCount > 0) this.armStallTimer();
    }, Math.max(0, due - this.now()));
    // The bound never keeps zot alive on its own.
    this.stallTimer.unref();
  }

  private clearStallTimer(): void {
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
  }

  /** When a waiting `entry` stalls, given no reply comes before then; undefined: it never does. */
  private stallsAt(entry: Entry): number | undefined {
    const stallMs = entry.request.stallMs;
    return stallMs === undefined ? undefined : Math.max(entry.since, this.lastReplyAt) + stallMs;
  }

  /** When the earliest waiting request stalls, given no reply comes before then. */
  private nextStallDue(): number | undefined {
    let due: number | undefined;
    for (const lane of LANE_ORDER) {
      for (const entry of this.lines[lane].waiting()) {
        const at = this.stallsAt(entry);
        if (at !== undefined && (due === undefined || at < due)) due = at;
      }
    }
    return due;
  }

  private failStalled(): void {
    const now = this.now();
    const stalled: Entry[] = [];
    for (const lane of LANE_ORDER) {
      for (const entry of this.lines[lane].waiting()) if (now >= (this.stallsAt(entry) ?? Infinity)) stalled.push(entry);
    }
    for (const entry of stalled) {
      entry.state = "done";
      this.waitingCount--;
      entry.request.refuse({ kind: "stalled", waitedMs: now - entry.since, inFlight: this.inFlightCount });
    }
  }
}
