// Builds dist/ (the JavaScript + .d.ts that Node >= 20 runs) from src/ with the repo's tsc: `bun build.ts`.
// dist/ is committed; test/sdk/typescript/build.test.ts fails when it drifts from src/.
import { rmSync } from "node:fs";
import { join } from "node:path";

const here = import.meta.dir;
const outDir = process.argv[2] ?? join(here, "dist");
rmSync(outDir, { recursive: true, force: true });
const tsc = join(here, "..", "..", "node_modules", ".bin", "tsc");
const proc = Bun.spawnSync([tsc, "-p", join(here, "tsconfig.json"), "--outDir", outDir], { stdout: "inherit", stderr: "inherit" });
process.exit(proc.exitCode ?? 1);
