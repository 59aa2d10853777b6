/**
 * API-key lookup and storage. Order: the --api-key flag, then the provider's
 * environment variables (ANTHROPIC_API_KEY, OPENAI_API_KEY, KIMI_API_KEY
 * then MOONSHOT_API_KEY; API_KEY_ENVS), then
 * `$ZOT_HOME/auth.json` (the original's format: `{"anthropic":{"api_key":
 * "..."}}`, an `oauth` object beside it is kept but not used; the entries
 * of the providers zot knows are validated, any other entry is kept as it
 * is).
 * Ollama needs no key. A missing key is ProviderError "config" (context
 * `missing: "api_key"`, see isMissingApiKey) with one line naming the
 * variable, the flag, `zot login <provider>` and auth.json (path, format). `saveApiKey` and
 * `removeApiKeys` rewrite auth.json atomically (temp file + rename) with
 * mode 0600 in a 0700 directory, keeping every other entry (other
 * providers, unknown ones); an existing
 * auth.json readable by others is tightened to 0600 when it is read (best
 * effort, common/private.ts). `credentialSource` tells where a provider's
 * key would come from without failing (the pickers' "logged in" test).
 * A key found with a line break, control character, space or non-ASCII
 * character inside, or wrapped in quotes, is an error naming its source
 * (usableKey), never shown.
 */
import { dirname } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../common/atomic.ts";
import { errorMessage, systemErrorCode } from "../common/errors.ts";
import { zotPaths } from "../common/home.ts";
import { ensurePrivateDir, PRIVATE_FILE_MODE, tightenPath } from "../common/private.ts";
import { MAX_JSON_DEPTH, describeJsonProblem, isPlainObject, parseJson } from "../common/json.ts";
import { describeProblem, firstProblem } from "../common/validation.ts";
import { ProviderError, type ProviderClient, type ProviderName } from "./types.ts";
import { readRegularText } from "../common/regular-file.ts";

/** What the original sends as Ollama's key when none is given. */
export const OLLAMA_API_KEY = "ollama";

/** The environment variables holding a provider's key, in lookup order (the original's). */
export const API_KEY_ENVS: Readonly<Record<ProviderName, readonly string[]>> = {
  anthropic: ["ANTHROPIC_API_KEY"],
  openai: ["OPENAI_API_KEY"],
  kimi: ["KIMI_API_KEY", "MOONSHOT_API_KEY"],
  ollama: [],
};

/** The variable a message names for a provider's key (its first one). */
export const API_KEY_ENV: Readonly<Record<ProviderName, string | undefined>> = {
  anthropic: API_KEY_ENVS.anthropic[0],
  openai: API_KEY_ENVS.openai[0],
  kimi: API_KEY_ENVS.kimi[0],
  ollama: API_KEY_ENVS.ollama[0],
};

/** The first of `provider`'s key variables that is set (non-blank) in `env`, if any. */
export function setKeyVariable(provider: ProviderName, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  return API_KEY_ENVS[provider].find((name) => (env[name]?.trim() ?? "") !== "");
}

/** The providers that take an API key, in the original's `--provider` order. */
export const KEYED_PROVIDER_NAMES: readonly ProviderName[] = ["anthropic", "openai", "kimi"];

