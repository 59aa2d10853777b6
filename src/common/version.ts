/**
 * The zot version string. Release builds bake it in with `--define
 * ZOT_BUILD_VERSION=...` (scripts/build.ts); running from source reports the
 * package version with a "-dev" suffix. Release builds (scripts/release.ts)
 * also bake in ZOT_BUILD_TARGET, the release target id ("linux-x64-musl"),
 * which `zot upgrade` downloads again; other builds leave it undefined.
 */
declare const ZOT_BUILD_VERSION: string | undefined;
declare const ZOT_BUILD_TARGET: string | undefined;

export const ZOT_VERSION: string =
  typeof ZOT_BUILD_VERSION === "string" ? ZOT_BUILD_VERSION : "0.1.0-dev";

/** The bare semantic version, without the "(commit, date)" suffix. */
export const ZOT_SEMVER: string = ZOT_VERSION.split(" ")[0] ?? ZOT_VERSION;

/** The release target this binary was built as, or undefined (a local build or a run from source). */
export const ZOT_RELEASE_TARGET: string | undefined = typeof ZOT_BUILD_TARGET === "string" ? ZOT_BUILD_TARGET : undefined;
