/**
 * The bridge from discovery to project trust (src/trust): the project-local
 * entries a report would run or load (discovery.ts projectEntries), each
 * with its exec resolved exactly as the host spawns it (process.ts
 * resolveExec), fingerprinted together with ./.zot/mcp.json. Reading only:
 * nothing is spawned. currentProjectTrust: the project's state against the
 * store (for `zot ext list` and `doctor`).
 */
import type { ZotPaths } from "../common/home.ts";
import { type ExtensionToFingerprint, type ProjectFingerprint, fingerprintProject } from "../trust/fingerprint.ts";
import { type ProjectTrustStatus, projectTrustStatus } from "../trust/state.ts";
import { type TrustStoreRead, readTrustStore, trustStorePath } from "../trust/store.ts";
import { errorMessage } from "../common/errors.ts";
import { type DiscoveredExtension, type DiscoveryReport, discoverExtensions, projectEntries } from "./discovery.ts";
import { resolveExec } from "./process.ts";

export function fingerprintInput(entry: DiscoveredExtension): ExtensionToFingerprint {
  const { manifest, dir, path } = entry.loaded;
  const resolved = manifest.exec === undefined ? undefined : resolveExec(manifest.exec, dir);
  return {
    name: manifest.name,
    dir,
    manifestPath: path,
    ...(manifest.exec !== undefined ? { exec: manifest.exec } : {}),
    ...(resolved?.ok === true ? { execPath: resolved.path } : {}),
    args: entry.loaded.kind === "process" ? (manifest.args ?? []) : [],
    ...(manifest.language !== undefined ? { language: manifest.language } : {}),
  };
}

/** The fingerprint of the project entries of `report` (discovered for `cwd`) and of ./.zot/mcp.json. */
export function reportFingerprint(cwd: string, report: DiscoveryReport): ProjectFingerprint {
  return fingerprintProject(cwd, projectEntries(report, cwd).map(fingerprintInput));
}

/** Discovery of `cwd` as a plain run would see it (no --ext paths): for `zot trust`, `ext list` and MCP's decision. */
export function discoverProject(cwd: string, paths: ZotPaths): Promise<DiscoveryReport> {
  return discoverExtensions({ cwd, paths, explicit: [], noDiscovery: false });
}

/** The trust state of the project at `cwd` now (store read, fingerprint computed), with the store's warning if any. */
export async function currentProjectTrust(cwd: string, paths: ZotPaths, report?: DiscoveryReport): Promise<{ status: ProjectTrustStatus; warning?: string }> {
  const file = trustStorePath(paths.home);
  let store: TrustStoreRead;
  try {
    store = readTrustStore(file);
  } catch (err) {
    store = { projects: {}, text: undefined, warning: `${errorMessage(err)}; treated as nothing trusted` };
  }
  const status = projectTrustStatus(store, cwd, reportFingerprint(cwd, report ?? (await discoverProject(cwd, paths))));
  return store.warning === undefined ? { status } : { status, warning: store.warning };
}
