/**
 * `zot upgrade` without the command line: find the release (release.json
 * at the base URL, release-url.ts), pick this machine's file (the target
 * baked into a release build, else platform / arch / libc: targets.ts),
 * compare versions, download the file next to the running executable
 * (bounded: MAX_BINARY_BYTES, IDLE_MS without a byte; download.ts), verify
 * its sha256 against release.json and against SHA256SUMS when the release
 * has one (a missing SHA256SUMS, HTTP 404, is allowed), check it answers
 * `--version` as the release's version, and swap it in (swap.ts). Nothing
 * is changed unless every check passed; the temp file is removed on any
 * failure, and on SIGINT / SIGTERM / SIGHUP (which also put the old
 * executable back if the swap had begun; exit 130 / 143 / 129). Errors are ZotErrors naming the URL, file or directory at fault.
 */
import { chmodSync, existsSync, realpathSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";
import { SIGNAL_EXIT_CODES } from "../common/signal-exit.ts";
import { isMuslLibc } from "../common/platform.ts";
import { downloadToFile, fetchText, type DownloadLimits } from "./download.ts";
import { parseReleaseManifest, parseSha256Sums, type ReleaseManifest, type ReleaseManifestFile } from "./manifest.ts";
import { releaseBaseUrl, releaseFileUrl } from "./release-url.ts";
import { answerVersion, oldPathOf, swapExecutable } from "./swap.ts";
import { findTarget, targetFor, type ReleaseTarget } from "./targets.ts";
import { compareVersions } from "./versions.ts";

export const MAX_MANIFEST_BYTES = 1024 * 1024;
export const MAX_BINARY_BYTES = 512 * 1024 * 1024;
/** Default idle bound of every download; ZOT_UPGRADE_IDLE_TIMEOUT (seconds) overrides it. */
export const IDLE_MS = 30_000;

export interface UpgradeContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The running executable (process.execPath). */
  readonly execPath: string;
  readonly platform: NodeJS.Platform;
  readonly arch: string;
  /** This zot's semantic version. */
  readonly currentVersion: string;
  /** True when zot runs from source under bun (nothing to replace). */
  readonly fromSource: boolean;
  /** The release target baked into this binary, if any. */
  readonly releaseTarget: string | undefined;
  /** Progress lines (stderr). */
  readonly note: (line: string) => void;
}

export interface Release {
  readonly base: string;
  readonly manifestUrl: string;
  readonly manifest: ReleaseManifest;
}

function idleMs(env: UpgradeContext["env"]): number {
  const seconds = Number(env.ZOT_UPGRADE_IDLE_TIMEOUT);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : IDLE_MS;
}

function limits(ctx: UpgradeContext, maxBytes: number): DownloadLimits {
  return { maxBytes, idleMs: idleMs(ctx.env) };
}

/** release.json of the latest release, or of `version`; a ZOT_RELEASE_URL release must be that version. */
export async function readRelease(ctx: UpgradeContext, version?: string): Promise<Release> {
  const base = releaseBaseUrl(ctx.env, version);
  const manifestUrl = releaseFileUrl(base, "release.json");
  const manifest = parseReleaseManifest(await fetchText(manifestUrl, limits(ctx, MAX_MANIFEST_BYTES)), manifestUrl);
  if (version !== undefined && compareVersions(manifest.version, version) !== 0) {
    throw new ZotError("upgrade.wrong_version", `${manifestUrl} describes zot ${manifest.version}, not the requested ${version}`, { url: manifestUrl });
  }
  return { base, manifestUrl, manifest };
}

export function thisTarget(ctx: UpgradeContext): ReleaseTarget {
  const baked = ctx.releaseTarget === undefined ? undefined : findTarget(ctx.releaseTarget);
  const target = baked ?? targetFor(ctx.platform, ctx.arch, isMuslLibc(ctx.platform));
  if (target === undefined) throw new ZotError("upgrade.no_target", `no release is built for ${ctx.platform}-${ctx.arch}; build zot from source`);
  return target;
}

export interface UpgradeCheck {
  readonly current: string;
  readonly latest: string;
  readonly newer: boolean;
  readonly release: Release;
}

export async function checkForUpgrade(ctx: UpgradeContext): Promise<UpgradeCheck> {
  const release = await readRelease(ctx);
  return { current: ctx.currentVersion, latest: release.manifest.version, newer: compareVersions(release.manifest.version, ctx.currentVersion) > 0, release };
}

export type UpgradeOutcome =
  | { readonly kind: "up_to_date"; readonly version: string; readonly latest: string }
  | { readonly kind: "upgraded"; readonly from: string; readonly to: string; readonly path: string };

function releaseFileFor(release: Release, target: ReleaseTarget): ReleaseManifestFile {
  const file = release.manifest.files.find((entry) => entry.name === target.file);
  if (file === undefined) {
    throw new ZotError("upgrade.no_file", `${release.manifestUrl} lists no ${target.file} (the file for this machine) in zot ${release.manifest.version}`, { url: release.manifestUrl });
  }
  return file;
}

/** SHA256SUMS of the release, or undefined when the release has none (404). */
async function releaseSums(ctx: UpgradeContext, release: Release): Promise<Map<string, string> | undefined> {
  try {
    return parseSha256Sums(await fetchText(releaseFileUrl(release.base, "SHA256SUMS"), limits(ctx, MAX_MANIFEST_BYTES)));
  } catch (err) {
    if (err instanceof ZotError && err.code === "upgrade.http" && err.context.status === 404) return undefined;
    throw err;
  }
}

