import { describe, expect, test } from "bun:test";
import { OutboundQueue, type QueueFailure } from "../../src/ext/outbound-queue.ts";

function spawnReader(cmd: string[]) {
  return Bun.spawn(cmd, { stdin: "pipe", stdout: "pipe", stderr: "ignore", detached: true });
}

describe("OutboundQueue (real pipes)", () => {
  test("frames arrive in order and drain resolves once written", async () => {
    const proc = spawnReader(["cat"]);
    const failures: QueueFailure[] = [];
    const queue = new OutboundQueue(proc.stdin, { onFailure: (f) => failures.push(f) });
    const sent = Array.from({ length: 200 }, (_, i) => ({ type: "event", n: i, pad: "x".repeat(i * 10) }));
    for (const frame of sent) expect(queue.enqueue(frame)).toBe(true);
    expect(await queue.drain(5_000)).toBe(true);
    proc.stdin.end();
    const out = await new Response(proc.stdout).text();
    expect(out.trimEnd().split("\n").map((l) => JSON.parse(l).n)).toEqual(sent.map((f) => f.n));
    expect(failures).toEqual([]);
  });

  test("a reader that closed its stdin but runs on fails the queue with a write error (EPIPE), not silently", async () => {
    const proc = spawnReader(["python3", "-c", "import os, sys, time; os.close(0); sys.stdout.write('closed\\n'); sys.stdout.flush(); time.sleep(30)"]);
    await proc.stdout.getReader().read();
    const failures: QueueFailure[] = [];
    const queue = new OutboundQueue(proc.stdin, { onFailure: (f) => failures.push(f) });
    const written: boolean[] = [];
    queue.enqueue({ type: "tool_call", id: "1" }, (ok) => written.push(ok));
    expect(await queue.drain(5_000)).toBe(false);
    expect(failures.map((f) => f.kind)).toEqual(["write_error"]);
    expect(String((failures[0] as { error: unknown }).error)).toContain("EPIPE");
    expect(written).toEqual([false]);
    proc.kill();
    await proc.exited;
  });

  test("a reader that never reads overflows the bound and fails once, never silently dropping", async () => {
    const proc = spawnReader(["sleep", "30"]);
    const failures: QueueFailure[] = [];
    const queue = new OutboundQueue(proc.stdin, { onFailure: (f) => failures.push(f), maxFrames: 256, writeTimeoutMs: 60_000 });
    const big = "y".repeat(64 * 1024);
    let accepted = 0;
    for (let i = 0; i < 2_000 && !queue.stopped; i++) if (queue.enqueue({ type: "event", big })) accepted++;
    expect(failures.length).toBe(1);
    expect(failures[0]!.kind).toBe("overflow");
    expect(queue.enqueue({ type: "event" })).toBe(false);
    expect(accepted).toBeLessThan(2_000);
    process.kill(-proc.pid, "SIGKILL");
  });

  test("a write that cannot complete within the write timeout fails the queue", async () => {
    const proc = spawnReader(["sleep", "30"]);
    const failures: QueueFailure[] = [];
    const queue = new OutboundQueue(proc.stdin, { onFailure: (f) => failures.push(f), writeTimeoutMs: 200, maxFrames: 10_000, maxBytes: 1 << 30 });
    const big = "z".repeat(256 * 1024);
    for (let i = 0; i < 8; i++) queue.enqueue({ big });
    const started = Date.now();
    while (failures.length === 0 && Date.now() - started < 5_000) await Bun.sleep(20);
    expect(failures.map((f) => f.kind)).toEqual(["write_timeout"]);
    expect(await queue.drain(100)).toBe(false);
    process.kill(-proc.pid, "SIGKILL");
  });

  test("a child that exited and whose stdin was ended: writes do not throw (Bun's FileSink answers `true`), the queue goes on", async () => {
    const proc = Bun.spawn(["sh", "-c", "exit 0"], { stdin: "pipe", stdout: "ignore", stderr: "ignore" });
    await proc.exited;
    proc.stdin.end();
    const failures: QueueFailure[] = [];
    const queue = new OutboundQueue(proc.stdin, { onFailure: (f) => failures.push(f) });
    const results: boolean[] = [];
    // Before the fix the write's `true` was awaited as a promise: "e.then is not a function" escaped from the queue.
    expect(() => queue.enqueue({ type: "tool_result", id: "late" }, (ok) => results.push(ok))).not.toThrow();
    expect(await queue.drain(1_000)).toBe(true);
    queue.enqueue({ type: "event" }, (ok) => results.push(ok));
    await queue.drain(1_000);
    expect(results).toEqual([true, true]);
    expect(failures).toEqual([]);
  });

  test("onWritten reports delivery, and frames after close are refused", async () => {
    const proc = spawnReader(["cat"]);
    const queue = new OutboundQueue(proc.stdin, { onFailure: () => {} });
    const results: boolean[] = [];
    queue.enqueue({ a: 1 }, (ok) => results.push(ok));
    await queue.drain(1_000);
    queue.close();
    queue.enqueue({ a: 2 }, (ok) => results.push(ok));
    expect(results).toEqual([true, false]);
    proc.kill("SIGKILL");
  });
});
