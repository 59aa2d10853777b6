/**
 * Builds everything one headless run needs from the parsed flags: working
 * directory, $ZOT_HOME paths, catalog, provider/model/base URL, credential,
 * extensions, tools, system prompt, session and the AgentSession wired to the
 * extension bridge. Order is chosen for startup latency: the cheap
 * provider/model resolution and credential lookup come first (extensions'
 * hello_ack names provider and model, and a missing key should fail before
 * anything is spawned), then the extensions start while the session and
 * system prompt are prepared, and are awaited just before the agent is built.
 *
 * Every acquired resource registers its release with the given Cleanup at
 * once, so a failure mid-way leaves no process or open file behind.
 */
import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { AgentSession } from "../agent/session.ts";
import type { AgentEvent } from "../agent/events.ts";
import { buildSystemPrompt } from "../agent/system-prompt.ts";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";
import { zotPaths, type ZotPaths } from "../common/home.ts";
import type { MainFlags } from "../cli/flags.ts";
import { ExtensionBridge } from "../ext/bridge.ts";
import { headlessExtensionUI } from "../ext/host.ts";
import { ExtensionManager } from "../ext/manager.ts";
import {
  ProviderError,
  createClient,
  loadCatalog,
  resolveApiKey,
  resolveModel,
  type Catalog,
  type Credential,
  type ResolvedModel,
} from "../providers/index.ts";
import { ToolRegistry, builtinTools } from "../tools/index.ts";
import type { Cleanup } from "./cleanup.ts";
import type { HeadlessOptions } from "./options.ts";
import { openHeadlessSession, type HeadlessSession } from "./session-setup.ts";

export interface HeadlessRuntime {
  readonly cwd: string;
  readonly agent: AgentSession;
  readonly manager: ExtensionManager;
  readonly bridge: ExtensionBridge;
  readonly session: HeadlessSession;
}

export interface HeadlessSetupInput {
  readonly flags: MainFlags;
  readonly options: HeadlessOptions;
  /** Receives every agent event (after the extension bridge saw it). */
  readonly onEvent: (event: AgentEvent) => void;
  /** Writes a complete line (or lines) to stderr. */
  readonly warn: (text: string) => void;
  readonly signal: AbortSignal;
}

/** Providers tried, in order, when neither --provider nor --model was given and the default has no key. */
const CREDENTIAL_FALLBACK_PROVIDERS = ["openai"] as const;

async function resolveWorkingDirectory(flag: string | undefined): Promise<string> {
  const cwd = resolve(flag ?? process.cwd());
  try {
    if ((await stat(cwd)).isDirectory()) return cwd;
  } catch (err) {
    const code = systemErrorCode(err);
    if (code !== "ENOENT" && code !== "ENOTDIR") {
      throw new ZotError("mode.bad_cwd", `--cwd ${cwd}: ${errorMessage(err)}`, { cwd });
    }
  }
  throw new ZotError("mode.bad_cwd", `--cwd ${cwd}: not a directory`, { cwd });
}

interface ResolvedProvider {
  readonly resolved: ResolvedModel;
  readonly credential: Credential;
}

/**
 * Provider, model and key. Like the original, a run that named neither
 * provider nor model falls back to another provider that has a key when the
 * default (anthropic) has none; otherwise the default's error stands.
 */
async function resolveProvider(flags: MainFlags, catalog: Catalog, paths: ZotPaths): Promise<ResolvedProvider> {
  const resolved = resolveModel({ provider: flags.provider, model: flags.model, baseUrl: flags.baseUrl, catalog });
  try {
    const credential = await resolveApiKey({ provider: resolved.provider, flag: flags.apiKey, authFile: paths.authFile });
    return { resolved, credential };
  } catch (err) {
    const mayFallBack = err instanceof ProviderError && err.kind === "config" && flags.provider === undefined && flags.model === undefined;
    if (!mayFallBack) throw err;
    for (const provider of CREDENTIAL_FALLBACK_PROVIDERS) {
      try {
        const credential = await resolveApiKey({ provider, authFile: paths.authFile });
        return { resolved: resolveModel({ provider, baseUrl: flags.baseUrl, catalog }), credential };
      } catch {
        // keep looking; the default provider's error is the one reported
      }
    }
    throw err;
  }
}

