/**
 * Finds the extensions to load, in load order: explicit --ext paths first
 * (in the order given), then project-local ./.zot/extensions/<dir>, then
 * global $ZOT_HOME/extensions/<dir> (each scope in directory-name order).
 * The first manifest to claim a name wins; every later claimant is reported
 * as shadowed and never spawned. Directories without extension.json are
 * ignored during discovery (explicit paths report them); malformed
 * manifests, disabled extensions and non-process bundles (skills-only,
 * theme-only) are reported, not loaded.
 *
 * With `skipProject` (an untrusted project, src/modes/project-trust.ts) the
 * project scope's process extensions and skills / agents bundles are listed
 * in `untrusted` and claim nothing: their names do not shadow global
 * extensions, and none of it loads (skills and agent definitions from their
 * manifests included). Theme-only bundles run nothing and load either way.
 */
import { join, resolve } from "node:path";
import type { ZotPaths } from "../common/home.ts";
import { type LoadedManifest, ManifestError, hasManifest, loadManifest } from "./manifest.ts";
import type { ExtensionSource } from "./connection.ts";
import { projectExtensionsDir, scopeEntries } from "./scopes.ts";

export { projectExtensionsDir } from "./scopes.ts";

export interface DiscoveredExtension {
  readonly loaded: LoadedManifest;
  readonly source: ExtensionSource;
}

export interface ShadowedExtension extends DiscoveredExtension {
  /** Directory of the extension that holds the name. */
  readonly heldBy: string;
}

export interface DiscoveryReport {
  /** Process extensions to spawn, in load order. */
  readonly load: DiscoveredExtension[];
  /** Skills-only and theme-only bundles (never spawned). */
  readonly bundles: DiscoveredExtension[];
  readonly disabled: DiscoveredExtension[];
  readonly shadowed: ShadowedExtension[];
  readonly manifestErrors: ManifestError[];
  /** Project-local extensions and bundles left out because the project is not trusted (skipProject). */
  readonly untrusted: DiscoveredExtension[];
}

export interface DiscoveryOptions {
  readonly cwd: string;
  readonly paths: ZotPaths;
  readonly explicit: readonly string[];
  /** --no-ext: skip the two scope directories; explicit paths still load. */
  readonly noDiscovery: boolean;
  /** Leave the project scope out (listed in `untrusted`): the project is not trusted. */
  readonly skipProject?: boolean;
}

function scopeDirs(root: string): string[] {
  return scopeEntries(root)
    .sort()
    .map((name) => join(root, name))
    .filter((dir) => hasManifest(dir));
}

export async function discoverExtensions(options: DiscoveryOptions): Promise<DiscoveryReport> {
  const candidates: { dir: string; source: ExtensionSource }[] = options.explicit.map((path) => ({
    dir: resolve(options.cwd, path),
    source: "explicit" as const,
  }));
  if (!options.noDiscovery) {
    for (const dir of scopeDirs(projectExtensionsDir(options.cwd))) candidates.push({ dir, source: "project" });
    for (const dir of scopeDirs(options.paths.extensions)) candidates.push({ dir, source: "global" });
  }
  const loaded = await Promise.all(
    candidates.map(async (candidate) => {
      try {
        return { ...candidate, loaded: await loadManifest(candidate.dir) };
      } catch (err) {
        if (err instanceof ManifestError) return { ...candidate, error: err };
        throw err;
      }
    }),
  );
  const report: DiscoveryReport = { load: [], bundles: [], disabled: [], shadowed: [], manifestErrors: [], untrusted: [] };
  const claimed = new Map<string, string>();
  const seenDirs = new Set<string>();
  for (const entry of loaded) {
    if (seenDirs.has(entry.dir)) continue;
    seenDirs.add(entry.dir);
    if ("error" in entry) {
      report.manifestErrors.push(entry.error);
      continue;
    }
    const found: DiscoveredExtension = { loaded: entry.loaded, source: entry.source };
    if (options.skipProject === true && entry.source === "project" && entry.loaded.kind !== "theme") {
      if (entry.loaded.enabled) report.untrusted.push(found);
      continue;
    }
    const name = entry.loaded.manifest.name;
    const heldBy = claimed.get(name);
    if (heldBy !== undefined) {
      report.shadowed.push({ ...found, heldBy });
      continue;
    }
    if (!entry.loaded.enabled) {
      report.disabled.push(found);
      continue;
    }
    claimed.set(name, entry.dir);
    if (entry.loaded.kind === "process") report.load.push(found);
    else report.bundles.push(found);
  }
  return report;
}

/**
 * The project-local entries that would run or load (process extensions,
 * skills / agents bundles, and ones shadowed only by an --ext path, so that the set does not
 * depend on the run's --ext flags): what project trust covers.
 */
export function projectEntries(report: DiscoveryReport, cwd: string): DiscoveredExtension[] {
  const projectRoot = projectExtensionsDir(cwd);
  const byExplicit = report.shadowed.filter((entry) => entry.source === "project" && !entry.heldBy.startsWith(`${projectRoot}/`));
  return [...report.load, ...report.bundles, ...byExplicit, ...report.untrusted].filter((entry) => entry.source === "project" && entry.loaded.kind !== "theme");
}
