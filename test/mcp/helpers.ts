/**
 * Set-up for the MCP end-to-end tests: a temp ZOT_HOME + project, the
 * stand-in model server, a markers dir the fixture servers write to (one
 * file per tools/call, per notifications/cancelled), and `writeConfig`,
 * which writes $ZOT_HOME/mcp.json in the `mcpServers` shape from fixture
 * names (`ts:<modes>` = test/fixtures/mcp/server.ts with those modes,
 * `py` = server.py); `useMcpEnv` registers the hooks that give each test a
 * fresh env.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RunOptions, type RunResult, runZot, tempDir } from "../support/binary.ts";
import { useFreshEnv } from "../support/env-hooks.ts";
import { startModelServer, type ModelServer } from "../support/model-server.ts";
import "../support/extensions.ts";

export const MCP_FIXTURES = join(import.meta.dir, "..", "fixtures", "mcp");

export interface McpEnv {
  readonly base: string;
  readonly home: string;
  readonly cwd: string;
  readonly markers: string;
  readonly server: ModelServer;
  providerArgs(): string[];
  /** mcpServers entries: name → "ts:<modes>" | "py". */
  writeConfig(servers: Readonly<Record<string, string>>, extra?: Readonly<Record<string, Readonly<Record<string, unknown>>>>): void;
  markerFiles(): string[];
  hasMarker(name: string): boolean;
  logPath(server: string): string;
  run(args: readonly string[], options?: RunOptions): Promise<RunResult>;
  dispose(): Promise<void>;
}

export function serverEntry(spec: string, markers: string): Record<string, unknown> {
  const env = { MCP_MARKER_DIR: markers };
  if (spec === "py") return { command: "python3", args: [join(MCP_FIXTURES, "server.py")], env };
  const modes = spec.startsWith("ts:") ? spec.slice(3) : "good";
  return { command: "bun", args: [join(MCP_FIXTURES, "server.ts"), modes], env };
}

export function createMcpEnv(): McpEnv {
  const base = tempDir("zot-mcp-");
  const home = join(base, "home");
  const cwd = join(base, "project");
  const markers = join(base, "markers");
  for (const dir of [home, cwd, markers]) mkdirSync(dir);
  const server = startModelServer();
  const env: McpEnv = {
    base,
    home,
    cwd,
    markers,
    server,
    providerArgs: () => ["--provider", "anthropic", "--base-url", server.anthropicBaseUrl, "--api-key", "test-key"],
    writeConfig: (servers, extra = {}) => {
      const mcpServers: Record<string, unknown> = {};
      for (const [name, spec] of Object.entries(servers)) mcpServers[name] = { ...serverEntry(spec, markers), ...(extra[name] ?? {}) };
      writeFileSync(join(home, "mcp.json"), JSON.stringify({ mcpServers }, null, 2));
    },
    markerFiles: () => readdirSync(markers).sort(),
    hasMarker: (name) => existsSync(join(markers, name)),
    logPath: (name) => join(home, "logs", `mcp-${name}.log`),
    run: (args, options = {}) => runZot(args, { home, cwd, ...options }),
    dispose: async () => {
      await server.stop();
    },
  };
  return env;
}

/**
 * A fresh McpEnv for each test of the file, handed to `use`; after each test
 * `beforeDispose` (when given), then its dispose; temp dirs removed after
 * the file (see useFreshEnv).
 */
export function useMcpEnv(use: (env: McpEnv) => void, beforeDispose?: () => Promise<void>): void {
  useFreshEnv(createMcpEnv, use, beforeDispose);
}
