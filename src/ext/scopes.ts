/**
 * The two discovery scopes (project ./.zot/extensions and global
 * $ZOT_HOME/extensions) and a cheap synchronous check whether either holds
 * anything discovery would look at. Dependency-free on purpose: modes use it
 * to decide whether to import the extension host at all.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

export function projectExtensionsDir(cwd: string): string {
  return join(cwd, ".zot", "extensions");
}

/** Non-hidden subdirectory (or symlink) names of a scope root; [] when it is missing or unreadable. */
export function scopeEntries(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((entry) => !entry.name.startsWith(".") && (entry.isDirectory() || entry.isSymbolicLink()))
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** Whether discovery could find anything (conservative: may say yes when nothing loads). */
export function mayFindExtensions(options: { cwd: string; globalDir: string; explicit: readonly string[]; noDiscovery: boolean }): boolean {
  if (options.explicit.length > 0) return true;
  if (options.noDiscovery) return false;
  return scopeEntries(projectExtensionsDir(options.cwd)).length > 0 || scopeEntries(options.globalDir).length > 0;
}
