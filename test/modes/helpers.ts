/**
 * Shared set-up for the headless mode tests: a temp ZOT_HOME + project dir,
 * the scripted model server, the provider flags pointing zot at it, and
 * readers for session files and recorded request bodies (both dialects);
 * `useModeEnv` registers the hooks that give each test a fresh env.
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type RunOptions, type RunResult, runZot, tempDir } from "../support/binary.ts";
import { useFreshEnv } from "../support/env-hooks.ts";
import { startModelServer, type ModelServer, type RecordedRequest } from "../support/model-server.ts";
// Imported for its side effect: real python3 and bun first on PATH for fixture extensions.
import "../support/extensions.ts";

export type ProviderKind = "anthropic" | "openai";

export const MODES_FIXTURES = join(import.meta.dir, "fixtures");

export interface ModeEnv {
  readonly base: string;
  readonly home: string;
  readonly cwd: string;
  readonly server: ModelServer;
  /** --provider/--base-url/--api-key for the stand-in server. */
  providerArgs(provider?: ProviderKind): string[];
  run(args: readonly string[], options?: RunOptions): Promise<RunResult>;
  sessionFiles(): string[];
  dispose(): Promise<void>;
}

export function createModeEnv(): ModeEnv {
  const base = tempDir("zot-modes-");
  const home = join(base, "home");
  const cwd = join(base, "project");
  mkdirSync(home);
  mkdirSync(cwd);
  const server = startModelServer();
  return {
    base,
    home,
    cwd,
    server,
    providerArgs: (provider = "anthropic") => [
      "--provider",
      provider,
      "--base-url",
      provider === "anthropic" ? server.anthropicBaseUrl : server.openaiBaseUrl,
      "--api-key",
      "test-key",
    ],
    run: (args, options = {}) => runZot(args, { home, cwd, ...options }),
    sessionFiles: () => {
      const root = join(home, "sessions");
      let dirs: string[];
      try {
        dirs = readdirSync(root);
      } catch {
        return [];
      }
      return dirs.flatMap((dir) => readdirSync(join(root, dir)).filter((name) => name.endsWith(".jsonl")).map((name) => join(root, dir, name)));
    },
    dispose: async () => {
      await server.stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh ModeEnv for each test of the file (or describe block), handed to
 * `use`; after each test `beforeDispose` (when given), then its dispose;
 * temp dirs removed after the file (see useFreshEnv).
 */
export function useModeEnv(use: (env: ModeEnv) => void, beforeDispose?: () => Promise<void>): void {
  useFreshEnv(createModeEnv, use, beforeDispose);
}

type Json = Record<string, unknown>;

function asRecord(value: unknown): Json {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function requestMessages(request: RecordedRequest | undefined): Json[] {
  return asArray(asRecord(request?.body).messages).map(asRecord);
}

export function requestToolNames(request: RecordedRequest | undefined): string[] {
  return asArray(asRecord(request?.body).tools).map((tool) => {
    const record = asRecord(tool);
    return String(record.name ?? asRecord(record.function).name ?? "");
  });
}

/** Text of every tool result sent back in the request, keyed by call id (both dialects). */
export function toolResultsSent(request: RecordedRequest | undefined): Map<string, string> {
  const results = new Map<string, string>();
  for (const message of requestMessages(request)) {
    if (message.role === "tool") {
      results.set(String(message.tool_call_id), typeof message.content === "string" ? message.content : JSON.stringify(message.content));
      continue;
    }
    for (const block of asArray(message.content).map(asRecord)) {
      if (block.type !== "tool_result") continue;
      const content = block.content;
      const text = typeof content === "string" ? content : asArray(content).map((part) => String(asRecord(part).text ?? "")).join("\n");
      results.set(String(block.tool_use_id), text);
    }
  }
  return results;
}

/** Every text the request carries in its messages (user, assistant, tool), flattened. */
export function requestTexts(request: RecordedRequest | undefined): string {
  return JSON.stringify(requestMessages(request));
}

export function parseJsonLines(stdout: string): Json[] {
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => asRecord(JSON.parse(line)));
}
