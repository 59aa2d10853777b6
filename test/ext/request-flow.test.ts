/**
 * The flow controller on its own (request-flow.ts): the in-flight bound per
 * lane, FIFO order, the priority reserve, nested requests that need no slot,
 * queue room, withdrawal without sending, close, the waiting-line bound and
 * the stall bound for waiting requests.
 */
import { describe, expect, test } from "bun:test";
import type { RequestFailure } from "../../src/ext/errors.ts";
import { type FlowTicket, type RequestLane, RequestFlow } from "../../src/ext/request-flow.ts";

interface Probe {
  readonly dispatched: string[];
  readonly refused: Map<string, RequestFailure>;
  readonly tickets: Map<string, FlowTicket>;
  submit(name: string, lane?: RequestLane, stallMs?: number): FlowTicket;
}

function probe(flow: RequestFlow): Probe {
  const dispatched: string[] = [];
  const refused = new Map<string, RequestFailure>();
  const tickets = new Map<string, FlowTicket>();
  return {
    dispatched,
    refused,
    tickets,
    submit(name, lane = "model", stallMs) {
      const ticket = flow.submit({
        lane,
        stallMs,
        dispatch: () => dispatched.push(name),
        refuse: (failure) => refused.set(name, failure),
      });
      tickets.set(name, ticket);
      return ticket;
    },
  };
}

