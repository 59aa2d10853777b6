/**
 * The zot entry point. Routes argv: `zot ext …` to the extension CLI,
 * `zot mcp …` to the MCP server CLI (mcp-command.ts),
 * `zot login …` / `zot logout …` to the key store (login-command.ts),
 * `zot upgrade …` to the self-upgrade (upgrade-command.ts),
 * `zot trust` / `zot untrust` to the project-trust store (trust-command.ts),
 * `zot agents` to the subagent run listing and the hidden `zot swarm-child`
 * to one subagent run (src/agents), the
 * version and help flags to instant answers (`zot rpc --help` has its own),
 * a lone near miss of a subcommand (`zot upgade`) to a usage error,
 * everything else to a mode. Only
 * what a route needs is imported: `zot --version` loads nothing but the
 * version (not even the output writers), and the extension host and
 * providers are never loaded for --version or --help. Every failure ends as
 * one `zot: …` line and a non-zero exit code. The exit goes through
 * process.exit, whose "exit" hooks end the process tree a mode started.
 */
import { ZOT_VERSION } from "../common/version.ts";

const USAGE_HINT = "run 'zot --help' for usage";

async function run(argv: readonly string[], writeAnswer: (text: string) => Promise<void>): Promise<number> {
  // Every route past --version: a relative ZOT_HOME made absolute for all that zot starts.
  (await import("../common/home.ts")).anchorZotHome();
  const first = argv[0];
  if (first === "ext") {
    const { runExtCli } = await import("./ext-command.ts");
    return runExtCli(argv.slice(1));
  }
  if (first === "mcp") {
    const { runMcpCli } = await import("./mcp-command.ts");
    return runMcpCli(argv.slice(1));
  }
  if (first === "swarm-child") {
    // Hidden: a subagent run for a parent zot (src/agents, modes/swarm-child.ts).
    const { runSwarmChild } = await import("../modes/swarm-child.ts");
    return runSwarmChild();
  }
  if (first === "agents") {
    const { runAgentsCli } = await import("../agents/cli.ts");
    return runAgentsCli(argv.slice(1));
  }
  if (first === "upgrade") {
    const { runUpgradeCli } = await import("./upgrade-command.ts");
    return runUpgradeCli(argv.slice(1));
  }
  if (first === "trust" || first === "untrust") {
    const { runTrustCli } = await import("./trust-command.ts");
    return runTrustCli(first, argv.slice(1));
  }
  if (first === "login" || first === "logout") {
    const { runLoginCli } = await import("./login-command.ts");
    return runLoginCli(first, argv.slice(1));
  }
  const { parseMainFlags, mainHelp, rpcHelp, checkModes, checkSubcommandTypo } = await import("./flags.ts");
  const flags = parseMainFlags(first === "rpc" ? ["--rpc", ...argv.slice(1)] : argv);
  checkSubcommandTypo(argv);
  if (flags.help) {
    await writeAnswer(first === "rpc" ? rpcHelp() : mainHelp());
    return 0;
  }
  if (flags.version) {
    await writeAnswer(`zot ${ZOT_VERSION}\n`);
    return 0;
  }
  checkModes(flags);
  const { runMode } = await import("../modes/index.ts");
  return runMode(flags);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "--version" || argv[0] === "-v") {
    // Before anything else is loaded: output.ts and the writers behind it are a quarter of this run.
    // The text has no control character, so it needs no sanitizing; a stdout that is gone is not an error.
    await Bun.write(Bun.stdout, `zot ${ZOT_VERSION}\n`).catch(() => undefined);
    process.exit(0);
  }
  const [{ describeFailure, writeAnswer, writeStderr }, { flushStdout }, { flushStderr }] = await Promise.all([
    import("./output.ts"),
    import("../common/stdout.ts"),
    import("../common/stderr.ts"),
  ]);
  let exitCode: number;
  try {
    exitCode = await run(argv, writeAnswer);
  } catch (err) {
    const failure = describeFailure(err, USAGE_HINT);
    await writeStderr(failure.text);
    exitCode = failure.exitCode;
  }
  // Queued output goes out first: all of stdout (bounded only after a signal,
  // common/stdout.ts), stderr as long as its reader makes progress.
  await flushStdout();
  await flushStderr();
  process.exit(exitCode);
}

await main();
