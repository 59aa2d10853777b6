/**
 * Where releases live. DEFAULT_RELEASE_URL is the directory (URL) holding
 * the latest release's files: zot-<os>-<arch>[.exe], SHA256SUMS and
 * release.json. install.sh carries the same constant (a test checks that
 * they agree). ZOT_RELEASE_URL overrides it: it is then the directory that
 * holds release.json. A given version V of the default GitHub layout lives
 * in VERSIONED_RELEASE_URL_PREFIX + "v" + V.
 */
export const DEFAULT_RELEASE_URL = "https://github.com/zot-agent/zot/releases/latest/download";
export const VERSIONED_RELEASE_URL_PREFIX = "https://github.com/zot-agent/zot/releases/download/";

/** The release directory for `version` (undefined: the latest), without a trailing slash. */
export function releaseBaseUrl(env: Readonly<Record<string, string | undefined>>, version?: string): string {
  const override = env.ZOT_RELEASE_URL;
  if (override !== undefined && override !== "") return override.replace(/\/+$/, "");
  if (version === undefined) return DEFAULT_RELEASE_URL;
  return `${VERSIONED_RELEASE_URL_PREFIX}v${version.replace(/^v/, "")}`;
}

/** `<base>/<file>`. */
export function releaseFileUrl(base: string, file: string): string {
  return `${base}/${encodeURIComponent(file)}`;
}
