/**
 * Builds everything one headless run needs from the parsed flags: working
 * directory, $ZOT_HOME paths, catalog, provider/model/base URL, credential,
 * extensions, tools, system prompt, session and the AgentSession wired to the
 * extension bridge. Order is chosen for startup latency: the cheap
 * provider/model resolution and credential lookup come first (extensions'
 * hello_ack names provider and model, and a missing key should fail before
 * anything is spawned), then the provider connection is warmed up and the
 * extensions start while the session and system prompt are prepared.
 *
 * Setup never waits for extensions to finish starting (their bound is 15 s
 * by default: ZOT_EXT_READY_TIMEOUT_MS, else config.json
 * ext_ready_timeout_ms). The runtime's `extensionsStarted` resolves once
 * startup finished and its problems were reported (load errors, including an
 * extension that never spoke, at the moment the bound passes). Tools and
 * commands join the running agent as extensions become ready; an extension
 * that intercepts before_agent_start re-runs the system prompt hook when it
 * joins. The session opens for extensions (session_start) when startup
 * finished or at the first prompt, whichever comes first; an extension that
 * finishes starting after that gets its own session_start. The headless
 * modes wait for `extensionsStarted` before their first model request
 * (extension-wait.ts); interactive mode never waits.
 *
 * Defaults come from $ZOT_HOME/config.json (provider, model, reasoning,
 * auto_compact) where no flag names them. Skills (built-in, extension
 * manifests, and with --with-skills the user directories) are discovered from
 * the manifests while extensions spawn; they add the `skill` tool and a
 * system-prompt addendum unless --no-skill.
 *
 * The extension host is imported only when something could load: --ext
 * paths, or a non-hidden directory in ./.zot/extensions or
 * $ZOT_HOME/extensions (extension-setup.ts, ext/scopes.ts; the host's own
 * discovery then decides what loads). Otherwise the run has no manager and no bridge (`extensions`
 * is undefined), which is what both would amount to: no hooks, no tools, no
 * commands, no frames. With a manager, tools registered after startup join
 * the agent's registry and a stopped extension's tools leave it.
 *
 * The interactive mode passes `interactive`: the host is then always started,
 * interactive tools are allowed and the --no-yolo gate is applied (through
 * the bridge, or on its own without one); with `allowMissingCredential` a
 * run without any key starts anyway (`credentialMissing`; its client fails
 * every call with the missing-key error until the login dialog replaces it).
 * `launch` records the provider zot started with and its --api-key /
 * --base-url, which belong to that provider only (model switches).
 *
 * Unless config.json has `agents: false` (or --no-tools, or a --tools list
 * without `agent`) the run gets the `agent` tool and a swarm supervisor
 * (src/agents, docs/agents.md; `swarm`); a swarm child (`swarmChild`) never
 * does, tags its notifications with agent_id and links its session file to
 * the parent conversation.
 *
 * MCP servers start beside the extensions once the trust decision for
 * ./.zot/mcp.json is in; their tools join the registry as each becomes
 * ready (mcp-setup.ts). Project trust (project-trust.ts): the project's own
 * extensions, and the skills and agent definitions from their manifests,
 * load only when the gate allows them (`projectTrust`, also the decision
 * for ./.zot/mcp.json); a swarm child takes its parent's decision
 * (`swarmChild.projectTrust`).
 *
 * Every acquired resource registers its release with the given Cleanup at
 * once, so a failure mid-way leaves no process or open file behind.
 */