function reportExtensionProblems(manager: ExtensionManager, warn: (text: string) => void): void {
  for (const error of manager.discovery?.manifestErrors ?? []) warn(`zot: warning: ${error.message}\n`);
  for (const error of manager.loadErrors) warn(`zot: warning: ${error.message}\n`);
}

function toolRegistry(options: HeadlessOptions, manager: ExtensionManager): ToolRegistry {
  const registry = new ToolRegistry(builtinTools({ only: options.tools.only, none: options.tools.none }));
  // The registry refuses names taken by (or reserved for) built-ins; the manager already logged conflicts.
  for (const tool of manager.tools({ allowInteractive: false })) registry.register(tool);
  return registry;
}

export async function setupHeadless(input: HeadlessSetupInput, cleanup: Cleanup): Promise<HeadlessRuntime> {
  const { flags, options, warn } = input;
  const cwd = await resolveWorkingDirectory(flags.cwd);
  const paths = zotPaths();
  const catalog = await loadCatalog(paths.modelsFile);
  for (const warning of catalog.warnings) warn(`zot: warning: ${warning}\n`);
  const { resolved, credential } = await resolveProvider(flags, catalog, paths);

  const manager = new ExtensionManager({
    paths,
    cwd,
    provider: resolved.provider,
    model: resolved.model.id,
    explicit: flags.ext.map((dir) => resolve(dir)),
    noDiscovery: flags.noExt,
    ui: headlessExtensionUI((text) => warn(text)),
  });
  const extensionsStarted = manager.start();
  cleanup.add(async () => {
    await extensionsStarted.catch(() => undefined);
    await manager.shutdown();
  });

  const systemPrompt = buildSystemPrompt({
    cwd,
    date: new Date(),
    override: flags.systemPrompt,
    systemFile: paths.systemPromptFile,
    appends: flags.appendSystemPrompt,
    contextFiles: true,
    onWarning: (message) => warn(`zot: warning: ${message}\n`),
  });
  const session = await openHeadlessSession({
    choice: options.session,
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
  const system = await systemPrompt;
  await extensionsStarted;
  reportExtensionProblems(manager, warn);

  const bridge = new ExtensionBridge(manager, {
    sessionId: session.writer?.id ?? randomUUID(),
    cwd,
    provider: resolved.provider,
    model: resolved.model.id,
    interactive: false,
  });
  const agent = AgentSession.create({
    client: createClient({ provider: resolved.provider, model: resolved.model, apiKey: credential.apiKey, baseUrl: resolved.baseUrl }),
    model: resolved.model,
    system,
    tools: toolRegistry(options, manager),
    cwd,
    maxSteps: options.maxSteps,
    reasoning: options.reasoning,
    hooks: bridge.hooks,
    jailRoot: flags.jail ? cwd : undefined,
    allowInteractive: false,
    onEvent: (event) => {
      bridge.observe(event);
      input.onEvent(event);
    },
    persistence: session.persistence,
    initialMessages: session.loaded?.messages,
    initialMessageRows: session.loaded?.messageRows,
    initialCumulative: session.loaded?.cumulativeUsage,
    compactionObserver: {
      onCompactionStart: (info) => bridge.compactionStarted(info),
      onCompactionEnd: (info) =>
        bridge.compactionFinished({ ...info, error: info.error === undefined ? undefined : info.error.message }),
    },
  });
  if (agent instanceof ZotError) throw agent;
  bridge.attachAgent((call, runOptions) => agent.runTool(call, runOptions));
  cleanup.add(() => bridge.dispose());
  bridge.sessionStart();
  cleanup.add(() => bridge.sessionEnd("shutdown"));
  return { cwd, agent, manager, bridge, session };
}
