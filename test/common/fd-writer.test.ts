/**
 * common/fd-writer.ts with a real FIFO as stdout nobody reads yet, in each
 * of its Linux modes ("pipe": a private non-blocking description; "worker":
 * the fallback of other platforms): the event loop keeps running while
 * 3 MB wait, then every line arrives in order, and the FIFO's shared
 * description is never made non-blocking. A writer whose reader is gone
 * breaks quietly instead of throwing.
 */
import { afterAll, expect, test } from "bun:test";
import { constants } from "node:fs";
import { join } from "node:path";
import { readUntil, stalledFifo, statusFlags } from "../support/fifo.ts";
import { tempDir, removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const HELPER = join(import.meta.dir, "fixtures", "fd-writer-helper.ts");
const linux = process.platform === "linux";

for (const mode of ["pipe", "worker"] as const) {
  test.if(linux)(`${mode}: a stalled FIFO does not block the event loop; once read, every line arrives in order`, async () => {
    const fifo = stalledFifo(tempDir("zot-fdw-"));
    const proc = Bun.spawn([process.execPath, HELPER, mode === "worker" ? "worker" : "auto"], { stdin: "pipe", stdout: fifo.writeEnd, stderr: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
    try {
      const reader = proc.stderr.getReader();
      const report = JSON.parse(new TextDecoder().decode((await reader.read()).value)) as { mode: string; queued: number; timerFired: boolean };
      reader.releaseLock();
      expect(report).toEqual({ mode, queued: expect.any(Number), timerFired: true });
      expect(report.queued).toBeGreaterThan(2_000_000);

      proc.stdin.write("go\n");
      proc.stdin.flush();
      const text = await readUntil(fifo.readEnd, "last\n");
      await proc.exited;
      const lines = text.split("\n").filter((line) => line !== "");
      expect(lines.at(-1)).toBe("last");
      const numbered = lines.slice(0, -1).map((line) => Number(line.split(" ")[1]));
      expect(numbered).toEqual(Array.from({ length: 3000 }, (_, index) => index));
      expect(proc.exitCode).toBe(0);
      expect(statusFlags(fifo.writeEnd) & constants.O_NONBLOCK).toBe(0);
    } finally {
      clearTimeout(timer);
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await proc.exited;
      fifo.close();
    }
  });
}
test.if(linux)("a reader that went away breaks the writer quietly: later writes are discarded, nothing throws", async () => {
  const script = `
    import { FdWriter } from ${JSON.stringify(join(import.meta.dir, "..", "..", "src", "common", "fd-writer.ts"))};
    await Bun.sleep(100);
    const writer = new FdWriter(1, { keepAlive: true });
    for (let i = 0; i < 100; i++) writer.write("x".repeat(100_000));
    await writer.whenQueuedAtMost(0);
    process.stderr.write(JSON.stringify({ mode: writer.mode, broken: writer.broken, queued: writer.queuedBytes }));
  `;
  const proc = Bun.spawn(["/bin/bash", "-c", '"$0" -e "$1" | true; exit "${PIPESTATUS[0]}"', process.execPath, script], { stdout: "pipe", stderr: "pipe" });
  const [stderr] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  expect(JSON.parse(stderr)).toEqual({ mode: "pipe", broken: true, queued: 0 });
  expect(proc.exitCode).toBe(0);
});
