/**
 * The interactive "a newer zot is available" notice (the original's update
 * banner). Only the chat screen calls it, in the background after the
 * screen is up; print, JSON and RPC mode never do. It does nothing (no
 * request, no file) when CI is set (CI or a known CI system's variable),
 * when ZOT_NO_UPDATE_CHECK=1, or for a zot run from source. Otherwise it
 * reads release.json from the release URL (release-url.ts, ZOT_RELEASE_URL
 * overrides it) within UPDATE_CHECK_TIMEOUT_MS (idle bound of the download
 * too, at most 1 MiB) and caches the answer in $ZOT_HOME/update-check.json
 * ({"checked_at": ISO time, "latest": version}, atomic write) for
 * CACHE_TTL_MS: within that time no request is made. A failed check
 * (offline, timeout, bad document) says nothing and writes nothing. The
 * notice names the new version and `zot upgrade`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../common/atomic.ts";
import { parseJson } from "../common/json.ts";
import { fetchText } from "./download.ts";
import { parseReleaseManifest } from "./manifest.ts";
import { releaseBaseUrl, releaseFileUrl } from "./release-url.ts";
import { compareVersions } from "./versions.ts";
import { inCi } from "../common/ci.ts";

export const UPDATE_CHECK_TIMEOUT_MS = 4_000;
export const CACHE_TTL_MS = 12 * 60 * 60 * 1000;
export const UPDATE_CHECK_FILE = "update-check.json";

export interface UpdateCheckRequest {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly zotHome: string;
  readonly currentVersion: string;
  readonly fromSource: boolean;
  readonly now?: number;
}

export function updateCheckAllowed(request: Pick<UpdateCheckRequest, "env" | "fromSource">): boolean {
  const { env } = request;
  if (request.fromSource || env.ZOT_NO_UPDATE_CHECK === "1") return false;
  return !inCi(env);
}

function cachedLatest(path: string, now: number): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const parsed = parseJson(text, 4);
  if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null) return undefined;
  const { checked_at: checkedAt, latest } = parsed.value as Record<string, unknown>;
  if (typeof checkedAt !== "string" || typeof latest !== "string") return undefined;
  const age = now - Date.parse(checkedAt);
  return Number.isFinite(age) && age >= 0 && age < CACHE_TTL_MS ? latest : undefined;
}

/** The latest release's version (cached), or undefined when unknown or not allowed. */
export async function latestReleaseVersion(request: UpdateCheckRequest): Promise<string | undefined> {
  if (!updateCheckAllowed(request)) return undefined;
  const now = request.now ?? Date.now();
  const cacheFile = join(request.zotHome, UPDATE_CHECK_FILE);
  const cached = cachedLatest(cacheFile, now);
  if (cached !== undefined) return cached;
  try {
    const url = releaseFileUrl(releaseBaseUrl(request.env), "release.json");
    const text = await Promise.race([
      fetchText(url, { maxBytes: 1024 * 1024, idleMs: UPDATE_CHECK_TIMEOUT_MS }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), UPDATE_CHECK_TIMEOUT_MS).unref()),
    ]);
    const latest = parseReleaseManifest(text, url).version;
    await writeFileAtomic(cacheFile, `${JSON.stringify({ checked_at: new Date(now).toISOString(), latest })}\n`).catch(() => undefined);
    return latest;
  } catch {
    return undefined;
  }
}

/** The one-line notice, or undefined when this zot is current (or nothing is known). */
export async function updateNotice(request: UpdateCheckRequest): Promise<string | undefined> {
  const latest = await latestReleaseVersion(request);
  if (latest === undefined || compareVersions(latest, request.currentVersion) <= 0) return undefined;
  return `zot ${latest} is available (installed: ${request.currentVersion}); run zot upgrade`;
}
