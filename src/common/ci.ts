/**
 * Whether this run is in a CI system: one of the variables CI systems set
 * (CI_VARIABLES) has a value other than "", "0" or "false" (any case,
 * trimmed). Print mode shows no progress line there (modes/print-progress.ts)
 * and the chat screen never looks for a newer release (upgrade/update-check.ts).
 */
export const CI_VARIABLES = ["CI", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TF_BUILD", "JENKINS_URL", "TEAMCITY_VERSION"] as const;

export function inCi(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return CI_VARIABLES.some((name) => {
    const value = (env[name] ?? "").trim().toLowerCase();
    return value !== "" && value !== "0" && value !== "false";
  });
}
