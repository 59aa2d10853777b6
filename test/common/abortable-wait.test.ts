import { expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { settledOrAborted } from "../../src/common/abortable-wait.ts";

test("resolves when the promise settles (fulfilled or rejected) or when the signal aborts", async () => {
  const controller = new AbortController();
  await settledOrAborted(Promise.resolve(1), controller.signal);
  await settledOrAborted(Promise.reject(new Error("no")), controller.signal);
  const pending = new Promise<void>(() => undefined);
  const waiting = settledOrAborted(pending, controller.signal);
  controller.abort();
  await waiting;
  await settledOrAborted(pending, controller.signal);
});

test("a loop waiting on a long-lived signal leaves nothing attached to it", async () => {
  const controller = new AbortController();
  const count = (): number => heapStats().objectTypeCounts.Uint8Array ?? 0;
  Bun.gc(true);
  const before = count();
  for (let i = 0; i < 2_000; i++) {
    const chunk = new Uint8Array(1024);
    await settledOrAborted(Promise.resolve(chunk), controller.signal);
  }
  Bun.gc(true);
  // Promise.race([Promise.resolve(chunk), neverSettling]) keeps every chunk: 2,000 more.
  expect(count() - before).toBeLessThan(100);
});
