/**
 * What a parent run needs for subagents, built from its settings: the
 * agent definitions (warnings reported through `warn`), the supervisor and
 * the `agent` tool. The mode registers the tool, forwards the supervisor's
 * events to its output, shows it the parent's own agent events
 * (supervisor.observeParent: when to start a warm spare) and closes the
 * supervisor at cleanup (before the extensions stop).
 */
import { join, resolve } from "node:path";
import type { AgentEvent } from "../agent/events.ts";
import { discoverAgentDefinitions, type AgentDefinition, type ExtensionAgentSource } from "./definitions.ts";
import { AgentSupervisor, type ChildSettings, type SwarmObserver } from "./supervisor.ts";
import { createAgentTool } from "./tool.ts";
import type { Tool } from "../tools/types.ts";
import type { SwarmPrepare } from "./protocol.ts";

export interface SwarmSetup {
  readonly cwd: string;
  readonly zotHome: string;
  /** Definitions shipped by extensions (manifest `agents`). */
  readonly extensionAgents?: readonly ExtensionAgentSource[];
  readonly settings: Omit<ChildSettings, "cwd" | "sessions_root" | "ext"> & { readonly ext: readonly string[] };
  /** Built-in tools the parent may use (a child gets at most these). */
  readonly allowedTools: readonly string[];
  /** false: children write no session file (the parent has none either). */
  readonly sessions: boolean;
  readonly maxConcurrent?: number;
  readonly timeoutMs?: number;
  readonly parentSessionId: () => string;
  readonly observer?: SwarmObserver;
  /** What a warm spare prepares (supervisor.ts); `warm: false` turns the spare off. */
  readonly prepare?: SwarmPrepare;
  readonly warm?: boolean;
  readonly onEvent: (event: AgentEvent) => void;
  readonly warn: (line: string) => void;
}

export interface Swarm {
  readonly supervisor: AgentSupervisor;
  readonly tool: Tool;
  readonly definitions: readonly AgentDefinition[];
}

export function createSwarm(setup: SwarmSetup): Swarm {
  const found = discoverAgentDefinitions({ cwd: setup.cwd, zotHome: setup.zotHome, extensions: setup.extensionAgents });
  for (const warning of found.warnings) setup.warn(`zot: warning: ${warning}\n`);
  const inherited = setup.settings;
  const supervisor = new AgentSupervisor({
    settings: {
      ...inherited,
      cwd: setup.cwd,
      ext: inherited.ext.map((dir) => resolve(dir)),
      ...(setup.sessions ? { sessions_root: join(setup.zotHome, "agents", "sessions") } : {}),
      // May be a getter (the parent's trust decision can come after setup): a spread would freeze it, so read it per task.
      get trust_project() {
        return inherited.trust_project;
      },
    },
    zotHome: setup.zotHome,
    parentSessionId: setup.parentSessionId,
    maxConcurrent: setup.maxConcurrent,
    timeoutMs: setup.timeoutMs,
    observer: setup.observer,
    onEvent: setup.onEvent,
    ...(setup.prepare !== undefined ? { prepare: setup.prepare } : {}),
    ...(setup.warm !== undefined ? { warm: setup.warm } : {}),
  });
  const tool = createAgentTool({ supervisor, definitions: found.definitions, allowedTools: setup.allowedTools });
  return { supervisor, tool, definitions: found.definitions };
}
