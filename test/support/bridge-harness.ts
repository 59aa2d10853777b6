/**
 * An agent session wired to real extensions through the ExtensionBridge, with
 * the scripted model client standing in for the model. Used by the lifecycle
 * and interception tests.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession, type AgentEvent, type AgentSessionOptions } from "../../src/agent/index.ts";
import { ExtensionBridge, type PermissionPolicy } from "../../src/ext/bridge.ts";
import type { ExtensionManager } from "../../src/ext/manager.ts";
import type { Tool } from "../../src/tools/types.ts";
import { TEST_MODEL, TestTools } from "../agent/fixtures.ts";
import { ScriptedClient, type ScriptStep } from "../agent/scripted-client.ts";
import { afterEach, expect } from "bun:test";
import { FIXTURES, createTestHost, type TestHost } from "./extensions.ts";

export const LIFECYCLE = join(FIXTURES, "lifecycle.py");

/** Writes an extension dir running lifecycle.py with options. */
export function lifecycleExtension(root: string, name: string, options: readonly string[]): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name, exec: LIFECYCLE, args: [name, ...options], language: "python" }));
  return dir;
}

export interface RecordedFrame {
  readonly type: string;
  readonly event?: string;
  readonly sequence?: number;
  readonly [key: string]: unknown;
}

export function readRecord(path: string): RecordedFrame[] {
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return text.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as RecordedFrame);
}

export interface BridgedSession {
  readonly session: AgentSession;
  readonly bridge: ExtensionBridge;
  readonly client: ScriptedClient;
  readonly events: AgentEvent[];
}

export function bridgedSession(
  manager: ExtensionManager,
  steps: readonly ScriptStep[],
  tools: readonly Tool[],
  options: Partial<AgentSessionOptions> & { permissions?: PermissionPolicy } = {},
): BridgedSession {
  const bridge = new ExtensionBridge(manager, {
    sessionId: "session-test",
    cwd: "/project",
    provider: "anthropic",
    model: TEST_MODEL.id,
    interactive: false,
    permissions: options.permissions,
  });
  const client = new ScriptedClient(steps);
  const events: AgentEvent[] = [];
  const session = new AgentSession({
    client,
    model: TEST_MODEL,
    system: "base prompt",
    tools: new TestTools([...tools, ...manager.tools()]),
    cwd: "/project",
    hooks: bridge.hooks,
    parallelTools: false,
    onEvent: (event) => {
      events.push(event);
      bridge.observe(event);
    },
    ...options,
  });
  bridge.attachAgent((call, runOptions) => session.runTool(call, runOptions));
  bridge.sessionStart();
  return { session, bridge, client, events };
}

/** Starts a manager on `dirs` (expecting no load errors) and registers it for shutdown in `running`. */
export async function startedHost(dirs: readonly string[], running: ExtensionManager[]): Promise<TestHost> {
  const host = createTestHost(dirs);
  running.push(host.manager);
  await host.manager.start();
  expect(host.manager.loadErrors.map((e) => e.message)).toEqual([]);
  return host;
}

/** startedHost for one test file: every manager it starts is shut down after each test (call at the top level of the file). */
export function startedHostsShutDownAfterEach(): (dirs: readonly string[]) => Promise<TestHost> {
  const running: ExtensionManager[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((m) => m.shutdown()));
  });
  return (dirs) => startedHost(dirs, running);
}
