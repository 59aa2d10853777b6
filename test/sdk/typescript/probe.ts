/**
 * The SDK probe extension (fixtures/sdk-probe/probe.mjs) copied into a temp
 * dir with a manifest that runs it under `bun`, `node` or `deno`, and a reader for
 * what its handlers recorded ($PROBE_RECORD, JSON lines).
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const PROBE_DIR = join(import.meta.dir, "fixtures", "sdk-probe");
export const SDK_DIR = join(import.meta.dir, "..", "..", "..", "sdk", "typescript");

export type Record_ = Record<string, unknown>;

/** A probe extension under `root` run by `runtime`; the file imports the SDK's dist/ by a path relative to the repo, so the probe stays where it is and only the manifest is new. */
/** Deno from the devDependency (npm installs its binary). */
export const DENO = join(import.meta.dir, "..", "..", "..", "node_modules", ".bin", "deno");

export function probeExtension(root: string, runtime: "bun" | "node" | "deno", name = "sdk-probe"): string {
  const dir = join(root, `${name}-${runtime}`);
  cpSync(PROBE_DIR, dir, { recursive: true });
  // The copy imports the SDK by an absolute path (its relative one points into the repo).
  const source = readFileSync(join(PROBE_DIR, "probe.mjs"), "utf8").replace("../../../../../sdk/typescript/dist/index.js", join(SDK_DIR, "dist", "index.js"));
  writeFileSync(join(dir, "probe.mjs"), source);
  // Deno runs it with every permission, as an extension launched by zot expects (files, env, its own stdio).
  const exec = runtime === "deno" ? { exec: DENO, args: ["run", "--allow-all", "--quiet", "probe.mjs"] } : { exec: runtime, args: ["probe.mjs"] };
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name, version: "1.0.0", ...exec, language: "typescript" }));
  return dir;
}

export function readRecord(path: string): Record_[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record_);
}
