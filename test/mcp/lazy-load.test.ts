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
import { cleanEnv } from "../support/binary.ts";
import { recordLoads, splitBundle, staticClosure } from "../support/lazy-loads.ts";
import { useMcpEnv, type McpEnv } from "./helpers.ts";

let env: McpEnv;
useMcpEnv((created) => (env = created));

test("src/mcp is only in lazily imported chunks of the bundle", async () => {
  const { dir, holding } = splitBundle();
  // A string only src/mcp/session.ts holds.
  const mcpChunks = holding("notifications/cancelled");
  expect(mcpChunks.length).toBeGreaterThan(0);
  // Neither the entry nor the chunk of the run setup (modes/mcp-setup.ts, loaded by every run) pulls them in statically.
  const setupChunks = holding("was not added: the name is taken by another tool");
  expect(setupChunks).toHaveLength(1);
  expect(mcpChunks).not.toContain(setupChunks[0]);
  for (const root of ["main.js", setupChunks[0]!]) {
    const eager = staticClosure(dir, root);
    for (const chunk of mcpChunks) expect(eager.has(chunk)).toBe(false);
  }
});

async function loadedModules(args: readonly string[]): Promise<string[]> {
  const run = await recordLoads({ args, cwd: env.cwd, env: cleanEnv(env.home), logDir: env.base, filter: /\/src\/mcp\/[^/]+\.ts$/ });
  // config-paths.ts is the cheap existsSync gate itself (node:fs and node:path only).
  return run.loaded.filter((path) => path !== "src/mcp/config-paths.ts");
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
