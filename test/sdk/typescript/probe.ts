/**
 * The SDK probe extension (fixtures/sdk-probe/probe.mjs) copied into a temp
 * dir with a manifest that runs it under `bun` or `node`, and a reader for
 * what its handlers recorded ($PROBE_RECORD, JSON lines).
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const PROBE_DIR = join(import.meta.dir, "fixtures", "sdk-probe");
export const SDK_DIR = join(import.meta.dir, "..", "..", "..", "sdk", "typescript");

export type Record_ = Record<string, unknown>;

/** A probe extension under `root` run by `runtime`; the file imports the SDK's dist/ by a path relative to the repo, so the probe stays where it is and only the manifest is new. */
export function probeExtension(root: string, runtime: "bun" | "node", name = "sdk-probe"): string {
  const dir = join(root, `${name}-${runtime}`);
  cpSync(PROBE_DIR, dir, { recursive: true });
  // The copy imports the SDK by an absolute path (its relative one points into the repo).
  const source = readFileSync(join(PROBE_DIR, "probe.mjs"), "utf8").replace("../../../../../sdk/typescript/dist/index.js", join(SDK_DIR, "dist", "index.js"));
  writeFileSync(join(dir, "probe.mjs"), source);
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name, version: "1.0.0", exec: runtime, args: ["probe.mjs"], language: "typescript" }));
  return dir;
}

export function readRecord(path: string): Record_[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record_);
}
