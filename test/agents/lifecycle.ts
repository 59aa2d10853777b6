/**
 * The lifecycle-recording extension the subagent tests load (test/fixtures
 * lifecycle.py, every event recorded as a JSON line), and a reader for what
 * it recorded.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES } from "../support/extensions.ts";

export type Json = Record<string, unknown>;

/** An extension directory under `root` that records every event to `record`. */
export function lifecycleExtension(root: string, record: string): string {
  const dir = join(root, "lifecycle");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "extension.json"),
    JSON.stringify({ name: "life", exec: join(FIXTURES, "lifecycle.py"), args: ["life", "events=all", `record=${record}`], language: "python" }),
  );
  return dir;
}

export function recorded(path: string): Json[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Json);
}
