/**
 * The zot version string. Release builds bake it in with `--define
 * ZOT_BUILD_VERSION=...` (scripts/build.ts); running from source reports the
 * package version with a "-dev" suffix.
 */
declare const ZOT_BUILD_VERSION: string | undefined;

export const ZOT_VERSION: string =
  typeof ZOT_BUILD_VERSION === "string" ? ZOT_BUILD_VERSION : "0.1.0-dev";

/** The bare semantic version, without the "(commit, date)" suffix. */
export const ZOT_SEMVER: string = ZOT_VERSION.split(" ")[0] ?? ZOT_VERSION;
