/**
 * The model catalog: a static list of known models (context window, max
 * output, reasoning flag, USD prices per million tokens), the original
 * zot's live list when its `$ZOT_HOME/models-cache.json` is there
 * (models-cache.ts), and the user's `$ZOT_HOME/models.json` overrides.
 * Loading never throws: a missing file is no override; an unreadable
 * file, invalid JSON or a document that is not `{"providers": {…}}` yields a warning string in `Catalog.warnings`
 * and the static list. Inside the document each problem is one warning
 * naming the file and the field (`providers.anthropic.models.0.maxTokens`):
 * a bad field of an entry is ignored (the default or catalog value stays),
 * an entry without a valid `id` or a provider section that is not an object
 * is skipped, and everything else still applies. `contextWindow` and
 * `maxTokens` must be whole numbers ≥ 0, prices numbers ≥ 0. Overrides
 * replace only the fields they set (non-zero numbers, non-empty strings, an
 * explicit `reasoning`).
 */
import * as v from "valibot";
import { systemErrorCode, errorMessage } from "../common/errors.ts";
import { MAX_JSON_DEPTH, describeJsonProblem, parseJson, isPlainObject } from "../common/json.ts";
import { mergeLiveModels, readModelsCache } from "./models-cache.ts";
import { providerForAlias } from "./provider-aliases.ts";
import type { ModelInfo, ProviderName } from "./types.ts";
import { readRegularText } from "../common/regular-file.ts";

export interface Catalog {
  readonly models: readonly ModelInfo[];
  /** One line per problem found while loading models.json. */
  readonly warnings: readonly string[];
}

export const DEFAULT_MODEL_IDS: Readonly<Record<ProviderName, string | undefined>> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-5",
  kimi: "kimi-for-coding",
  ollama: undefined,
};

/** The base URL of the catalog's kimi-for-coding (the original's; `/chat/completions` is appended). */
export const KIMI_CODING_BASE_URL = "https://api.kimi.com/coding/v1";

/** Context window / max output given to models nothing else describes. */
export const SYNTHETIC_CONTEXT_WINDOW = 32768;
export const SYNTHETIC_MAX_OUTPUT = 8192;

type Row = [id: string, name: string, context: number, maxOut: number, reasoning: boolean, prices: [number, number, number, number], extra?: Partial<ModelInfo>];

function rows(provider: ProviderName, list: readonly Row[]): ModelInfo[] {
  return list.map(([id, name, contextWindow, maxOutput, reasoning, [priceInput, priceOutput, priceCacheRead, priceCacheWrite], extra]) => ({
    provider,
    id,
    name,
    contextWindow,
    maxOutput,
    reasoning,
    priceInput,
    priceOutput,
    priceCacheRead,
    priceCacheWrite,
    source: "catalog",
    ...extra,
  }));
}

const SPECULATIVE: Partial<ModelInfo> = { speculative: true };
const SONNET: Row[5] = [3, 15, 0.3, 3.75];
const OPUS_4: Row[5] = [15, 75, 1.5, 18.75];
const OPUS_45: Row[5] = [5, 25, 0.5, 6.25];
const GPT5: Row[5] = [1.25, 10, 0.125, 0];

