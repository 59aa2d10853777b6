import { describe, expect, test } from "bun:test";
import { CallToolSlots } from "../../src/ext/call-tool-slots.ts";

describe("call_tool slots", () => {
  test("at most maxRunning per extension; waiters start in order as slots free; other extensions are not held up", async () => {
    const slots = new CallToolSlots(2, 10);
    const never = new AbortController().signal;
    const a = await slots.acquire("x", never);
    const b = await slots.acquire("x", never);
    const started: string[] = [];
    const c = slots.acquire("x", never).then((grant) => (started.push("c"), grant));
    const d = slots.acquire("x", never).then((grant) => (started.push("d"), grant));
    const other = await slots.acquire("y", never);
    expect(other.refused).toBe(false);
    expect(slots.counts("x")).toEqual({ running: 2, waiting: 2 });
    if (a.refused || b.refused) throw new Error("refused");
    a.release();
    a.release(); // twice is once
    await c;
    expect(started).toEqual(["c"]);
    b.release();
    const dGrant = await d;
    expect(started).toEqual(["c", "d"]);
    const cGrant = await c;
    if (cGrant.refused || dGrant.refused) throw new Error("refused");
    cGrant.release();
    dGrant.release();
    expect(slots.counts("x")).toEqual({ running: 0, waiting: 0 });
  });

  test("a waiter whose signal aborts leaves without a slot; past maxWaiting a request is refused at once", async () => {
    const slots = new CallToolSlots(1, 1);
    const never = new AbortController().signal;
    const held = await slots.acquire("x", never);
    const controller = new AbortController();
    const waiting = slots.acquire("x", controller.signal);
    expect(await slots.acquire("x", never)).toEqual({ refused: true, waiting: 1 });
    controller.abort();
    const left = await waiting;
    if (left.refused || held.refused) throw new Error("refused");
    left.release(); // no slot: nothing to free
    expect(slots.counts("x")).toEqual({ running: 1, waiting: 0 });
    held.release();
    expect(slots.counts("x")).toEqual({ running: 0, waiting: 0 });
  });
});