/** `a`, `a or b`, `a, b or c`. */
export function alternatives(names: readonly string[], last = "or"): string {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} ${last} ${names.at(-1)}`;
}

export type CredentialSource = "flag" | "env" | "auth" | "none";

export interface Credential {
  /** For Ollama without --api-key: OLLAMA_API_KEY (no key is needed). */
  readonly apiKey: string;
  readonly source: CredentialSource;
}

export interface CredentialLookup {
  readonly provider: ProviderName;
  /** Value of --api-key, if given. */
  readonly flag?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Path of auth.json; defaults to $ZOT_HOME/auth.json. */
  readonly authFile?: string;
}

/** A known provider's entry; `"api_key": null` reads as no key (the original's Go decoder). */
const ProviderAuthSchema = v.looseObject({
  api_key: v.optional(v.nullable(v.string())),
  oauth: v.optional(v.unknown()),
});
type ProviderAuth = v.InferOutput<typeof ProviderAuthSchema>;
/**
 * auth.json as read: every entry as it was in the file (written back
 * untouched), the entries of the providers zot knows validated as objects.
 * An entry of a provider zot does not know may be anything.
 */
type AuthFile = Readonly<Record<string, unknown>>;

function isKnownProvider(name: string): name is ProviderName {
  return Object.hasOwn(API_KEY_ENVS, name);
}

/** The key stored for `provider`, trimmed; undefined when there is none. */
function storedKey(file: AuthFile, provider: ProviderName): string | undefined {
  const entry = Object.hasOwn(file, provider) ? (file[provider] as ProviderAuth) : undefined;
  const key = entry?.api_key?.trim();
  return key === undefined || key === "" ? undefined : key;
}

/** Reads (synchronously: a small file on the startup path) and validates auth.json; a missing file is an empty one. */
export async function readAuthFile(path: string): Promise<AuthFile> {
  let text: string;
  try {
    text = readRegularText(path);
  } catch (err) {
    if (systemErrorCode(err) === "ENOENT") return {};
    throw new ProviderError("config", `cannot read ${path}: ${errorMessage(err)}`, undefined, { file: path });
  }
  tightenPath(path, PRIVATE_FILE_MODE);
  const document = parseJson(text, MAX_JSON_DEPTH);
  if (!document.ok) {
    const problem = document.problem;
    const detail = problem.kind === "too_deep" ? describeJsonProblem(problem) : "not valid JSON";
    throw new ProviderError("config", `invalid ${path}: ${detail}`, undefined, { file: path });
  }
  const file = document.value;
  if (!isPlainObject(file)) throw new ProviderError("config", `invalid ${path}: expected a JSON object at the top level`, undefined, { file: path });
  for (const [name, entry] of Object.entries(file)) {
    if (!isKnownProvider(name)) continue;
    if (!isPlainObject(entry)) {
      throw new ProviderError("config", `invalid ${path}: field "${name}": expected an object like {"api_key": "…"}`, undefined, { file: path, field: name });
    }
    const parsed = v.safeParse(ProviderAuthSchema, entry);
    if (!parsed.success) {
      const problem = firstProblem(parsed.issues);
      const field = problem.field === undefined ? name : `${name}.${problem.field}`;
      throw new ProviderError("config", `invalid ${path}: ${describeProblem({ ...problem, field })}`, undefined, { file: path, field });
    }
  }
  return file;
}

/**
 * A key as found (trimmed), or ProviderError "config" naming where it came
 * from when it cannot be a key: a character HTTP cannot carry or no key
 * has (a line break, a control character, a space, a non-ASCII letter:
 * two secrets pasted together, a CRLF file), or quotes around it (an env
 * file's `KEY="sk-…"` taken literally) — the provider would only answer
 * 401 (or 400) without saying why. The key itself is never shown.
 */
function usableKey(key: string, where: string): string {
  const bad = /[^\x21-\x7e]/.exec(key);
  if (bad !== null) {
    const code = bad[0].codePointAt(0) ?? 0;
    const what = code === 0x0a || code === 0x0d ? "a line break" : code === 0x20 || code === 0x09 ? "a space" : code < 0x20 || code === 0x7f ? "a control character" : "a non-ASCII character";
    throw new ProviderError("config", `${where}: the API key contains ${what} (character ${bad.index + 1} of ${key.length}); no API key has one: check how it is set`, undefined, {
      source: where,
    });
  }
  const quoted = key.length >= 2 && (key[0] === '"' || key[0] === "'") && key.at(-1) === key[0];
  if (quoted) {
    throw new ProviderError("config", `${where}: the API key is wrapped in quotes, which would be sent as part of it; set it without them`, undefined, { source: where });
  }
  return key;
}

/** Finds the key for a provider, or throws ProviderError "config" naming how to supply one (or where a key that cannot work came from). */
export async function resolveApiKey(lookup: CredentialLookup): Promise<Credential> {
  const flag = lookup.flag?.trim();
  if (flag) return { apiKey: usableKey(flag, "--api-key"), source: "flag" };
  // The original's literal key for Ollama (sent as `Bearer ollama`; Ollama ignores it, a proxy in front of it may not).
  if (lookup.provider === "ollama") return { apiKey: OLLAMA_API_KEY, source: "none" };
  const env = lookup.env ?? process.env;
  const envName = setKeyVariable(lookup.provider, env);
  const fromEnv = envName === undefined ? undefined : env[envName]?.trim();
  if (fromEnv) return { apiKey: usableKey(fromEnv, envName as string), source: "env" };
  const authFile = lookup.authFile ?? zotPaths().authFile;
  const stored = storedKey(await readAuthFile(authFile), lookup.provider);
  if (stored !== undefined) return { apiKey: usableKey(stored, `${authFile}: field "${lookup.provider}.api_key"`), source: "auth" };
  throw missingApiKey(lookup.provider, authFile);
}

/**
 * The error of a provider without a key: names every way to give one, the
 * variable, --api-key, `zot login` and auth.json (its path and format):
 * `no API key for anthropic: set ANTHROPIC_API_KEY, pass --api-key, run
 * \`zot login anthropic\`, or write {"anthropic":{"api_key":"…"}} to <auth.json>`.
 */
