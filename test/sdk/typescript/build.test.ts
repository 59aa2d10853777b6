/**
 * sdk/typescript/dist/ (committed: what Node >= 20 runs) is exactly what
 * `bun build.ts` makes from src/ today: the test builds into a temp dir and
 * compares every file, so an edit to src/ without a rebuild fails here.
 * Also: the SDK has no runtime dependencies, and its package.json points
 * Node at dist/ and Bun / Deno at src/.
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "../../support/temp.ts";
import { SDK_DIR } from "./probe.ts";

afterAll(removeTempDirs);

test("the committed dist/ matches a fresh build of src/", () => {
  const out = join(tempDir("zot-sdk-build-"), "dist");
  const build = Bun.spawnSync([process.execPath, join(SDK_DIR, "build.ts"), out], { stdout: "pipe", stderr: "pipe" });
  expect(build.stderr.toString() + build.stdout.toString()).toBe("");
  expect(build.exitCode).toBe(0);
  const committed = readdirSync(join(SDK_DIR, "dist")).sort();
  expect(readdirSync(out).sort()).toEqual(committed);
  for (const file of committed) expect({ file, text: readFileSync(join(out, file), "utf8") }).toEqual({ file, text: readFileSync(join(SDK_DIR, "dist", file), "utf8") });
}, 60_000);

test("package.json: no dependencies, ESM, Node gets dist/, Bun and Deno get src/, protocol version 1", () => {
  const pkg = JSON.parse(readFileSync(join(SDK_DIR, "package.json"), "utf8")) as Record<string, unknown>;
  expect(pkg.dependencies).toBeUndefined();
  expect(pkg.type).toBe("module");
  expect(pkg.exports).toEqual({ ".": { types: "./dist/index.d.ts", bun: "./src/index.ts", deno: "./src/index.ts", default: "./dist/index.js" } });
  expect(pkg.zot).toEqual({ protocolVersion: 1 });
  // Only node: built-ins are imported.
  for (const file of readdirSync(join(SDK_DIR, "src"))) {
    const imports = [...readFileSync(join(SDK_DIR, "src", file), "utf8").matchAll(/from "([^"]+)"/g)].map((match) => match[1]!);
    expect(imports.filter((spec) => !spec.startsWith("./") && !spec.startsWith("node:"))).toEqual([]);
  }
});