import { AgentSession } from "../agent/session.ts";
import type { AgentEvent } from "../agent/events.ts";
import type { CompactionObserver } from "../agent/compaction.ts";
import { NO_HOOKS, type AgentHooks } from "../agent/hooks.ts";
import { toolCallDecision } from "../agent/permissions.ts";
import { buildSystemPrompt } from "../agent/system-prompt.ts";
import { ZotError, errorMessage } from "../common/errors.ts";
import { loadConfig, type ZotConfig } from "../common/config.ts";
import { zotPaths, type ZotPaths } from "../common/home.ts";
import { traceStartup } from "../common/startup-trace.ts";
import type { MainFlags } from "../cli/flags.ts";
import type { ExtensionBridge, PermissionPolicy } from "../ext/bridge.ts";
import type { ExtensionConnection } from "../ext/connection.ts";
import type { ExtensionUI } from "../ext/host.ts";
import type { ExtensionManager } from "../ext/manager.ts";
import type { Skill } from "../skills/index.ts";
import {
  createClient,
  loadCatalog,
  missingKeyClient,
  preconnect,
  type ProviderName,
} from "../providers/index.ts";
import { ToolRegistry, builtinTools } from "../tools/index.ts";
import type { Cleanup } from "./cleanup.ts";
import { parseReasoning, type HeadlessOptions } from "./options.ts";
import { openHeadlessSession, type HeadlessSession } from "./session-setup.ts";
import { resolveProvider, resolveWorkingDirectory } from "./provider-setup.ts";
import { createRunSwarm, wantsSwarm } from "./swarm-setup.ts";
import { startRunExtensions } from "./extension-setup.ts";
import { joinMcpTools, mayHaveMcpServers, startRunMcp, type RunMcp } from "./mcp-setup.ts";
import { type ProjectTrust, type TrustChoice, runProjectTrust, trustedDiscovery } from "./project-trust.ts";
import type { ProjectTrustStatus } from "../trust/index.ts";
import type { Swarm } from "../agents/index.ts";

/** The extension host of a run that has extensions to load. */
export interface HeadlessExtensions {
  readonly manager: ExtensionManager;
  readonly bridge: ExtensionBridge;
}

export interface HeadlessRuntime {
  readonly cwd: string;
  readonly agent: AgentSession;
  /** Undefined when nothing could load (the host was never imported). */
  readonly extensions: HeadlessExtensions | undefined;
  readonly session: HeadlessSession;
  /** The agent's tool registry (extension tools join and leave it as extensions come and go). */
  readonly tools: ToolRegistry;
  /** Resolves once extension startup finished and its problems were reported (at once without a host). */
  readonly extensionsStarted: Promise<void>;
  /** The run's MCP servers once the trust decision and the config are in (mcp-setup.ts; their `started` is what headless modes wait for); undefined without MCP config. */
  readonly mcp: Promise<RunMcp | undefined>;
  /** The skills the skill tool knows (built-ins included; [] with --no-skill). */
  readonly skills: readonly Skill[];
  /** The provider zot started with and the --api-key / --base-url given for it (a model switch to that provider uses them). */
  readonly launch: LaunchProvider;
  /** Interactive mode only: true when no provider had a key (the agent's client fails every call until /login). */
  readonly credentialMissing: boolean;
  /** Subagents (unless config.json `agents: false`; never in a swarm child): the supervisor whose events a UI follows. */
  readonly swarm: Swarm | undefined;
  /** The project-trust gate of this run (its decision also covers ./.zot/mcp.json: `includeProject()`). */
  readonly projectTrust: ProjectTrust;
}

/** A swarm child's identity (modes/swarm-child.ts). */
export interface SwarmChildSetup {
  readonly agentId: string;
  readonly parentSessionId: string;
  /** Where its session file goes; undefined = none. */
  readonly sessionsRoot: string | undefined;
  /** The parent's project-trust decision (undefined: the child decides, headless). */
  readonly projectTrust?: boolean;
}

export interface LaunchProvider {
  readonly provider: ProviderName;
  readonly apiKey?: string;
  readonly baseUrl?: string;
}

