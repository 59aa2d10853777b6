/**
 * The original zot's live model list, `$ZOT_HOME/models-cache.json`
 * (reference notes §1.10): `{"fetched_at": <RFC 3339>, "models": [<Model>…]}`
 * with the Go struct's field names (`Provider`, `ID`, `Name`,
 * `ContextWindow`, `MaxTokens`, `Reasoning`). zot discovers no models
 * itself, but reads the cache the original left (one $ZOT_HOME shared by
 * both), so an id the original found live is a known model here too. Merge,
 * as the original's: a live id the catalog has keeps the catalog's prices
 * and limits and becomes `source: live` (no longer speculative); an unknown
 * live id is appended with zero prices, its own context window, max output,
 * name and reasoning flag when the entry has them (else the defaults for
 * undescribed models). models.json is applied after this and wins. The
 * file is the original's machine-written cache, so a missing, unreadable,
 * malformed or oddly shaped one is ignored without a word, entry by entry
 * (an entry without a known `Provider` or a non-empty `ID` is skipped), and
 * its age does not matter (the original refreshes it; zot only reads it).
 * A file over MAX_MODELS_CACHE_BYTES (16 MiB; the original's lists are
 * tens of KB) or not a regular file is not read at all.
 */
import { MAX_JSON_DEPTH, isPlainObject, parseJson } from "../common/json.ts";
import { readSmallFile } from "../common/regular-file.ts";
import { providerForAlias } from "./provider-aliases.ts";
import type { ModelInfo, ProviderName } from "./types.ts";

interface LiveModel {
  readonly provider: ProviderName;
  readonly id: string;
  readonly name?: string;
  readonly contextWindow?: number;
  readonly maxOutput?: number;
  readonly reasoning?: boolean;
}

const tokenCount = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined;

function liveModelOf(raw: unknown): LiveModel | undefined {
  if (!isPlainObject(raw)) return undefined;
  const provider = typeof raw.Provider === "string" ? providerForAlias(raw.Provider) : undefined;
  const id = typeof raw.ID === "string" ? raw.ID.trim() : "";
  if (provider === undefined || id === "") return undefined;
  const name = typeof raw.Name === "string" ? raw.Name.trim() : "";
  const contextWindow = tokenCount(raw.ContextWindow);
  const maxOutput = tokenCount(raw.MaxTokens);
  return {
    provider,
    id,
    ...(name !== "" ? { name } : {}),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(maxOutput !== undefined ? { maxOutput } : {}),
    ...(typeof raw.Reasoning === "boolean" ? { reasoning: raw.Reasoning } : {}),
  };
}

/** The live entries of a cache document (none when it is not `{"models": [...]}`). */
export function liveModels(document: unknown): LiveModel[] {
  if (!isPlainObject(document) || !Array.isArray(document.models)) return [];
  const found: LiveModel[] = [];
  for (const raw of document.models) {
    const model = liveModelOf(raw);
    if (model !== undefined) found.push(model);
  }
  return found;
}

/** `models` with the live entries merged in (see the contract above); `defaults` describes an unknown live id. */
export function mergeLiveModels(
  models: readonly ModelInfo[],
  live: readonly LiveModel[],
  defaults: { readonly contextWindow: number; readonly maxOutput: number },
): ModelInfo[] {
  const merged = [...models];
  for (const entry of live) {
    const at = merged.findIndex((model) => model.provider === entry.provider && model.id === entry.id);
    const known = at === -1 ? undefined : merged[at];
    if (known !== undefined) {
      const { speculative: _speculative, ...rest } = known;
      merged[at] = { ...rest, source: "live" };
      continue;
    }
    merged.push({
      provider: entry.provider,
      id: entry.id,
      name: entry.name ?? entry.id,
      contextWindow: entry.contextWindow ?? defaults.contextWindow,
      maxOutput: entry.maxOutput ?? defaults.maxOutput,
      reasoning: entry.reasoning ?? false,
      priceInput: 0,
      priceOutput: 0,
      priceCacheRead: 0,
      priceCacheWrite: 0,
      source: "live",
    });
  }
  return merged;
}

export const MAX_MODELS_CACHE_BYTES = 16 * 1024 * 1024;

/** The live entries of the cache file at `path`; [] for a missing, unreadable, oversized or malformed file. */
export function readModelsCache(path: string): LiveModel[] {
  const text = readSmallFile(path, MAX_MODELS_CACHE_BYTES);
  if (text === undefined) return [];
  const parsed = parseJson(text, MAX_JSON_DEPTH);
  return parsed.ok ? liveModels(parsed.value) : [];
}
