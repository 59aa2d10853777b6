/**
 * Shared pieces of the spec-example tests: copying a fixture from
 * test/fixtures/spec-examples into a temp dir (so its runtime files stay out
 * of the repo), a `tsx` shim for manifests that run `tsx` (tsx is not
 * installed here; the shim runs the file with bun, which runs TypeScript the
 * same way), the frames an example recorded in its frames.jsonl, and
 * (re-exported from tui-chat.ts) waiting until the chat screen's `/` popup
 * lists a command.
 */
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SPEC_EXAMPLES = join(import.meta.dir, "..", "fixtures", "spec-examples");

/** Copies fixture `name` to `<base>/<as>` (default: the fixture's name) and returns the copy's path. */
export function copyExample(base: string, name: string, as = name): string {
  const dir = join(base, as);
  cpSync(join(SPEC_EXAMPLES, name), dir, { recursive: true });
  return dir;
}

export type Frame = Record<string, unknown>;

/** The frames the example in `dir` recorded, one JSON object a line of `<dir>/frames.jsonl`. */
export function frames(dir: string): Frame[] {
  return readFileSync(join(dir, "frames.jsonl"), "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Frame);
}

/** A bin dir holding a `tsx` that runs its arguments with this bun; returns `{ PATH }` for the run's env. */
export function tsxShimEnv(base: string): { PATH: string } {
  const bin = join(base, "shim-bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "tsx"), `#!/bin/sh\nexec '${process.execPath}' "$@"\n`);
  chmodSync(join(bin, "tsx"), 0o755);
  const bunDir = process.execPath.slice(0, process.execPath.lastIndexOf("/"));
  return { PATH: `${bin}:${bunDir}:${process.env.PATH ?? "/usr/bin:/bin"}` };
}

/** Waits until the `/` popup lists `/name` (kept here for the spec-example tests; it lives in tui-chat.ts). */
export { waitForCommand } from "../modes/tui-chat.ts";
