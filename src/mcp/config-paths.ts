/**
 * Where MCP server configuration lives, and the cheap check that decides
 * whether src/mcp is loaded at all: `hasAnyMcpConfig` only calls existsSync
 * (true when --mcp was given, $ZOT_HOME/mcp.json exists, or ./.zot/mcp.json
 * exists and the project is included). Imports nothing but node:fs and
 * node:path, so setup can ask it without loading the MCP code (config.ts
 * re-exports both for the shared interface).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

export interface McpConfigLocation {
  readonly home: string;
  readonly cwd: string;
  readonly flagFiles: readonly string[];
  readonly includeProject: boolean;
}

export function mcpConfigPaths(home: string, cwd: string): { global: string; project: string } {
  return { global: join(home, "mcp.json"), project: join(cwd, ".zot", "mcp.json") };
}

/** Cheap: true when a config file exists or --mcp was given (decides whether src/mcp is imported at all). */
export function hasAnyMcpConfig(opts: McpConfigLocation): boolean {
  if (opts.flagFiles.length > 0) return true;
  const paths = mcpConfigPaths(opts.home, opts.cwd);
  return existsSync(paths.global) || (opts.includeProject && existsSync(paths.project));
}
