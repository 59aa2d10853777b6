/**
 * A project's trust state, from the store and its current fingerprint:
 * "empty" (nothing project-local would run: nothing to ask), "trusted" /
 * "denied" (the store's decision for exactly this fingerprint), "changed"
 * (a decision exists for another fingerprint: asked again) or "untrusted"
 * (no decision). Per item (for `zot ext list` / `doctor`): trusted, denied,
 * changed (added or changed since the project was last decided), untrusted.
 */
import { compareItems, type ItemChanges, type ProjectFingerprint } from "./fingerprint.ts";
import { projectKey, storedItems, type TrustEntry, type TrustStoreRead } from "./store.ts";

export type ProjectTrustState = "empty" | "trusted" | "denied" | "changed" | "untrusted";
export type ItemTrustState = "trusted" | "denied" | "changed" | "untrusted";

export interface ProjectTrustStatus {
  readonly state: ProjectTrustState;
  /** The canonical project directory (the store's key). */
  readonly dir: string;
  readonly current: ProjectFingerprint;
  /** The stored decision, whichever fingerprint it was for. */
  readonly entry: TrustEntry | undefined;
  /** Since the stored decision (everything is "added" without one). */
  readonly changes: ItemChanges;
}

export function projectTrustStatus(store: TrustStoreRead, dir: string, current: ProjectFingerprint): ProjectTrustStatus {
  const key = projectKey(dir);
  const entry = Object.hasOwn(store.projects, key) ? store.projects[key] : undefined;
  const changes = compareItems(entry?.items ?? [], storedItems(current.items));
  let state: ProjectTrustState;
  if (current.items.length === 0) state = "empty";
  else if (entry === undefined) state = "untrusted";
  else if (entry.fingerprint === current.fingerprint) state = entry.decision;
  else state = "changed";
  return { state, dir: key, current, entry, changes };
}

export function itemTrustState(status: ProjectTrustStatus, name: string): ItemTrustState {
  switch (status.state) {
    case "trusted":
    case "empty":
      return "trusted";
    case "denied":
      return "denied";
    case "untrusted":
      return "untrusted";
    case "changed":
      return status.changes.added.includes(name) || status.changes.changed.includes(name) ? "changed" : "untrusted";
  }
}

/** ZOT_TRUST=1 (or "true"/"yes"): every project is trusted for this run (CI images that build their own checkout). */
export function trustedByEnv(env: Readonly<Record<string, string | undefined>>): boolean {
  return /^(1|true|yes)$/i.test(env.ZOT_TRUST ?? "");
}
