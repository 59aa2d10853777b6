/**
 * Test helpers for the tools area: throwaway directories and a ToolContext
 * whose progress output is recorded.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolContext, ToolOutcome } from "../../src/tools/types.ts";

const made: string[] = [];

/** A fresh directory (canonical path) removed by cleanupTempDirs(). */
export function tempDir(prefix = "zot-tools-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

export function cleanupTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface RecordingContext extends ToolContext {
  readonly progress: string[];
}

export function makeContext(cwd: string, extra: { signal?: AbortSignal; jailRoot?: string } = {}): RecordingContext {
  const progress: string[] = [];
  return {
    cwd,
    signal: extra.signal ?? new AbortController().signal,
    onProgress: (text) => progress.push(text),
    progress,
    ...(extra.jailRoot !== undefined ? { jailRoot: extra.jailRoot } : {}),
  };
}

/** The concatenated text blocks of an outcome. */
export function textOf(outcome: ToolOutcome): string {
  return outcome.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}
