/**
 * The swarm of a parent run (wantsSwarm: on unless config.json `agents:
 * false`, --no-tools or a --tools list without `agent`): the supervisor and
 * the `agent` tool (src/agents, docs/agents.md), given the run's settings so
 * a child starts like its parent, the agent definitions shipped by loaded
 * extensions and bundles, and the bridge's subagent_start / subagent_stop.
 * ZOT_AGENT_TIMEOUT_MS wins over config.json agent_timeout_ms;
 * ZOT_AGENT_WARM=0 turns the warm spare off (the benchmark's before/after).
 * Agent definitions from project manifests count only when the project is
 * trusted; a child inherits the parent's project-trust decision
 * (`trust_project`, read when the child gets its task: also for a warm spare,
 * which loads no extension before that).
 */
import { resolve } from "node:path";
import type { Swarm } from "../agents/index.ts";
import type { ZotConfig } from "../common/config.ts";
import type { ZotPaths } from "../common/home.ts";
import type { ExtensionBridge } from "../ext/bridge.ts";
import type { ExtensionManager } from "../ext/manager.ts";
import type { ResolvedModel } from "../providers/index.ts";
import { FILE_AND_SHELL_TOOL_NAMES } from "../tools/index.ts";
import type { HeadlessSession } from "./session-setup.ts";
import { type ProjectTrust, trustedDiscovery } from "./project-trust.ts";
import type { HeadlessSetupInput } from "./setup.ts";
import type { HeadlessOptions } from "./options.ts";

/** Subagents are on unless config.json says `agents: false`, --no-tools is given, or a --tools list leaves `agent` out. */
export function wantsSwarm(config: ZotConfig, options: HeadlessOptions): boolean {
  return config.agents !== false && !options.tools.none && (options.tools.only?.includes("agent") ?? true);
}

/** The supervisor and `agent` tool of a parent run (src/agents); ZOT_AGENT_TIMEOUT_MS wins over config.json agent_timeout_ms. */
export async function createRunSwarm(
  input: HeadlessSetupInput,
  run: { cwd: string; paths: ZotPaths; config: ZotConfig; resolved: ResolvedModel; bridge: ExtensionBridge | undefined; session: HeadlessSession; manager: ExtensionManager | undefined; trust: ProjectTrust },
): Promise<Swarm> {
  const { createSwarm } = await import("../agents/index.ts");
  // Manifest `agents` entries of loaded extensions and bundles (discovery is cached: skills used it already).
  const report = run.manager === undefined ? undefined : await trustedDiscovery(run.manager, run.trust);
  const extensionAgents = (report === undefined ? [] : [...report.load, ...report.bundles]).flatMap((entry) =>
    (entry.loaded.manifest.agents?.length ?? 0) > 0 ? [{ extension: entry.loaded.manifest.name, dir: entry.loaded.dir, entries: entry.loaded.manifest.agents ?? [] }] : [],
  );
  const { flags, options } = input;
  const envTimeout = Number(process.env.ZOT_AGENT_TIMEOUT_MS);
  const fallbackSessionId = crypto.randomUUID();
  const bridge = run.bridge;
  return createSwarm({
    cwd: run.cwd,
    zotHome: run.paths.home,
    extensionAgents,
    settings: {
      provider: run.resolved.provider,
      model: run.resolved.model.id,
      base_url: flags.baseUrl,
      api_key: flags.apiKey,
      reasoning: flags.reasoning,
      max_steps: flags.maxSteps,
      append_system_prompt: [],
      ext: flags.ext,
      no_ext: flags.noExt,
      no_skill: flags.noSkill,
      with_skills: flags.withSkills,
      jail: flags.jail,
      ...(flags.mcp.length > 0 ? { mcp: flags.mcp.map((file) => resolve(run.cwd, file)) } : {}),
      // Read when each child starts: the parent's decision by then (the dialog may answer after setup).
      get trust_project() {
        return run.trust.decided;
      },
    },
    allowedTools: options.tools.none ? [] : (options.tools.only?.filter((name) => name !== "agent") ?? FILE_AND_SHELL_TOOL_NAMES),
    sessions: options.session.kind !== "none",
    maxConcurrent: run.config.agents_max_concurrent,
    timeoutMs: Number.isSafeInteger(envTimeout) && envTimeout > 0 ? envTimeout : run.config.agent_timeout_ms,
    parentSessionId: () => run.session.writer?.id ?? bridge?.sessionId ?? fallbackSessionId,
    observer:
      bridge === undefined
        ? undefined
        : { start: (identity) => bridge.subagentStart(identity), stop: (identity, status, error) => bridge.subagentStop(identity, status, error) },
    onEvent: input.onEvent,
    warn: input.warn,
    // The warm spare (src/agents/warm.ts) connects to the parent's provider and, with a host here, loads the host's modules.
    prepare: { provider: run.resolved.provider, base_url: run.resolved.baseUrl, extensions: run.manager !== undefined },
    warm: process.env.ZOT_AGENT_WARM !== "0",
  });
}