/** What the interactive mode adds to a run (absent in print, JSON and RPC modes). */
export interface InteractiveSetup {
  /** The --no-yolo gate; absent means yolo. */
  readonly permissions?: PermissionPolicy;
  /** Told when a compaction (automatic or /compact) starts and ends, after the extensions are. */
  readonly compaction?: CompactionObserver;
  /** Told the extension load errors once startup finished, instead of one warning each. */
  readonly onExtensionProblems?: (errors: readonly ZotError[]) => void;
  /** No key for any provider is not an error: the run starts with a client that fails until a key is given. */
  readonly allowMissingCredential?: boolean;
  /** The trust dialog (trust-dialog.ts) and its transcript notes, for an untrusted or changed project. */
  readonly askTrust?: (status: ProjectTrustStatus) => Promise<TrustChoice>;
  readonly trustNote?: (text: string) => void;
}

export interface HeadlessSetupInput {
  readonly flags: MainFlags;
  readonly options: HeadlessOptions;
  /** Receives every agent event (after the extension bridge saw it). */
  readonly onEvent: (event: AgentEvent) => void;
  /** Writes a complete line (or lines) to stderr. */
  readonly warn: (text: string) => void;
  readonly signal: AbortSignal;
  /** Where extension notes go; default: stderr lines (headlessExtensionUI). */
  readonly extensionUI?: ExtensionUI;
  /**
   * Interactive mode: interactive tools are allowed, the bridge is
   * interactive and applies `permissions`, and the extension host is always
   * started (so /reload-ext can pick up extensions created later).
   */
  readonly interactive?: InteractiveSetup;
  /** This run is a swarm child: its notifications carry agent_id, its session links to the parent, and it gets no `agent` tool. */
  readonly swarmChild?: SwarmChildSetup;
}

/** The built-ins and the skill tool; extension tools join in setupHeadless. */
async function toolRegistry(options: HeadlessOptions, skills: readonly Skill[]): Promise<ToolRegistry> {
  const registry = new ToolRegistry(builtinTools({ only: options.tools.only, none: options.tools.none }));
  // Like the original, the skill tool joins even with --no-tools / --tools when there are skills.
  if (skills.length > 0) registry.register((await import("../skills/index.ts")).createSkillTool(skills));
  return registry;
}

/** Skills from the built-ins, extension manifests and (--with-skills) user directories; [] with --no-skill. */
async function discoverRunSkills(flags: MainFlags, cwd: string, paths: ZotPaths, manager: Promise<ExtensionManager> | undefined, trust: ProjectTrust, warn: (text: string) => void): Promise<Skill[]> {
  if (flags.noSkill) return [];
  const { discoverSkills, extensionSkillSources } = await import("../skills/index.ts");
  const report = manager === undefined ? undefined : await trustedDiscovery(await manager, trust);
  const found = await discoverSkills({
    cwd,
    paths,
    withUserSkills: flags.withSkills,
    extensionSkillSources: report === undefined ? [] : extensionSkillSources([...report.load, ...report.bundles]),
  });
  for (const warning of found.warnings) warn(`zot: warning: ${warning}\n`);
  return found.skills;
}

/** The confirm gate alone, for a run without an extension bridge (which otherwise applies it). */
function permissionHooks(policy: PermissionPolicy): AgentHooks {
  return {
    beforeToolCall: async (info) =>
      toolCallDecision(await policy.check({ toolId: info.id, toolName: info.name, args: info.args, signal: info.signal })),
  };
}

/** config.json's reasoning, when no flag gave one; an invalid value is a warning, not an error. */
function configReasoning(config: ZotConfig, warn: (text: string) => void): HeadlessOptions["reasoning"] {
  try {
    return parseReasoning(config.reasoning);
  } catch {
    warn(`zot: warning: config.json: reasoning must be low|medium|high, got "${config.reasoning}"; ignored\n`);
    return undefined;
  }
}

