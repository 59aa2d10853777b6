/**
 * Project trust (docs/extensions.md "Project trust"): the store of decisions
 * ($ZOT_HOME/trust.json), the fingerprint of what a project would run and
 * the state that follows from both. Depends on src/common only.
 */
export { HASH_LIMIT_BYTES, compareItems, describeChanges, fingerprintProject, hashFile, mcpConfigFile } from "./fingerprint.ts";
export type { ExtensionToFingerprint, FingerprintItem, ItemChanges, ProjectFingerprint, StoredItem } from "./fingerprint.ts";
export { forgetProject, projectKey, readTrustStore, recordDecision, trustStorePath, updateTrustStore } from "./store.ts";
export type { TrustDecision, TrustEntry, TrustStoreRead } from "./store.ts";
export { itemTrustState, projectTrustStatus, trustedByEnv } from "./state.ts";
export type { ItemTrustState, ProjectTrustState, ProjectTrustStatus } from "./state.ts";
