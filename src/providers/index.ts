/**
 * The providers area's public surface: pick a provider + model + base URL
 * (`resolveModel`), build a streaming client (`createClient`), plus the
 * catalog, credential helpers and the shared types, and `preconnect` (warm
 * up the connection to a base URL while the caller does other setup;
 * `warmUpProvider` also loads the dialect client ahead of the first call).
 * Importing this module does no work; the concrete clients are loaded on the
 * first stream call of their dialect and kept for the client's life.
 */
import { didYouMean } from "../common/did-you-mean.ts";
import { DEFAULT_MODEL_IDS, KIMI_CODING_BASE_URL, findModel, syntheticModel, type Catalog } from "./catalog.ts";
import type { ClientOptions } from "./shared.ts";
import { ProviderError, type ModelInfo, type ProviderClient, type ProviderName, type StreamEvent, type StreamRequest, type StreamResult } from "./types.ts";

export * from "./types.ts";
export {
  builtinCatalog,
  findModel,
  listModelsTable,
  loadCatalog,
  applyModelsFile,
  syntheticModel,
  DEFAULT_MODEL_IDS,
  KIMI_CODING_BASE_URL,
  LIST_MODELS_HEADER,
  type Catalog,
} from "./catalog.ts";
export {
  resolveApiKey,
  saveApiKey,
  removeApiKeys,
  readAuthFile,
  storedProviders,
  credentialSource,
  checkApiKey,
  missingApiKey,
  isMissingApiKey,
  missingKeyClient,
  API_KEY_ENV,
  API_KEY_ENVS,
  KEYED_PROVIDER_NAMES,
  OLLAMA_API_KEY,
  setKeyVariable,
  alternatives,
  MAX_API_KEY_LENGTH,
  type Credential,
  type CredentialLookup,
  type CredentialSource,
} from "./credentials.ts";

export const PROVIDER_NAMES: readonly ProviderName[] = ["anthropic", "openai", "kimi", "ollama"];

export const DEFAULT_BASE_URLS: Readonly<Record<ProviderName, string>> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com",
  kimi: KIMI_CODING_BASE_URL,
  ollama: "http://localhost:11434/v1",
};

export function isProviderName(value: string): value is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(value);
}

export interface ResolveModelInput {
  readonly provider?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly catalog: Catalog;
}

export interface ResolvedModel {
  readonly provider: ProviderName;
  readonly model: ModelInfo;
  readonly baseUrl: string;
}

/**
 * Provider defaults to anthropic, model to the provider's default. An id the
 * catalog lists under another provider falls back to this provider's default
 * (as the original does); an unknown id is an error except for Ollama, which
 * gets a synthetic entry (unknownModel: the error offers close ids and
 * points to --list-models). Base URL: explicit, else the model's, else the
 * provider's default.
 */
export function resolveModel(input: ResolveModelInput): ResolvedModel {
  const providerText = input.provider ?? "anthropic";
  if (!isProviderName(providerText)) {
    const hint = didYouMean(providerText, PROVIDER_NAMES, (name) => name);
    throw new ProviderError("config", `unknown provider "${providerText}"${hint} (expected ${PROVIDER_NAMES.join(", ")})`, undefined, {
      provider: providerText,
    });
  }
  const provider = providerText;
  let model: ModelInfo | undefined;
  if (provider === "ollama") {
    if (!input.model) throw new ProviderError("config", "ollama requires --model (e.g. --model llama3)", undefined, { provider });
    model = findModel(input.catalog, provider, input.model) ?? syntheticModel(provider, input.model);
  } else {
    let id = input.model ?? DEFAULT_MODEL_IDS[provider] ?? "";
    const owner = input.catalog.models.find((entry) => entry.id === id);
    if (owner && owner.provider !== provider) id = DEFAULT_MODEL_IDS[provider] ?? id;
    model = findModel(input.catalog, provider, id);
    if (!model) throw unknownModel(input.catalog, provider, id);
  }
  const baseUrl = input.baseUrl || model.baseUrl || DEFAULT_BASE_URLS[provider];
  return { provider, model, baseUrl };
}

