/**
 * API-key lookup and storage. Order: the --api-key flag, then the provider's
 * environment variable (ANTHROPIC_API_KEY, OPENAI_API_KEY), then
 * `$ZOT_HOME/auth.json` (`{"anthropic":{"api_key":"..."}}`, validated).
 * Ollama needs no key. A missing key is ProviderError "config" with one line
 * naming the variable and the flag. `saveApiKey` rewrites auth.json
 * atomically with mode 0600 in a 0700 directory, keeping other providers'
 * entries; an existing auth.json readable by others is tightened to 0600
 * when it is read (best effort, common/private.ts).
 */
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../common/atomic.ts";
import { errorMessage, systemErrorCode } from "../common/errors.ts";
import { zotPaths } from "../common/home.ts";
import { ensurePrivateDir, PRIVATE_FILE_MODE, tightenPath } from "../common/private.ts";
import { MAX_JSON_DEPTH, describeJsonProblem, parseJson } from "../common/json.ts";
import { describeProblem, firstProblem } from "../common/validation.ts";
import { ProviderError, type ProviderName } from "./types.ts";

export const API_KEY_ENV: Readonly<Record<ProviderName, string | undefined>> = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  ollama: undefined,
};

export type CredentialSource = "flag" | "env" | "auth" | "none";

export interface Credential {
  /** Empty only for providers that need no key (Ollama). */
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

const ProviderAuthSchema = v.looseObject({
  api_key: v.optional(v.string()),
  oauth: v.optional(v.unknown()),
});
const AuthFileSchema = v.record(v.string(), ProviderAuthSchema);
type AuthFile = v.InferOutput<typeof AuthFileSchema>;

/** Reads (synchronously: a small file on the startup path) and validates auth.json; a missing file is an empty one. */
export async function readAuthFile(path: string): Promise<AuthFile> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
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
  const parsed = v.safeParse(AuthFileSchema, document.value);
  if (!parsed.success) {
    const problem = firstProblem(parsed.issues);
    throw new ProviderError("config", `invalid ${path}: ${describeProblem(problem)}`, undefined, { file: path, field: problem.field });
  }
  return parsed.output;
}

/** Finds the key for a provider, or throws ProviderError "config" naming how to supply one. */
export async function resolveApiKey(lookup: CredentialLookup): Promise<Credential> {
  const flag = lookup.flag?.trim();
  if (flag) return { apiKey: flag, source: "flag" };
  if (lookup.provider === "ollama") return { apiKey: "", source: "none" };
  const envName = API_KEY_ENV[lookup.provider];
  const env = lookup.env ?? process.env;
  const fromEnv = envName ? env[envName]?.trim() : undefined;
  if (fromEnv) return { apiKey: fromEnv, source: "env" };
  const authFile = lookup.authFile ?? zotPaths().authFile;
  const stored = (await readAuthFile(authFile))[lookup.provider]?.api_key?.trim();
  if (stored) return { apiKey: stored, source: "auth" };
  throw new ProviderError(
    "config",
    `no API key for ${lookup.provider}: set ${envName ?? "an API key"} or pass --api-key`,
    undefined,
    { provider: lookup.provider },
  );
}

/**
 * Stores a key in auth.json (mode 0600, atomic), replacing any other login
 * method for that provider and keeping the other providers' entries. An
 * unreadable existing file is an error rather than silently discarded.
 */
export async function saveApiKey(provider: ProviderName, apiKey: string, authFile: string = zotPaths().authFile): Promise<void> {
  const current = await readAuthFile(authFile);
  const next: AuthFile = { ...current, [provider]: { api_key: apiKey } };
  ensurePrivateDir(dirname(authFile));
  await writeFileAtomic(authFile, `${JSON.stringify(next, null, 2)}\n`, PRIVATE_FILE_MODE);
}