export async function setupHeadless(input: HeadlessSetupInput, cleanup: Cleanup): Promise<HeadlessRuntime> {
  const { flags, options, warn } = input;
  const cwd = resolveWorkingDirectory(flags.cwd);
  traceStartup("setup start");
  const paths = zotPaths();
  const { config, warnings: configWarnings } = loadConfig(paths.configFile);
  for (const warning of configWarnings) warn(`zot: warning: ${warning}\n`);
  const catalog = await loadCatalog(paths.modelsFile, paths.modelsCacheFile);
  for (const warning of catalog.warnings) warn(`zot: warning: ${warning}\n`);
  const { resolved, credential, missing = false, warnings: providerWarnings } = await resolveProvider(flags, config, catalog, paths, input.interactive?.allowMissingCredential === true);
  for (const warning of providerWarnings) warn(`zot: warning: ${warning}\n`);
  traceStartup("config, catalog, provider and key");
  const reasoning = options.reasoning ?? configReasoning(config, warn);
  const autoCompact = options.autoCompact ?? config.auto_compact;
  // Connection setup (DNS, TCP, TLS) overlaps the rest of the setup.
  preconnect(resolved.baseUrl);

  const interactive = input.interactive !== undefined;
  const permissions = input.interactive?.permissions;
  const trust = runProjectTrust(input, cwd, paths);
  const runExtensions = startRunExtensions({ flags, cwd, paths, resolved, warn, ui: input.extensionUI, config, trust, interactive: input.interactive }, cleanup);
  const { created: managerCreated, started: extensionsStarted } = runExtensions;

  // MCP servers start in the background; the MCP client is imported only when a config exists or --mcp was given.
  const mcp: Promise<RunMcp | undefined> = mayHaveMcpServers(flags, cwd, paths)
    ? startRunMcp({ flags, cwd, paths, warn, includeProject: () => trust.includeProject() }, cleanup).catch((err: unknown) => void warn(`zot: warning: mcp servers could not start: ${errorMessage(err)}\n`))
    : Promise.resolve(undefined);

  const skillsFound = discoverRunSkills(flags, cwd, paths, managerCreated, trust, warn);
  const systemPrompt = skillsFound.then(async (skills) => {
    const addendum = skills.length > 0 ? (await import("../skills/index.ts")).skillsPromptAddendum(skills) : "";
    return buildSystemPrompt({
      cwd,
      date: new Date(),
      override: flags.systemPrompt,
      systemFile: paths.systemPromptFile,
      appends: [...flags.appendSystemPrompt, addendum],
      contextFiles: true,
      onWarning: (message) => warn(`zot: warning: ${message}\n`),
    });
  });
  traceStartup("trust, extensions, mcp, skills started");
  const child = input.swarmChild;
  const session = await openHeadlessSession({
    choice: child !== undefined && child.sessionsRoot === undefined ? { kind: "none" } : options.session,
    ...(child?.sessionsRoot !== undefined ? { subagent: { sessionsRoot: child.sessionsRoot, parentSessionId: child.parentSessionId, agentId: child.agentId } } : {}),
    cwd,
    paths,
    provider: resolved.provider,
    model: resolved.model.id,
    warn,
    signal: input.signal,
  });
  cleanup.add(async () => {
    session.close();
    await session.pruned;
  });
  traceStartup("session open");
  const system = await systemPrompt;
  const manager = await managerCreated;
  let extensions: HeadlessExtensions | undefined;
  if (manager !== undefined) {
    const { ExtensionBridge } = await import("../ext/bridge.ts");
    const bridge = new ExtensionBridge(manager, {
      sessionId: session.writer?.id ?? crypto.randomUUID(),
      cwd,
      provider: resolved.provider,
      model: resolved.model.id,
      interactive,
      permissions,
      agentId: child?.agentId,
    });
    extensions = { manager, bridge };
  }
  traceStartup("system prompt built");
  const bridge = extensions?.bridge;
  const swarm = child === undefined && wantsSwarm(config, options) ? await createRunSwarm(input, { cwd, paths, config, resolved, bridge, session, manager, trust }) : undefined;

  traceStartup("swarm ready");
  const tools = await toolRegistry(options, await skillsFound);
  if (swarm !== undefined) {
    tools.register(swarm.tool);
    // Runs before the extensions stop (cleanup runs in reverse): subagent_stop still reaches them.
    cleanup.add(() => swarm.supervisor.close());
  }
  // No await from here to the listeners: a tool registered in between would be missed.
  if (manager !== undefined) {
    // The registry refuses names taken by (or reserved for) built-ins; the manager already logged conflicts.
    for (const tool of manager.tools({ allowInteractive: interactive })) tools.register(tool);
    manager.toolListeners.add((tool) => tools.register(manager.toolFor(tool, { allowInteractive: interactive })));
    manager.closeListeners.add((extension) => tools.unregisterExtension(extension));
  }
  // Not awaited: in the chat screen the trust decision may wait for its dialog. The join is one synchronous step whenever it comes.
  void mcp.then((servers) => servers !== undefined && joinMcpTools(servers, tools, warn));
  const agent = AgentSession.create({
    client: missing
      ? missingKeyClient(resolved.provider)
      : createClient({ provider: resolved.provider, model: resolved.model, apiKey: credential.apiKey, baseUrl: resolved.baseUrl }),
    model: resolved.model,
    system,
    tools,
    cwd,
    maxSteps: options.maxSteps,
    reasoning,
    autoCompact: autoCompact === false ? false : { threshold: autoCompact },
    hooks: bridge?.hooks ?? (permissions === undefined ? NO_HOOKS : permissionHooks(permissions)),
    jailRoot: flags.jail ? cwd : undefined,
    allowInteractive: interactive,
    onEvent:
      bridge === undefined && swarm === undefined
        ? input.onEvent
        : (event) => {
            bridge?.observe(event);
            // When to start a warm subagent; not while an extension's `agent` tool replaces ours.
            if (swarm !== undefined && tools.get(swarm.tool.name) === swarm.tool) swarm.supervisor.observeParent(event);
            input.onEvent(event);
          },
    persistence: session.persistence,
    initialMessages: session.loaded?.messages,
    initialMessageRows: session.loaded?.messageRows,
    initialCumulative: session.loaded?.cumulativeUsage,
    compactionObserver:
      bridge === undefined
        ? input.interactive?.compaction
        : {
            onCompactionStart: (info) => {
              bridge.compactionStarted(info);
              input.interactive?.compaction?.onCompactionStart?.(info);
            },
            onCompactionEnd: (info) => {
              bridge.compactionFinished({ ...info, error: info.error === undefined ? undefined : info.error.message });
              input.interactive?.compaction?.onCompactionEnd?.(info);
            },
          },
  });
  if (agent instanceof ZotError) throw agent;
  if (manager !== undefined && bridge !== undefined) {
    bridge.attachAgent((call, runOptions) => agent.runTool(call, runOptions));
    cleanup.add(() => bridge.dispose());
    const joined = (connection: ExtensionConnection): void => {
      // A late system-prompt interceptor is consulted from the next model request on.
      if (manager.subscriptions.get(connection.name)?.intercept.has("before_agent_start")) agent.resetSystemPrompt();
      bridge.extensionJoined(connection);
    };
    manager.joinListeners.add(joined);
    void extensionsStarted.then(() => {
      manager.joinListeners.delete(joined);
      if (!runExtensions.leaving()) bridge.sessionStart();
    });
    cleanup.add(() => bridge.sessionEnd("shutdown"));
  }
  traceStartup("agent created");
  const launch: LaunchProvider = { provider: resolved.provider, apiKey: flags.apiKey, baseUrl: flags.baseUrl };
  return { cwd, agent, extensions, session, tools, extensionsStarted, mcp, launch, credentialMissing: missing, skills: await skillsFound, swarm, projectTrust: trust };
}
