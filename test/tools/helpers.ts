/**
 * Test helpers for the tools area: throwaway directories and a ToolContext
 * whose progress output is recorded.
 */
import { tempDir as sharedTempDir } from "../support/temp.ts";
import { join } from "node:path";
import type { ToolContext, ToolOutcome } from "../../src/tools/types.ts";

/** A fresh directory (canonical path) removed by cleanupTempDirs(). */
export function tempDir(prefix = "zot-tools-"): string {
  return sharedTempDir(prefix);
}

export { removeTempDirs as cleanupTempDirs } from "../support/temp.ts";

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
