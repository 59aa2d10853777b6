/**
 * providers/deadline.ts: a held deadline never expires, and after release()
 * the time it was held does not count (what zot spends waiting on its own
 * stdout is not the server's silence).
 */
import { expect, test } from "bun:test";
import { Deadline } from "../../src/providers/deadline.ts";
import { waitFor } from "../support/extensions.ts";

test("a held deadline does not expire; released, it expires with the time left before the hold", async () => {
  let expired = false;
  const deadline = new Deadline(40, () => (expired = true));
  deadline.start();
  deadline.hold();
  await Bun.sleep(120);
  expect(expired).toBe(false);
  const released = performance.now();
  deadline.release();
  expect(await waitFor(() => expired, 2_000)).toBe(true);
  // Not at once: the 40 ms had hardly started when it was held.
  expect(performance.now() - released).toBeGreaterThan(20);
});

test("stop() wins over a later release(): a stopped deadline stays stopped", async () => {
  let expired = false;
  const deadline = new Deadline(20, () => (expired = true));
  deadline.start();
  deadline.hold();
  deadline.stop();
  deadline.release();
  await Bun.sleep(80);
  expect(expired).toBe(false);
});