const names = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe("RequestFlow", () => {
  test("at most maxInFlight model requests are in flight; the rest go in submission order as slots free", () => {
    const flow = new RequestFlow({ hasRoom: () => true, maxInFlight: 4 });
    const p = probe(flow);
    for (const name of names("m", 10)) p.submit(name);
    expect(p.dispatched).toEqual(names("m", 4));
    expect(flow.inFlight).toBe(4);
    expect(flow.waiting).toBe(6);
    p.tickets.get("m2")!.release();
    expect(p.dispatched).toEqual(names("m", 5));
    for (const name of names("m", 10)) p.tickets.get(name)!.release();
    expect(p.dispatched).toEqual(names("m", 10));
    expect(flow.inFlight).toBe(0);
    expect(flow.waiting).toBe(0);
  });

  test("priority requests go ahead of waiting model requests and use the reserve; nested ones need no slot", () => {
    const flow = new RequestFlow({ hasRoom: () => true, maxInFlight: 2, priorityReserve: 1 });
    const p = probe(flow);
    for (const name of names("m", 4)) p.submit(name);
    p.submit("p0", "priority");
    p.submit("p1", "priority");
    p.submit("n0", "nested");
    p.submit("n1", "nested");
    // m0, m1 fill the model slots; p0 takes the reserve; p1 waits; nested always go (and count as in flight).
    expect(p.dispatched).toEqual(["m0", "m1", "p0", "n0", "n1"]);
    p.tickets.get("n0")!.release();
    p.tickets.get("n1")!.release();
    expect(p.dispatched).toHaveLength(5);
    p.tickets.get("m0")!.release();
    // The freed slot goes to the waiting priority request, not to m2.
    expect(p.dispatched.at(-1)).toBe("p1");
    p.tickets.get("p0")!.release();
    // Two in flight (m1, p1): still no model slot.
    expect(p.dispatched).toHaveLength(6);
    p.tickets.get("p1")!.release();
    expect(p.dispatched.at(-1)).toBe("m2");
  });

  test("nothing is dispatched while the outbound queue has no room; pump() sends once it has", () => {
    let room = false;
    const flow = new RequestFlow({ hasRoom: () => room, maxInFlight: 8 });
    const p = probe(flow);
    p.submit("n0", "nested");
    p.submit("m0");
    expect(p.dispatched).toEqual([]);
    room = true;
    flow.pump();
    expect(p.dispatched).toEqual(["n0", "m0"]);
  });

  test("a withdrawn waiting request is never dispatched; withdraw after dispatch reports false", () => {
    const flow = new RequestFlow({ hasRoom: () => true, maxInFlight: 1 });
    const p = probe(flow);
    p.submit("a");
    p.submit("b");
    p.submit("c");
    expect(p.tickets.get("b")!.withdraw()).toBe(true);
    expect(p.tickets.get("a")!.withdraw()).toBe(false);
    p.tickets.get("a")!.release();
    expect(p.dispatched).toEqual(["a", "c"]);
    expect(p.refused.size).toBe(0);
  });

  test("close fails every waiting request at once and refuses new ones", () => {
    const flow = new RequestFlow({ hasRoom: () => true, maxInFlight: 1 });
    const p = probe(flow);
    for (const name of names("m", 3)) p.submit(name);
    flow.close({ kind: "disconnected", detail: "exited (status 1)" });
    expect([...p.refused.keys()]).toEqual(["m1", "m2"]);
    p.submit("late");
    expect(p.refused.get("late")).toEqual({ kind: "disconnected", detail: "exited (status 1)" });
    expect(p.dispatched).toEqual(["m0"]);
  });

  test("past maxWaiting a request is refused at once as overloaded", () => {
    const flow = new RequestFlow({ hasRoom: () => true, maxInFlight: 1, maxWaiting: 2 });
    const p = probe(flow);
    for (const name of names("m", 4)) p.submit(name);
    expect(p.dispatched).toEqual(["m0"]);
    expect(p.refused.get("m3")).toEqual({ kind: "overloaded", waiting: 2 });
    expect(p.refused.has("m2")).toBe(false);
  });

  test("a waiting request fails unsent once the extension answered nothing for its deadline; no deadline, no bound", async () => {
    const flow = new RequestFlow({ hasRoom: () => true, maxInFlight: 1 });
    const p = probe(flow);
    p.submit("busy");
    p.submit("bounded", "model", 150);
    p.submit("unbounded");
    for (let i = 0; i < 200 && !p.refused.has("bounded"); i++) await Bun.sleep(10);
    const failure = p.refused.get("bounded");
    expect(failure?.kind).toBe("stalled");
    expect(failure?.kind === "stalled" && failure.inFlight).toBe(1);
    expect(p.refused.has("unbounded")).toBe(false);
    expect(p.dispatched).toEqual(["busy"]);
    p.tickets.get("busy")!.release();
    expect(p.dispatched).toEqual(["busy", "unbounded"]);
  }, 30_000);

  test("replies keep a waiting request alive: the stall bound counts from the last reply", async () => {
    const flow = new RequestFlow({ hasRoom: () => true, maxInFlight: 1 });
    const p = probe(flow);
    p.submit("busy");
    p.submit("waiting", "model", 1_000);
    // The extension keeps answering (other requests) for longer than the bound.
    for (let i = 0; i < 15; i++) {
      await Bun.sleep(100);
      flow.replied();
    }
    expect(p.refused.has("waiting")).toBe(false);
    for (let i = 0; i < 300 && !p.refused.has("waiting"); i++) await Bun.sleep(10);
    expect(p.refused.get("waiting")?.kind).toBe("stalled");
  }, 30_000);

  test("a slot freed after the extension went quiet does not send a request that already stalled", () => {
    let clock = 1_000_000;
    const flow = new RequestFlow({ hasRoom: () => true, maxInFlight: 1, now: () => clock });
    const p = probe(flow);
    p.submit("first", "model", 60_000);
    p.submit("second", "model", 60_000);
    p.submit("third", "model", 60_000);
    // 60 s without a reply: "first" times out (its caller releases it); the others waited that long too.
    clock += 60_000;
    p.tickets.get("first")!.release();
    expect(p.dispatched).toEqual(["first"]);
    expect(p.refused.get("second")).toMatchObject({ kind: "stalled", waitedMs: 60_000 });
    expect(p.refused.get("third")?.kind).toBe("stalled");
    expect(flow.waiting).toBe(0);
  });
});
