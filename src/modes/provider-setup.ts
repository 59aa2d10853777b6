/**
 * The run's working directory and provider: `resolveWorkingDirectory` checks
 * --cwd with one synchronous stat (no fs thread pool at startup);
 * `resolveProvider` picks provider, model and key. Like the original, a run
 * whose flags named neither provider nor model falls back to another
 * provider that has a key when the chosen one (config.json's, else
 * anthropic) has none; otherwise the first error stands, or with
 * `allowMissing` the run goes on keyless (`missing`, an empty key). The
 * fallback tries anthropic, openai, kimi in that order (the original's).
 * An unknown provider or model that came from config.json names the file.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";
import type { ZotConfig } from "../common/config.ts";
import type { ZotPaths } from "../common/home.ts";
import type { MainFlags } from "../cli/flags.ts";
import { ProviderError, isMissingApiKey, resolveApiKey, resolveModel, type Catalog, type Credential, type ResolvedModel } from "../providers/index.ts";

/** Providers tried, in order, when neither --provider nor --model was given and the chosen one has no key. */
const CREDENTIAL_FALLBACK_PROVIDERS = ["anthropic", "openai", "kimi"] as const;

/** Synchronous on purpose: one stat(2), no fs thread pool at startup. */
export function resolveWorkingDirectory(flag: string | undefined): string {
  const cwd = resolve(flag ?? process.cwd());
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
}

/**
 * Provider, model and key. Like the original, a run whose flags named
 * neither provider nor model falls back to another provider that has a key
 * when the chosen one (config.json's, else anthropic) has none; otherwise
 * the first error stands, or with `allowMissing` the run goes on keyless.
 */
export async function resolveProvider(flags: MainFlags, config: ZotConfig, catalog: Catalog, paths: ZotPaths, allowMissing: boolean): Promise<ResolvedProvider> {
  const provider = flags.provider ?? config.provider;
  const model = flags.model ?? config.model;
  const resolved = resolveFromConfig(() => resolveModel({ provider, model, baseUrl: flags.baseUrl, catalog }), flags, config, paths);
  try {
    const credential = await resolveApiKey({ provider: resolved.provider, flag: flags.apiKey, authFile: paths.authFile });
    return { resolved, credential };
  } catch (err) {
    const mayFallBack = err instanceof ProviderError && err.kind === "config" && flags.provider === undefined && flags.model === undefined;
    if (!mayFallBack) {
      if (allowMissing && isMissingApiKey(err)) return { resolved, credential: { apiKey: "", source: "none" }, missing: true };
      throw err;
    }
    for (const provider of CREDENTIAL_FALLBACK_PROVIDERS) {
      if (provider === resolved.provider) continue;
      try {
        const credential = await resolveApiKey({ provider, authFile: paths.authFile });
        return { resolved: resolveModel({ provider, baseUrl: flags.baseUrl, catalog }), credential };
      } catch {
        // keep looking; the default provider's error is the one reported
      }
    }
    if (allowMissing && isMissingApiKey(err)) return { resolved, credential: { apiKey: "", source: "none" }, missing: true };
    throw err;
  }
}