function checksumMismatch(file: string, source: string, expected: string, actual: string): ZotError {
  return new ZotError("upgrade.bad_checksum", `checksum mismatch for ${file}: ${source} says ${expected}, the download is ${actual}; nothing was changed`, { file });
}

const PERMISSION_CODES = new Set(["EACCES", "EPERM", "EROFS"]);

function noPermission(dir: string, exe: string, cause: string | number | boolean | undefined): ZotError {
  return new ZotError(
    "upgrade.no_permission",
    `cannot write to ${dir} (${String(cause)}), where ${basename(exe)} is installed: re-run zot upgrade as a user who may write there (e.g. sudo zot upgrade), or reinstall with install.sh into a directory you own (ZOT_INSTALL_DIR)`,
    { dir },
  );
}

/** The executable to replace: the running one, symlinks resolved (a link to zot keeps pointing at the new one). */
function installedExecutable(ctx: UpgradeContext): string {
  try {
    return realpathSync(ctx.execPath);
  } catch {
    return ctx.execPath;
  }
}

/** Until the returned function is called, SIGINT / SIGTERM / SIGHUP run `undo` and exit 130 / 143 / 129. */
function onInterrupt(undo: () => void): () => void {
  const handlers = Object.entries(SIGNAL_EXIT_CODES).map(([signal, code]) => {
    const handler = (): void => {
      try {
        undo();
      } finally {
        writeSync(2, `zot: upgrade interrupted by ${signal}; nothing was changed\n`);
        process.exit(code);
      }
    };
    process.on(signal, handler);
    return { signal, handler };
  });
  return () => {
    for (const { signal, handler } of handlers) process.off(signal, handler);
  };
}

/** Windows: the `.old` file an earlier upgrade could not remove while that zot ran. */
function removeStaleOld(exe: string): void {
  try {
    rmSync(oldPathOf(exe), { force: true });
  } catch {
    // still in use: swapExecutable retries
  }
}

export async function performUpgrade(ctx: UpgradeContext, requested?: string): Promise<UpgradeOutcome> {
  if (ctx.fromSource) {
    throw new ZotError("upgrade.from_source", `this zot runs from source (${ctx.execPath}); zot upgrade replaces a compiled zot: use git pull and npm run build, or install a release with install.sh`);
  }
  const target = thisTarget(ctx);
  const release = await readRelease(ctx, requested);
  const to = release.manifest.version;
  const order = compareVersions(to, ctx.currentVersion);
  if (order === 0 || (order < 0 && requested === undefined)) return { kind: "up_to_date", version: ctx.currentVersion, latest: to };
  const entry = releaseFileFor(release, target);
  const exe = installedExecutable(ctx);
  const dir = dirname(exe);
  if (ctx.platform === "win32") removeStaleOld(exe);
  // Keeps the executable's extension (".exe"): Windows runs a program by it.
  const extension = extname(exe);
  const candidate = join(dir, `.${basename(exe, extension)}.upgrade-${process.pid}${extension}`);
  const url = releaseFileUrl(release.base, entry.name);
  ctx.note(`downloading ${url} (${(entry.size / (1024 * 1024)).toFixed(1)} MiB)`);
  let swapped = false;
  let swapStarted = false;
  const releaseInterrupt = onInterrupt(() => {
    // The old executable is put back if the swap had begun (<exe>.old exists only then), and the download removed.
    const old = oldPathOf(exe);
    if (swapStarted && existsSync(old)) renameSync(old, exe);
    rmSync(candidate, { force: true });
  });
  try {
    let downloaded;
    try {
      downloaded = await downloadToFile(url, candidate, limits(ctx, MAX_BINARY_BYTES));
    } catch (err) {
      if (err instanceof ZotError && err.code === "upgrade.write" && PERMISSION_CODES.has(String(err.context.cause))) throw noPermission(dir, exe, err.context.cause);
      throw err;
    }
    if (downloaded.sha256 !== entry.sha256.toLowerCase()) throw checksumMismatch(entry.name, "release.json", entry.sha256.toLowerCase(), downloaded.sha256);
    const sums = await releaseSums(ctx, release);
    const listed = sums?.get(entry.name);
    if (sums !== undefined && listed === undefined) {
      throw new ZotError("upgrade.bad_checksum", `${releaseFileUrl(release.base, "SHA256SUMS")} does not list ${entry.name}; nothing was changed`, { file: entry.name });
    }
    if (listed !== undefined && listed !== downloaded.sha256) throw checksumMismatch(entry.name, "SHA256SUMS", listed, downloaded.sha256);
    ctx.note(`verified ${entry.name} (sha256 ${downloaded.sha256})`);
    try {
      chmodSync(candidate, 0o755);
    } catch (err) {
      throw new ZotError("upgrade.write", `cannot make ${candidate} executable: ${errorMessage(err)}`, { path: candidate });
    }
    await answerVersion(candidate, to, `the downloaded ${entry.name}`);
    swapStarted = true;
    try {
      await swapExecutable({ exe, candidate, version: to, platform: ctx.platform });
    } catch (err) {
      const code = systemErrorCode(err);
      if (code !== undefined && PERMISSION_CODES.has(code)) throw noPermission(dir, exe, code);
      throw err;
    }
    swapped = true;
  } finally {
    releaseInterrupt();
    if (!swapped) rmSync(candidate, { force: true });
  }
  return { kind: "upgraded", from: ctx.currentVersion, to, path: exe };
}
