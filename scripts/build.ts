/**
 * Builds the single zot executable for this machine: `bun run build` →
 * dist/zot (or the path given as the first argument). The compile flags
 * and the baked-in version are scripts/compile.ts's (shared with
 * scripts/release.ts).
 */
import { renameSync } from "node:fs";
import { join } from "node:path";
import { buildStamp, compileZot, REPO_ROOT } from "./compile.ts";

const stamp = await buildStamp();
const outfile = process.argv[2] ?? join(REPO_ROOT, "dist", "zot");
// Built beside the target and renamed over it, so a test or user running
// the old binary never sees a half-written file.
const partial = `${outfile}.${process.pid}.partial`;
const result = compileZot({ outfile: partial, stamp, inheritOutput: true });
if (!result.ok) {
  console.error(`build failed (exit ${result.exitCode})`);
  process.exit(1);
}
renameSync(partial, outfile);
console.log(`built ${outfile} — zot ${stamp.version}`);
