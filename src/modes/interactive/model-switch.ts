/**
 * Switching the running agent to another model (`/model`, the login dialog,
 * the rescue picker). The conversation and the cumulative usage and cost
 * live in the AgentSession and stay; what changes is the model and the
 * client: its key is looked up again for the model's provider (--api-key,
 * then the environment variable, then auth.json) and its base URL is
 * --base-url, else the model's own (models.json `baseUrl`), else the
 * provider's default. --api-key and --base-url belong to the provider zot
 * started with: they apply to a model of that provider only, and never
 * with `launchFlags: false` (the rescue picker: the launch key may be what
 * failed). A switch tells the extensions, appends a meta row with provider
 * and model to the session, and (unless `remember: false`) stores both in
 * config.json; a failure to record is a warning, the switch stands.
 * `loggedInProviders` are those with a key (flag, env or auth.json) plus
 * Ollama, which needs none.
 */
import { updateConfigFile } from "../../common/config-write.ts";
import { errorMessage } from "../../common/errors.ts";
import { zotPaths } from "../../common/home.ts";
import {
  API_KEY_ENVS,
  alternatives,
  DEFAULT_BASE_URLS,
  PROVIDER_NAMES,
  credentialSource,
  createClient,
  findModel,
  missingKeyClient,
  resolveApiKey,
  syntheticModel,
  type Catalog,
  type CredentialSource,
  type ModelInfo,
  type ProviderName,
} from "../../providers/index.ts";
import type { HeadlessRuntime } from "../setup.ts";
import type { CommandHost } from "./command-types.ts";

export interface SwitchOptions {
  /** Use --api-key / --base-url for a model of the launch provider (default true). */
  readonly launchFlags?: boolean;
  /** Store provider and model in config.json (default true). */
  readonly remember?: boolean;
  /** Say nothing in the chat on success. */
  readonly quiet?: boolean;
}

function launchFlagFor(runtime: HeadlessRuntime, provider: ProviderName, launchFlags: boolean): { apiKey?: string; baseUrl?: string } {
  if (!launchFlags || provider !== runtime.launch.provider) return {};
  return { apiKey: runtime.launch.apiKey, baseUrl: runtime.launch.baseUrl };
}

/** Where `provider`'s key would come from for this run, undefined when it has none. */
export function providerCredential(runtime: HeadlessRuntime, provider: ProviderName, launchFlags = true): Promise<CredentialSource | undefined> {
  return credentialSource({ provider, flag: launchFlagFor(runtime, provider, launchFlags).apiKey, authFile: zotPaths().authFile });
}

/** Providers with a key, in PROVIDER_NAMES order; Ollama always. */
export async function loggedInProviders(runtime: HeadlessRuntime, launchFlags = true): Promise<ProviderName[]> {
  const found: ProviderName[] = [];
  for (const provider of PROVIDER_NAMES) {
    if ((await providerCredential(runtime, provider, launchFlags)) !== undefined) found.push(provider);
  }
  return found;
}

/** A model by `provider/id` or bare id (the current provider first, then the others); Ollama takes any id. */
export function findModelById(catalog: Catalog, current: ModelInfo, text: string): ModelInfo | undefined {
  const slash = text.indexOf("/");
  const prefix = slash > 0 ? text.slice(0, slash) : "";
  if ((PROVIDER_NAMES as readonly string[]).includes(prefix)) {
    const provider = prefix as ProviderName;
    const id = text.slice(slash + 1);
    if (id === "") return undefined;
    if (provider === current.provider && id === current.id) return current;
    return findModel(catalog, provider, id) ?? (provider === "ollama" ? syntheticModel(provider, id) : undefined);
  }
  if (text === current.id) return current;
  const own = findModel(catalog, current.provider, text);
  if (own !== undefined) return own;
  const other = catalog.models.find((model) => model.id === text);
  if (other !== undefined) return other;
  return current.provider === "ollama" ? syntheticModel("ollama", text) : undefined;
}

/** Why `provider` cannot be used: no key, and how to give one. */
export function notLoggedIn(provider: ProviderName): string {
  const env = API_KEY_ENVS[provider];
  return `not logged in to ${provider}: /login ${provider}${env.length === 0 ? "" : `, or set ${alternatives(env)}`}`;
}

/** Switches the agent to `model` (see the file comment); false (and said in the chat) when its provider has no key. */
export async function switchModel(host: CommandHost, model: ModelInfo, options: SwitchOptions = {}): Promise<boolean> {
  const { runtime, chat } = host;
  const { agent, extensions, session } = runtime;
  const launch = launchFlagFor(runtime, model.provider, options.launchFlags !== false);
  const paths = zotPaths();
  let apiKey: string;
  try {
    apiKey = (await resolveApiKey({ provider: model.provider, flag: launch.apiKey, authFile: paths.authFile })).apiKey;
  } catch (err) {
    chat.error(`/model: ${model.provider}/${model.id}: ${errorMessage(err)}`);
    return false;
  }
  const before = agent.model;
  const baseUrl = launch.baseUrl || model.baseUrl || DEFAULT_BASE_URLS[model.provider];
  agent.setModel(model, createClient({ provider: model.provider, model, apiKey, baseUrl }));
  extensions?.bridge.setModel(model.provider, model.id);
  try {
    session.writer?.appendMeta({ provider: model.provider, model: model.id });
  } catch (err) {
    chat.warn(`zot: warning: the session did not record the model change: ${errorMessage(err)}`);
  }
  if (options.remember !== false) {
    try {
      await updateConfigFile(paths.configFile, { provider: model.provider, model: model.id });
    } catch (err) {
      chat.warn(`zot: warning: the model is not remembered: ${errorMessage(err)}`);
    }
  }
  if (options.quiet !== true) {
    const carried = before.provider !== model.provider && agent.messages.length > 0 ? " (the conversation and its cost carry over)" : "";
    chat.success(`model: ${model.provider}/${model.id}${carried}`);
  }
  return true;
}

/**
 * After the stored keys changed (login, logout): the current model's client
 * is rebuilt with the key that now applies (the flag and the environment
 * still come first), or made keyless when none is left. Returns the source
 * of the key in use, undefined when there is none.
 */
export async function refreshCredential(host: CommandHost): Promise<CredentialSource | undefined> {
  const { agent } = host.runtime;
  const model = agent.model;
  const source = await providerCredential(host.runtime, model.provider);
  if (source === undefined) {
    agent.setModel(model, missingKeyClient(model.provider));
    return undefined;
  }
  await switchModel(host, model, { remember: false, quiet: true });
  return source;
}
