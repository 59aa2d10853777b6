/**
 * The operation runner (operations.ts): one operation at a time, inputs
 * queued behind it and started in order; cancel aborts and drops the queue
 * (said in the chat); a throw is reported, and the next input still
 * starts; stop aborts and waits, bounded, and nothing starts after it.
 */
import { expect, test } from "bun:test";
import { OperationRunner, type QueuedInput } from "../../../src/modes/interactive/operations.ts";

function setup() {
  const lines: string[] = [];
  const started: string[] = [];
  let stopped = false;
  const gates = new Map<string, () => void>();
  const runner: OperationRunner = new OperationRunner({
    dispatch: (input: QueuedInput) => {
      started.push(input.text);
      runner.run(input.text, true, (signal) => {
        if (input.text === "throws") return Promise.reject(new Error("broken"));
        return new Promise<void>((resolve) => {
          gates.set(input.text, resolve);
          signal.addEventListener("abort", () => {
            lines.push(`aborted ${input.text}`);
            if (input.text !== "stubborn") resolve();
          });
        });
      });
    },
    frame: () => {},
    error: (text) => lines.push(`error ${text}`),
    warn: (text) => lines.push(`warn ${text}`),
    streamedChars: () => 0,
    stopped: () => stopped,
  });
  return { runner, lines, started, gates, stop: () => (stopped = true) };
}

const input = (text: string): QueuedInput => ({ text, promptOnly: true, announced: false });

test("one at a time, the queue in order; a throw is reported and the next starts", async () => {
  const { runner, lines, started, gates } = setup();
  runner.submit(input("a"));
  runner.submit(input("throws"));
  runner.submit(input("c"));
  expect(started).toEqual(["a"]);
  expect(runner.active?.label).toBe("a");
  expect(runner.queue.map((queued) => queued.text)).toEqual(["throws", "c"]);
  gates.get("a")?.();
  await Bun.sleep(0);
  await Bun.sleep(0);
  expect(started).toEqual(["a", "throws", "c"]);
  expect(lines).toEqual(["error zot: broken"]);
  gates.get("c")?.();
  await Bun.sleep(0);
  expect(runner.busy).toBe(false);
});

test("cancel aborts the running one and drops the queue", async () => {
  const { runner, lines, started } = setup();
  expect(runner.cancel()).toBe(false);
  runner.submit(input("a"));
  runner.submit(input("b"));
  runner.submit(input("c"));
  expect(runner.cancel()).toBe(true);
  await Bun.sleep(0);
  expect(lines).toEqual(["aborted a", "warn dropped 2 queued prompt(s)"]);
  expect(started).toEqual(["a"]);
  expect(runner.busy).toBe(false);
});

test("stop waits for the operation to wind down, bounded, and nothing starts after it", async () => {
  const { runner, lines, started, stop } = setup();
  runner.submit(input("stubborn"));
  runner.submit(input("never"));
  stop();
  await runner.stop(50);
  expect(lines).toEqual(["aborted stubborn"]);
  expect(started).toEqual(["stubborn"]);
  expect(runner.queue).toEqual([]);
});
