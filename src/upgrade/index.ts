/** `zot upgrade`: release lookup, verified download and the executable swap (upgrade.ts); the release table and URLs. */
export { checkForUpgrade, performUpgrade, thisTarget, IDLE_MS, MAX_BINARY_BYTES, MAX_MANIFEST_BYTES, type UpgradeContext, type UpgradeOutcome } from "./upgrade.ts";
export { DEFAULT_RELEASE_URL, VERSIONED_RELEASE_URL_PREFIX, releaseBaseUrl } from "./release-url.ts";
export { RELEASE_TARGETS, findTarget, targetFor, type ReleaseTarget } from "./targets.ts";
export { compareVersions } from "./versions.ts";
