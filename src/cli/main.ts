/**
 * The zot entry point. Routes argv: `zot ext …` to the extension CLI, the
 * version and help flags to instant answers, everything else to a mode. Only
 * what a route needs is imported (the extension host and providers are never
 * loaded for --version or --help). Every failure ends as one `zot: …` line and
 * a non-zero exit code. The exit goes through process.exit, whose "exit"
 * hooks end the process tree a mode started.
 */
import { flushStderr } from "../common/stderr.ts";
import { ZOT_VERSION } from "../common/version.ts";
import { describeFailure, writeStderr, writeStdout } from "./output.ts";

const USAGE_HINT = "run 'zot --help' for usage";

async function run(argv: readonly string[]): Promise<number> {
  const first = argv[0];
  if (first === "--version" || first === "-v") {
    await writeStdout(`zot ${ZOT_VERSION}\n`);
    return 0;
  }
  if (first === "ext") {
    const { runExtCli } = await import("./ext-command.ts");
    return runExtCli(argv.slice(1));
  }
  const { parseMainFlags, mainHelp, checkModes } = await import("./flags.ts");
  const flags = parseMainFlags(first === "rpc" ? ["--rpc", ...argv.slice(1)] : argv);
  if (flags.help) {
    await writeStdout(mainHelp());
    return 0;
  }
  if (flags.version) {
    await writeStdout(`zot ${ZOT_VERSION}\n`);
    return 0;
  }
  checkModes(flags);
  const { runMode } = await import("../modes/index.ts");
  return runMode(flags);
}

async function main(): Promise<void> {
  let exitCode: number;
  try {
    exitCode = await run(process.argv.slice(2));
  } catch (err) {
    const failure = describeFailure(err, USAGE_HINT);
    await writeStderr(failure.text);
    exitCode = failure.exitCode;
  }
  // Queued stderr text goes out first (bounded: a stalled reader is not waited for).
  await flushStderr();
  process.exit(exitCode);
}

await main();
