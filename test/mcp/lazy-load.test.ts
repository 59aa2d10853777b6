/**
 * Nothing MCP-related loads unless an MCP config exists (or --mcp is
 * given): in the bundle dist/zot is built from (--splitting), src/mcp is in
 * chunks only reachable through a dynamic import (from the entry and from
 * the run setup); at run time (zot from
 * source, with a preload recording every src/mcp module Bun loads) neither
 * `--version` nor a print run without config loads one (but the existsSync
 * gate, config-paths.ts), and a run with $ZOT_HOME/mcp.json does.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, cleanEnv, tempDir } from "../support/binary.ts";
import { MCP_FIXTURES, useMcpEnv, type McpEnv } from "./helpers.ts";

let env: McpEnv;
useMcpEnv((created) => (env = created));

/** Chunks the entry imports statically (transitively). */
function staticClosure(dir: string, entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(dir, file), "utf8");
    for (const match of text.matchAll(/^\s*(?:import|export)\s*(?:[^"'();]*?\s+from\s+)?["']\.\/([^"']+)["']/gm)) visit(match[1]!);
  };
  visit(entry);
  return seen;
}

test("src/mcp is only in lazily imported chunks of the bundle", async () => {
  const out = tempDir("zot-mcp-bundle-");
  const build = Bun.spawnSync([process.execPath, "build", join(REPO_ROOT, "src", "cli", "main.ts"), "--splitting", "--format=esm", "--target=bun", "--outdir", out], { cwd: REPO_ROOT, stderr: "pipe" });
  expect(build.exitCode).toBe(0);
  const files = readdirSync(out).filter((file) => file.endsWith(".js"));
  // A string only src/mcp/session.ts holds.
  const mcpChunks = files.filter((file) => readFileSync(join(out, file), "utf8").includes("notifications/cancelled"));
  expect(mcpChunks.length).toBeGreaterThan(0);
  // Neither the entry nor the chunk of the run setup (modes/mcp-setup.ts, loaded by every run) pulls them in statically.
  const setupChunks = files.filter((file) => readFileSync(join(out, file), "utf8").includes("was not added: the name is taken by another tool"));
  expect(setupChunks).toHaveLength(1);
  expect(mcpChunks).not.toContain(setupChunks[0]);
  for (const root of ["main.js", setupChunks[0]!]) {
    const eager = staticClosure(out, root);
    for (const chunk of mcpChunks) expect(eager.has(chunk)).toBe(false);
  }
});

async function loadedModules(args: readonly string[]): Promise<string[]> {
  const log = join(env.base, `loads-${Math.random().toString(36).slice(2)}.txt`);
  const proc = Bun.spawn([process.execPath, "--preload", join(MCP_FIXTURES, "record-loads.ts"), join(REPO_ROOT, "src", "cli", "main.ts"), ...args], {
    cwd: env.cwd,
    env: cleanEnv(env.home, { MCP_LOAD_LOG: log }),
    stdout: "pipe",
    stderr: "pipe",
  });
  await proc.exited;
  // config-paths.ts is the cheap existsSync gate itself (node:fs and node:path only).
  return existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((path) => path !== "" && !path.endsWith("/src/mcp/config-paths.ts")) : [];
}

test("--version and a run without MCP config load no src/mcp module; a run with $ZOT_HOME/mcp.json does", async () => {
  expect(await loadedModules(["--version"])).toEqual([]);
  env.server.enqueue({ type: "text", text: "plain" }, { type: "text", text: "with mcp" });
  expect(await loadedModules(["-p", "hi", ...env.providerArgs()])).toEqual([]);
  env.writeConfig({ srv: "ts:good" });
  expect(await loadedModules(["--version"])).toEqual([]);
  const loaded = await loadedModules(["-p", "hi", ...env.providerArgs()]);
  expect(loaded.some((path) => path.endsWith("src/mcp/manager.ts"))).toBe(true);
  expect(env.server.requests).toHaveLength(2);
});
