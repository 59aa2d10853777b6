/**
 * The run's working directory and provider: `resolveWorkingDirectory` checks
 * --cwd with one synchronous stat (no fs thread pool at startup);
 * `resolveProvider` picks provider, model and key. Like the original, a run
 * whose flags did not name the provider falls back to another provider that
 * has a key when the chosen one (config.json's, else anthropic) has none —
 * with --model, only to a provider whose catalog has that model (the
 * original would run another model than the one asked for) —; otherwise
 * the first error stands, or with `allowMissing` the run goes on keyless
 * (`missing`, an empty key). The fallback tries anthropic, openai, kimi in
 * that order (the original's). Also as the original (its `[QUIRK]`), for
 * the openai provider only (where it serves a purpose): a models.json model
 * with its own base URL and no key anywhere is sent `ollama` as its key (a
 * keyless local OpenAI-compatible server); the original also did it for
 * anthropic and kimi models, where a made-up key can only fail.
 * A provider in config.json that zot does not know is, as in the original,
 * replaced by the first of anthropic, kimi, openai with a key in the
 * environment or auth.json (else anthropic) and its model dropped, with a
 * warning naming the file (which, unlike the original, is not rewritten).
 * An unknown model that came from config.json names the file.
 */
import { currentDirectory, resolveFromCwd } from "../common/cwd.ts";
import { statSync } from "node:fs";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";
import type { ZotConfig } from "../common/config.ts";
import type { ZotPaths } from "../common/home.ts";
import type { MainFlags } from "../cli/flags.ts";
import { didYouMean } from "../common/did-you-mean.ts";
import {
  PROVIDER_NAMES,
  ProviderError,
  credentialSource,
  isMissingApiKey,
  isProviderName,
  OLLAMA_API_KEY,
  resolveApiKey,
  resolveModel,
  type Catalog,
  type Credential,
  type ResolvedModel,
} from "../providers/index.ts";

/** Providers tried, in order, when --provider was not given and the chosen one has no key. */
const CREDENTIAL_FALLBACK_PROVIDERS = ["anthropic", "openai", "kimi"] as const;

/** Preference, by key availability, for a config.json provider zot does not know (the original's order). */
const UNKNOWN_STORED_PROVIDER_ORDER = ["anthropic", "kimi", "openai"] as const;

/** Synchronous on purpose: one stat(2), no fs thread pool at startup. */
export function resolveWorkingDirectory(flag: string | undefined): string {
  const cwd = flag === undefined ? currentDirectory() : resolveFromCwd(flag);
  try {
    if (statSync(cwd).isDirectory()) return cwd;
  } catch (err) {
    const code = systemErrorCode(err);
    if (code !== "ENOENT" && code !== "ENOTDIR") {
      throw new ZotError("mode.bad_cwd", `--cwd ${cwd}: ${errorMessage(err)}`, { cwd });
    }
  }
  throw new ZotError("mode.bad_cwd", `--cwd ${cwd}: not a directory`, { cwd });
}

/**
 * config.json as this run uses it: when no flag names a provider and the
 * stored one is unknown, the first provider of UNKNOWN_STORED_PROVIDER_ORDER
 * with a key (environment or auth.json; else anthropic) replaces it and the
 * stored model is dropped; the warning says so.
 */
async function withKnownProvider(config: ZotConfig, flags: MainFlags, paths: ZotPaths): Promise<{ config: ZotConfig; warnings: string[] }> {
  const stored = config.provider;
  if (flags.provider !== undefined || stored === undefined || isProviderName(stored)) return { config, warnings: [] };
  let chosen: string = UNKNOWN_STORED_PROVIDER_ORDER[0];
  for (const provider of UNKNOWN_STORED_PROVIDER_ORDER) {
    if ((await credentialSource({ provider, authFile: paths.authFile })) !== undefined) {
      chosen = provider;
      break;
    }
  }
  const { model: _model, ...rest } = config;
  const hint = didYouMean(stored, PROVIDER_NAMES, (name) => name);
  const warning = `${paths.configFile}: unknown provider "${stored}"${hint} (expected ${PROVIDER_NAMES.join(", ")}); using ${chosen} and its default model (the file is not changed)`;
  return { config: { ...rest, provider: chosen }, warnings: [warning] };
}

/** A provider or model that config.json chose (no flag named one) and that does not resolve: the error names the file. */
function resolveFromConfig(resolve: () => ResolvedModel, flags: MainFlags, config: ZotConfig, paths: ZotPaths): ResolvedModel {
  try {
    return resolve();
  } catch (err) {
    const fromConfig = (flags.model === undefined && config.model !== undefined) || (flags.provider === undefined && config.provider !== undefined);
    if (!(err instanceof ProviderError) || err.kind !== "config" || !fromConfig) throw err;
    throw new ProviderError("config", `${paths.configFile}: ${err.message}`, err.status, { ...err.context, file: paths.configFile });
  }
}

export interface ResolvedProvider {
  readonly resolved: ResolvedModel;
  readonly credential: Credential;
  /** The key was missing and `allowMissing` let it pass (credential.apiKey is ""). */
  readonly missing?: boolean;
  /** One line each (no "zot: warning:" prefix): a config.json provider that was replaced. */
  readonly warnings: readonly string[];
}

/** Provider, model and key (see the header for the fallbacks). */
export async function resolveProvider(flags: MainFlags, storedConfig: ZotConfig, catalog: Catalog, paths: ZotPaths, allowMissing: boolean): Promise<ResolvedProvider> {
  const { config, warnings } = await withKnownProvider(storedConfig, flags, paths);
  const provider = flags.provider ?? config.provider;
  const model = flags.model ?? config.model;
  const resolved = resolveFromConfig(() => resolveModel({ provider, model, baseUrl: flags.baseUrl, catalog }), flags, config, paths);
  try {
    const credential = await resolveApiKey({ provider: resolved.provider, flag: flags.apiKey, authFile: paths.authFile });
    return { resolved, credential, warnings };
  } catch (err) {
    if (isMissingApiKey(err) && resolved.provider === "openai" && resolved.model.source === "user" && resolved.model.baseUrl !== undefined) {
      return { resolved, credential: { apiKey: OLLAMA_API_KEY, source: "none" }, warnings };
    }
    const mayFallBack = err instanceof ProviderError && err.kind === "config" && flags.provider === undefined;
    if (!mayFallBack) {
      if (allowMissing && isMissingApiKey(err)) return { resolved, credential: { apiKey: "", source: "none" }, missing: true, warnings };
      throw err;
    }
    const wanted = flags.model;
    for (const provider of CREDENTIAL_FALLBACK_PROVIDERS) {
      if (provider === resolved.provider) continue;
      if (wanted !== undefined && !catalog.models.some((entry) => entry.provider === provider && entry.id === wanted)) continue;
      try {
        const credential = await resolveApiKey({ provider, authFile: paths.authFile });
        return { resolved: resolveModel({ provider, model: wanted, baseUrl: flags.baseUrl, catalog }), credential, warnings };
      } catch {
        // keep looking; the default provider's error is the one reported
      }
    }
    if (allowMissing && isMissingApiKey(err)) return { resolved, credential: { apiKey: "", source: "none" }, missing: true, warnings };
    throw err;
  }
}

