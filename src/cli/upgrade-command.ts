/**
 * `zot upgrade [--check] [--version V]`: replaces this zot executable with
 * the latest release (or version V) for this machine (src/upgrade: sha256
 * checked against release.json and SHA256SUMS, the new binary must answer
 * --version before and after the swap, the old one is kept as <zot>.old
 * until then). --check only compares versions. Results go to stdout,
 * progress to stderr. Exit codes: 0 upgraded, already up to date, or
 * --check answered (whether or not a newer release exists); 1 failure
 * (nothing was changed); 2 usage. zot never runs this on its own.
 */
import { UsageError } from "../common/errors.ts";
import { ZOT_RELEASE_TARGET, ZOT_SEMVER, ZOT_VERSION } from "../common/version.ts";
import { checkForUpgrade, DEFAULT_RELEASE_URL, performUpgrade, VERSIONED_RELEASE_URL_PREFIX, type UpgradeContext } from "../upgrade/index.ts";
import { describeFailure, writeStderr, writeStdout } from "./output.ts";

export const UPGRADE_HELP = `usage: zot upgrade [--check] [--version V]

Replaces this zot executable with the latest release (or version V) for
this machine. The download's sha256 must match the release's release.json
and SHA256SUMS, and the new binary must answer --version with the release's
version; the old executable is kept as <zot>.old until then, and put back
if the new one fails. Nothing changes unless every check passed.

  --check       print the installed and the latest version, change nothing
                (exit 0 either way: "up to date" or "X is available")
  --version V   install version V (older ones too)
  -h, --help    this help

Environment:
  ZOT_RELEASE_URL           the release directory holding release.json,
                            SHA256SUMS and the binaries (default
                            ${DEFAULT_RELEASE_URL};
                            --version V there reads ${VERSIONED_RELEASE_URL_PREFIX}vV)
  ZOT_UPGRADE_IDLE_TIMEOUT  seconds without data before a download gives up (default 30)

Exit codes: 0 upgraded or already up to date, 1 failure, 2 usage.
`;

interface UpgradeArgs {
  readonly help: boolean;
  readonly check: boolean;
  readonly version: string | undefined;
}

function parseArgs(args: readonly string[]): UpgradeArgs {
  let help = false;
  let check = false;
  let version: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "-h" || arg === "--help") help = true;
    else if (arg === "--check") check = true;
    else if (arg === "--version" || arg.startsWith("--version=")) {
      const value = arg === "--version" ? args[++i] : arg.slice("--version=".length);
      if (value === undefined || value === "") throw new UsageError("upgrade: --version needs a version, e.g. --version 0.2.0");
      if (!/^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$/.test(value)) throw new UsageError(`upgrade: "${value}" is not a version like 0.2.0`, { flag: "--version" });
      version = value.replace(/^v/, "");
    } else if (arg.startsWith("-")) throw new UsageError(`upgrade: unknown flag "${arg}"`, { flag: arg });
    else throw new UsageError(`upgrade: unexpected argument "${arg}"`);
  }
  if (check && version !== undefined) throw new UsageError("upgrade: --check and --version do not go together");
  return { help, check, version };
}

function context(): UpgradeContext {
  return {
    env: process.env,
    execPath: process.execPath,
    platform: process.platform,
    arch: process.arch,
    currentVersion: ZOT_SEMVER,
    fromSource: ZOT_VERSION.endsWith("-dev"),
    releaseTarget: ZOT_RELEASE_TARGET,
    note: (line) => void writeStderr(`zot upgrade: ${line}\n`),
  };
}

export async function runUpgradeCli(args: readonly string[]): Promise<number> {
  let parsed: UpgradeArgs;
  try {
    parsed = parseArgs(args);
  } catch (err) {
    const failure = describeFailure(err, "run 'zot upgrade --help' for usage");
    await writeStderr(failure.text);
    return failure.exitCode;
  }
  if (parsed.help) {
    await writeStdout(UPGRADE_HELP);
    return 0;
  }
  const ctx = context();
  if (parsed.check) {
    const check = await checkForUpgrade(ctx);
    if (check.newer) await writeStdout(`zot ${check.latest} is available (installed: ${check.current}); run zot upgrade\n`);
    else if (check.latest === check.current) await writeStdout(`zot ${check.current} is up to date (latest release: ${check.latest})\n`);
    else await writeStdout(`zot ${check.current} is up to date (newer than the latest release, ${check.latest})\n`);
    return 0;
  }
  const outcome = await performUpgrade(ctx, parsed.version);
  if (outcome.kind === "up_to_date") await writeStdout(`zot ${outcome.version} is already up to date (latest release: ${outcome.latest})\n`);
  else await writeStdout(`upgraded zot ${outcome.from} -> ${outcome.to} (${outcome.path})\n`);
  return 0;
}