const STATIC_MODELS: readonly ModelInfo[] = [
  ...rows("anthropic", [
    ["claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000, 64_000, true, SONNET],
    ["claude-opus-4-1", "Claude Opus 4.1", 200_000, 32_000, true, OPUS_4],
    ["claude-opus-4-0", "Claude Opus 4", 200_000, 32_000, true, OPUS_4],
    ["claude-sonnet-4-0", "Claude Sonnet 4", 200_000, 64_000, true, SONNET],
    ["claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, true, [1, 5, 0.1, 1.25]],
    ["claude-3-7-sonnet-latest", "Claude Sonnet 3.7", 200_000, 64_000, true, SONNET],
    ["claude-3-5-sonnet-latest", "Claude Sonnet 3.5 v2", 200_000, 8192, false, SONNET],
    ["claude-3-5-haiku-latest", "Claude Haiku 3.5", 200_000, 8192, false, [0.8, 4, 0.08, 1]],
    ["claude-3-opus-latest", "Claude Opus 3", 200_000, 4096, false, OPUS_4],
    ["claude-opus-4-5", "Claude Opus 4.5", 200_000, 64_000, true, OPUS_45, SPECULATIVE],
    ["claude-opus-4-6", "Claude Opus 4.6", 200_000, 64_000, true, OPUS_45, SPECULATIVE],
    ["claude-opus-4-7", "Claude Opus 4.7", 200_000, 64_000, true, OPUS_45, SPECULATIVE],
    ["claude-sonnet-4-6", "Claude Sonnet 4.6", 200_000, 64_000, true, SONNET, SPECULATIVE],
  ]),
  ...rows("openai", [
    ["gpt-5", "GPT-5", 400_000, 128_000, true, GPT5],
    ["gpt-5-mini", "GPT-5 mini", 400_000, 128_000, true, [0.25, 2, 0.025, 0]],
    ["gpt-5-nano", "GPT-5 nano", 400_000, 128_000, true, [0.05, 0.4, 0.005, 0]],
    ["gpt-5-codex", "GPT-5 Codex", 400_000, 128_000, true, GPT5, { api: "responses" }],
    ["gpt-4.1", "GPT-4.1", 1_047_576, 32_768, false, [2, 8, 0.5, 0]],
    ["gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 32_768, false, [0.4, 1.6, 0.1, 0]],
    ["gpt-4.1-nano", "GPT-4.1 nano", 1_047_576, 32_768, false, [0.1, 0.4, 0.025, 0]],
    ["gpt-4o", "GPT-4o", 128_000, 16_384, false, [2.5, 10, 1.25, 0]],
    ["gpt-4o-mini", "GPT-4o mini", 128_000, 16_384, false, [0.15, 0.6, 0.075, 0]],
    ["o4-mini", "o4-mini", 200_000, 100_000, true, [1.1, 4.4, 0.275, 0]],
    ["o3", "o3", 200_000, 100_000, true, [2, 8, 0.5, 0]],
    ["o3-mini", "o3-mini", 200_000, 100_000, true, [1.1, 4.4, 0.55, 0]],
    ["o1", "o1", 200_000, 100_000, true, [15, 60, 7.5, 0]],
    ["gpt-5.1", "GPT-5.1", 400_000, 128_000, true, GPT5, SPECULATIVE],
    ["gpt-5.1-mini", "GPT-5.1 mini", 400_000, 128_000, true, [0.25, 2, 0.025, 0], SPECULATIVE],
    ["gpt-5.2", "GPT-5.2", 400_000, 128_000, true, [1.75, 14, 0.175, 0], SPECULATIVE],
    ["gpt-5.2-mini", "GPT-5.2 mini", 400_000, 128_000, true, [0.25, 2, 0.025, 0], SPECULATIVE],
    ["gpt-5.3", "GPT-5.3", 400_000, 128_000, true, [1.75, 14, 0.175, 0], SPECULATIVE],
    ["gpt-5.4", "GPT-5.4", 400_000, 128_000, true, [1.75, 14, 0.175, 0], SPECULATIVE],
    ["gpt-5.5", "GPT-5.5", 400_000, 128_000, true, [1.75, 14, 0.175, 0], SPECULATIVE],
  ]),
  // Kimi Code (the coding plan): its own endpoint. Context 262,144 is the 256K window Moonshot documents for
  // the Kimi K2 models behind it; max output 32,768 and zero prices (a subscription) are ours, the notes give none.
  ...rows("kimi", [["kimi-for-coding", "Kimi for Coding", 262_144, 32_768, false, [0, 0, 0, 0], { baseUrl: KIMI_CODING_BASE_URL }]]),
];

export function builtinCatalog(): Catalog {
  return { models: STATIC_MODELS, warnings: [] };
}

export function findModel(catalog: Catalog, provider: ProviderName, id: string): ModelInfo | undefined {
  return catalog.models.find((model) => model.provider === provider && model.id === id);
}

/** A stand-in entry for ids no catalog knows (Ollama models, mostly). */
export function syntheticModel(provider: ProviderName, id: string): ModelInfo {
  return {
    provider,
    id,
    name: id,
    contextWindow: SYNTHETIC_CONTEXT_WINDOW,
    maxOutput: SYNTHETIC_MAX_OUTPUT,
    reasoning: false,
    priceInput: 0,
    priceOutput: 0,
    priceCacheRead: 0,
    priceCacheWrite: 0,
    source: "ollama",
  };
}

const tokenCount = v.pipe(
  v.number("expected a whole number of tokens"),
  v.integer("expected a whole number of tokens"),
  v.minValue(0, "expected a whole number of tokens"),
);
const price = v.pipe(v.number("expected a price in USD per million tokens"), v.minValue(0, "expected a price ≥ 0"));

/** The optional fields of a models.json entry, each validated on its own. */
const USER_MODEL_FIELDS = {
  name: v.string("expected a string"),
  reasoning: v.boolean("expected true or false"),
  contextWindow: tokenCount,
  maxTokens: tokenCount,
  priceInput: price,
  priceOutput: price,
  priceCacheRead: price,
  priceCacheWrite: price,
  baseUrl: v.string("expected a string"),
  input: v.array(v.string(), "expected an array of strings"),
  api: v.string("expected a string"),
} as const;

type UserModelField = keyof typeof USER_MODEL_FIELDS;
type UserModel = { readonly id: string } & { -readonly [K in UserModelField]?: v.InferOutput<(typeof USER_MODEL_FIELDS)[K]> };

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** One models.json entry, its invalid fields dropped with a warning each; undefined (warned) without a valid id. */
function userModelOf(entry: unknown, at: string, fileLabel: string, warnings: string[]): UserModel | undefined {
  if (!isPlainObject(entry)) {
    warnings.push(`${fileLabel}: field "${at}": expected an object with an "id"; entry skipped`);
    return undefined;
  }
  const { id } = entry;
  if (typeof id !== "string" || id === "") {
    warnings.push(`${fileLabel}: field "${at}.id": expected a non-empty string, got ${shown(id)}; entry skipped`);
    return undefined;
  }
  const model: { id: string } & Record<string, unknown> = { id };
  for (const field of Object.keys(USER_MODEL_FIELDS) as UserModelField[]) {
    if (!(field in entry)) continue;
    const result = v.safeParse(USER_MODEL_FIELDS[field], entry[field]);
    if (result.success) model[field] = result.output;
    else warnings.push(`${fileLabel}: field "${at}.${field}": ${result.issues[0]?.message ?? "invalid value"}, got ${shown(entry[field])}; ignored`);
  }
  return model as UserModel;
}

function apiOf(value: string | undefined, providerKey: string): ModelInfo["api"] {
  if (value === "responses" || value === "openai-responses" || value === "openai-codex-responses") return "responses";
  if (value === "chat" || value === "openai-completions" || value === "chat-completions") return "chat";
  if (providerKey === "openai-responses" || providerKey === "openai-codex") return "responses";
  return undefined;
}

/** Applies one models.json entry over an existing entry, or creates a user entry. */
function mergeUserModel(provider: ProviderName, providerKey: string, entry: UserModel, existing: ModelInfo | undefined): ModelInfo {
  const base: ModelInfo = existing ?? { ...syntheticModel(provider, entry.id), source: "user" };
  const positive = (value: number | undefined, fallback: number) => (value !== undefined && value > 0 ? value : fallback);
  const api = apiOf(entry.api, providerKey) ?? base.api;
  const baseUrl = entry.baseUrl && entry.baseUrl !== "" ? entry.baseUrl : base.baseUrl;
  const merged: ModelInfo = {
    provider,
    id: entry.id,
    name: entry.name && entry.name !== "" ? entry.name : base.name,
    contextWindow: positive(entry.contextWindow, base.contextWindow),
    maxOutput: positive(entry.maxTokens, base.maxOutput),
    reasoning: entry.reasoning ?? base.reasoning,
    priceInput: positive(entry.priceInput, base.priceInput),
    priceOutput: positive(entry.priceOutput, base.priceOutput),
    priceCacheRead: positive(entry.priceCacheRead, base.priceCacheRead),
    priceCacheWrite: positive(entry.priceCacheWrite, base.priceCacheWrite),
    source: "user",
    ...(api ? { api } : {}),
    ...(baseUrl ? { baseUrl } : {}),
  };
  return merged;
}

/** Merges a parsed models.json document into a catalog (pure). */
export function applyModelsFile(catalog: Catalog, document: unknown, fileLabel = "models.json"): Catalog {
  const ignored = (problem: string): Catalog => ({ models: catalog.models, warnings: [...catalog.warnings, `ignoring ${fileLabel}: ${problem}`] });
  if (!isPlainObject(document)) return ignored(`expected a JSON object at the top level, got ${shown(document)}`);
  const { providers } = document;
  if (!isPlainObject(providers)) return ignored(`field "providers": expected an object of provider sections, got ${shown(providers)}`);
  const models = [...catalog.models];
  const warnings = [...catalog.warnings];
  for (const [providerKey, section] of Object.entries(providers)) {
    const provider = providerForAlias(providerKey);
    if (!provider) {
      warnings.push(`${fileLabel}: unknown provider "${providerKey}" ignored`);
      continue;
    }
    const at = `providers.${providerKey}`;
    if (!isPlainObject(section)) {
      warnings.push(`${fileLabel}: field "${at}": expected an object with "models", got ${shown(section)}; ignored`);
      continue;
    }
    const entries = section.models ?? [];
    if (!Array.isArray(entries)) {
      warnings.push(`${fileLabel}: field "${at}.models": expected an array, got ${shown(entries)}; ignored`);
      continue;
    }
    entries.forEach((raw, index) => {
      const entry = userModelOf(raw, `${at}.models.${index}`, fileLabel, warnings);
      if (entry === undefined) return;
      const existing = models.findIndex((model) => model.provider === provider && model.id === entry.id);
      const merged = mergeUserModel(provider, providerKey, entry, existing === -1 ? undefined : models[existing]);
      if (existing === -1) models.push(merged);
      else models[existing] = merged;
    });
  }
  return { models, warnings };
}

/**
 * The static catalog, then the original zot's live list from
 * `modelsCacheFile` when given (providers/models-cache.ts), then the
 * `modelsFile` overrides; never throws. The files are read synchronously
 * (small files on the startup path: no fs thread pool).
 */
export async function loadCatalog(modelsFile: string, modelsCacheFile?: string): Promise<Catalog> {
  const live = modelsCacheFile === undefined ? [] : readModelsCache(modelsCacheFile);
  const builtin = builtinCatalog();
  const catalog: Catalog =
    live.length === 0
      ? builtin
      : { models: mergeLiveModels(builtin.models, live, { contextWindow: SYNTHETIC_CONTEXT_WINDOW, maxOutput: SYNTHETIC_MAX_OUTPUT }), warnings: [] };
  let text: string;
  try {
    text = readRegularText(modelsFile);
  } catch (err) {
    if (systemErrorCode(err) === "ENOENT") return catalog;
    return { models: catalog.models, warnings: [`ignoring ${modelsFile}: ${errorMessage(err)}`] };
  }
  const parsed = parseJson(text, MAX_JSON_DEPTH);
  if (!parsed.ok) {
    const problem = parsed.problem;
    const detail = problem.kind === "too_deep" ? describeJsonProblem(problem) : `invalid JSON: ${problem.message}`;
    return { models: catalog.models, warnings: [`ignoring ${modelsFile}: ${detail}`] };
  }
  return applyModelsFile(catalog, parsed.value, modelsFile);
}

export const LIST_MODELS_HEADER =
  "provider   model id                       context  max-out  reasoning  source        name";

/** The `--list-models` table, one header line and one line per model. */
export function listModelsTable(catalog: Catalog): string {
  const pad = (text: string, width: number) => text.padEnd(width);
  const lines = [LIST_MODELS_HEADER];
  for (const model of catalog.models) {
    const source = model.speculative && model.source === "catalog" ? "speculative" : model.source;
    lines.push(
      `${pad(model.provider, 10)} ${pad(model.id, 30)} ${String(model.contextWindow).padStart(8)} ${String(model.maxOutput).padStart(8)}     ${model.reasoning ? "✓" : " "}        ${pad(source, 11)}   ${model.name}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
