/**
 * A real concurrent appender process for the edit tests
 * (test/fixtures/appender/append.py: one open-append-close per line, in
 * bursts), and the checks that every line it wrote is in the file.
 */
import { expect } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "./extensions.ts";

export const APPENDER = join(import.meta.dir, "..", "fixtures", "appender", "append.py");
/** The edit tool's refusal for the file `f.txt`. */
export const CHANGED_ERROR = /^f\.txt changed on disk while the edit was being made \(another process wrote to it\); nothing was written\. Read the file again and redo the edit\.$/;

export interface Appender {
  /** Stops the appender; resolves to the number of lines it wrote. */
  stop(): Promise<number>;
}

export async function startAppender(file: string, dir: string): Promise<Appender> {
  const stopFile = join(dir, "stop-appending");
  const proc = Bun.spawn(["python3", APPENDER, file, stopFile], { stdout: "pipe", stderr: "inherit" });
  const started = await waitFor(() => existsSync(file) && readFileSync(file, "utf8").includes("append 100\n"), 10_000);
  if (!started) {
    proc.kill("SIGKILL");
    await proc.exited;
    throw new Error("the appender did not start");
  }
  return {
    stop: async () => {
      writeFileSync(stopFile, "");
      const [out] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      return Number(out.trim());
    },
  };
}

/** Every "append N" line for N < count appears exactly once. */
export function expectAllAppended(content: string, count: number): void {
  const appended = content.split("\n").filter((line) => line.startsWith("append "));
  const seen = new Set(appended);
  const missing = Array.from({ length: count }, (_, i) => `append ${i}`).filter((line) => !seen.has(line));
  expect(missing).toEqual([]);
  expect(appended.length).toBe(count);
}

