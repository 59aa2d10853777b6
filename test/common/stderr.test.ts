/**
 * common/stderr.ts through a real FIFO as stderr: while nobody reads it the
 * event loop keeps running and at most MAX_QUEUED_STDERR_BYTES wait; once
 * read, the text arrives in order, the overflow is reported by one
 * "dropped" line, and later text follows it.
 */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { MAX_QUEUED_STDERR_BYTES } from "../../src/common/stderr.ts";
import { readUntil, stalledFifo } from "../support/fifo.ts";
import { removeTempDirs, tempDir } from "../support/temp.ts";

afterAll(removeTempDirs);

const HELPER = join(import.meta.dir, "fixtures", "stderr-helper.ts");

test.if(process.platform !== "win32")("a stalled stderr pipe neither blocks the event loop nor grows without bound; order is kept", async () => {
  const dir = tempDir();
  const { writeEnd, readEnd, close } = stalledFifo(dir, "stderr.fifo");
  const proc = Bun.spawn([process.execPath, HELPER], { stdin: "pipe", stdout: "pipe", stderr: writeEnd });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
  try {
    const reader = proc.stdout.getReader();
    const first = await reader.read();
    reader.releaseLock();
    const report = JSON.parse(new TextDecoder().decode(first.value)) as { queued: number; timerFired: boolean };
    expect(report.timerFired).toBe(true);
    expect(report.queued).toBeGreaterThan(0);
    expect(report.queued).toBeLessThanOrEqual(MAX_QUEUED_STDERR_BYTES);

    proc.stdin.write("go\n");
    proc.stdin.flush();
    const text = await readUntil(readEnd, "last\n");
    await proc.exited;
    const lines = text.split("\n").filter((line) => line !== "");
    const numbered = lines.filter((line) => line.startsWith("line ")).map((line) => Number(line.split(" ")[1]));
    expect(numbered.length).toBeGreaterThan(100);
    expect(numbered).toEqual(numbered.map((_, index) => index));
    const notes = lines.filter((line) => line.includes("bytes of stderr output were dropped"));
    expect(notes).toHaveLength(1);
    expect(lines.indexOf(notes[0] as string)).toBe(numbered.length);
    expect(lines.at(-1)).toBe("last");
    expect(proc.exitCode).toBe(0);
  } finally {
    clearTimeout(timer);
    if (proc.exitCode === null) proc.kill("SIGKILL");
    await proc.exited;
    close();
  }
});