/**
 * `unknown model "x" for provider p (did you mean y?); run \`zot --list-models\``:
 * close ids of this provider are offered as they are, other providers' with
 * the --provider flag they need.
 */
export function unknownModel(catalog: Catalog, provider: ProviderName, id: string): ProviderError {
  const owners = new Map<string, ProviderName>();
  for (const entry of catalog.models) {
    const owner = owners.get(entry.id);
    if (owner === undefined || (owner !== provider && entry.provider === provider)) owners.set(entry.id, entry.provider);
  }
  const ids = [...owners.keys()].sort((a, b) => Number(owners.get(a) !== provider) - Number(owners.get(b) !== provider));
  const hint = didYouMean(id, ids, (candidate) => (owners.get(candidate) === provider ? candidate : `--provider ${owners.get(candidate)} --model ${candidate}`));
  return new ProviderError("config", `unknown model "${id}" for provider ${provider}${hint}; run \`zot --list-models\` for the known ones`, undefined, {
    provider,
    model: id,
  });
}

export interface CreateClientOptions extends ClientOptions {
  readonly provider: ProviderName;
  /** Informational; each request names its own model (OpenAI picks chat or responses from it). */
  readonly model?: ModelInfo;
}

const PROXY_ENV_VARS = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"] as const;

/**
 * Best effort: starts DNS, TCP and (for https) TLS to `baseUrl` now, so the
 * first request reuses the connection instead of paying for it. Skipped when
 * a proxy is configured (the request would not use a direct connection).
 * Never throws: a bad URL is reported by the request itself.
 */
export function preconnect(baseUrl: string, env: Readonly<Record<string, string | undefined>> = process.env): void {
  if (PROXY_ENV_VARS.some((name) => env[name])) return;
  try {
    fetch.preconnect(baseUrl);
  } catch {
    // reported by the request
  }
}

type Dialect = "anthropic" | "responses" | "chat";

/**
 * Best effort, for a process that will call `provider` soon but does not
 * know the request yet (a warm subagent, src/agents): preconnect(baseUrl)
 * and load the provider's dialect client module(s), so the first request
 * pays for neither. Never throws; an unknown provider only preconnects.
 */
export async function warmUpProvider(provider: string | undefined, baseUrl: string | undefined): Promise<void> {
  const name = provider !== undefined && isProviderName(provider) ? provider : undefined;
  const url = baseUrl || (name === undefined ? undefined : DEFAULT_BASE_URLS[name]);
  if (url !== undefined) preconnect(url);
  if (name === undefined) return;
  try {
    if (name === "anthropic") await import("./anthropic.ts");
    else await Promise.all([import("./openai-chat.ts"), ...(name === "openai" ? [import("./openai-responses.ts")] : [])]);
  } catch {
    // the request will report it
  }
}

export function createClient(options: CreateClientOptions): ProviderClient {
  const baseUrl = options.baseUrl || DEFAULT_BASE_URLS[options.provider];
  // Every ClientOptions field (key, limits, retry policy) passes through as given.
  const common: ClientOptions = { ...options, baseUrl };
  // One dialect client per dialect, loaded on first use and kept: it converts its conversation incrementally (wire-conversation.ts).
  const dialects = new Map<Dialect, Promise<ProviderClient>>();
  const load = async (dialect: Dialect): Promise<ProviderClient> => {
    if (dialect === "anthropic") return (await import("./anthropic.ts")).createAnthropicClient(common);
    if (dialect === "responses") return (await import("./openai-responses.ts")).createOpenAiResponsesClient({ ...common, name: "openai" });
    return (await import("./openai-chat.ts")).createOpenAiChatClient({ ...common, name: options.provider });
  };
  const stream = async (request: StreamRequest, onEvent: (event: StreamEvent) => void): Promise<StreamResult> => {
    const dialect: Dialect =
      options.provider === "anthropic" ? "anthropic" : options.provider === "openai" && request.model.api === "responses" ? "responses" : "chat";
    let client = dialects.get(dialect);
    if (client === undefined) {
      client = load(dialect);
      dialects.set(dialect, client);
    }
    return (await client).stream(request, onEvent);
  };
  return { name: options.provider, stream };
}
