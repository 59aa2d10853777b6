/**
 * The bridge from discovery to project trust (src/trust): the project-local
 * entries a report would run or load (discovery.ts projectEntries), each
 * with its exec resolved exactly as the host spawns it (process.ts
 * resolveExec), fingerprinted together with ./.zot/mcp.json. Reading only:
 * nothing is spawned.
 */
import type { ZotPaths } from "../common/home.ts";
import { type ExtensionToFingerprint, type ProjectFingerprint, fingerprintProject } from "../trust/fingerprint.ts";
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