export function missingApiKey(provider: ProviderName, authFile: string = zotPaths().authFile): ProviderError {
  const envName = API_KEY_ENVS[provider].length > 0 ? alternatives(API_KEY_ENVS[provider]) : "an API key";
  const entry = JSON.stringify({ [provider]: { api_key: "…" } });
  return new ProviderError(
    "config",
    `no API key for ${provider}: set ${envName}, pass --api-key, run \`zot login ${provider}\`, or write ${entry} to ${authFile}`,
    undefined,
    { provider, missing: "api_key" },
  );
}

export function isMissingApiKey(err: unknown): err is ProviderError {
  return err instanceof ProviderError && err.kind === "config" && err.context.missing === "api_key";
}

/** Where `provider`'s key would come from (flag, env, auth), "none" for Ollama, undefined when there is none. Never throws (a broken auth.json counts as no key). */
export async function credentialSource(lookup: CredentialLookup): Promise<CredentialSource | undefined> {
  try {
    return (await resolveApiKey(lookup)).source;
  } catch {
    return undefined;
  }
}

/** Providers with an `api_key` stored in auth.json (known providers only), in file order. */
export async function storedProviders(authFile: string = zotPaths().authFile): Promise<ProviderName[]> {
  const stored = await readAuthFile(authFile);
  return Object.keys(stored).filter(
    (name): name is ProviderName => (KEYED_PROVIDER_NAMES as readonly string[]).includes(name) && storedKey(stored, name as ProviderName) !== undefined,
  );
}

/**
 * Stores a key in auth.json (mode 0600, atomic), replacing any other login
 * method for that provider and keeping the other providers' entries. An
 * unreadable existing file is an error rather than silently discarded.
 */
export async function saveApiKey(provider: ProviderName, apiKey: string, authFile: string = zotPaths().authFile): Promise<void> {
  const key = checkApiKey(apiKey);
  const current = await readAuthFile(authFile);
  const next: AuthFile = { ...current, [provider]: { api_key: key } };
  await writeAuthFile(authFile, next);
}

/**
 * Removes the stored login of each provider given (its whole entry, API key
 * and OAuth token alike); returns the ones that had an entry. The file is
 * rewritten only when something was removed; it stays (as `{}`) when the
 * last entry goes.
 */
export async function removeApiKeys(providers: readonly string[], authFile: string = zotPaths().authFile): Promise<string[]> {
  const current = await readAuthFile(authFile);
  const removed = providers.filter((provider) => Object.hasOwn(current, provider));
  if (removed.length === 0) return [];
  const next: AuthFile = Object.fromEntries(Object.entries(current).filter(([name]) => !removed.includes(name)));
  await writeAuthFile(authFile, next);
  return removed;
}

/** Longest API key accepted (real ones are under 200 characters). */
export const MAX_API_KEY_LENGTH = 4096;

/** The key trimmed; throws ProviderError "config" for an empty key, one with spaces or control characters, or one over MAX_API_KEY_LENGTH. */
export function checkApiKey(apiKey: string): string {
  const key = apiKey.trim();
  if (key === "") throw new ProviderError("config", "the API key is empty");
  if (key.length > MAX_API_KEY_LENGTH) throw new ProviderError("config", `the API key is longer than ${MAX_API_KEY_LENGTH} characters`);
  if (/[\s\x00-\x1f\x7f]/.test(key)) throw new ProviderError("config", "the API key contains spaces, line breaks or control characters");
  if ((key[0] === '"' || key[0] === "'") && key.length >= 2 && key.at(-1) === key[0]) {
    throw new ProviderError("config", "the API key is wrapped in quotes, which would be sent as part of it; give it without them");
  }
  return key;
}

async function writeAuthFile(authFile: string, content: AuthFile): Promise<void> {
  try {
    ensurePrivateDir(dirname(authFile));
    await writeFileAtomic(authFile, `${JSON.stringify(content, null, 2)}\n`, PRIVATE_FILE_MODE);
  } catch (err) {
    const code = systemErrorCode(err);
    throw new ProviderError("config", `cannot write ${authFile}: ${code ?? errorMessage(err)}${code === "EROFS" ? " (read-only file system)" : code === "ENOSPC" ? " (no space left on device)" : ""}`, undefined, { file: authFile }, { cause: err });
  }
}

/** A client for a provider without a key: every model call fails with `error` (the interactive mode starts without a key and asks for one). */
export function missingKeyClient(provider: ProviderName, error: ProviderError = missingApiKey(provider)): ProviderClient {
  return {
    name: provider,
    stream: () => Promise.reject(error),
  };
}
