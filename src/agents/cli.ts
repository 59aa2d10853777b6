/**
 * `zot agents`: lists the subagent runs recorded under
 * $ZOT_HOME/agents/runs (runs.ts), newest first, one line each:
 * `<agent_id>  <status>  <started>  <agent or ->  <description>`; `--json`
 * prints the records as one JSON array. Reading records replays no event.
 * Unreadable records are a warning on stderr each. `--help` prints the
 * usage. Exit 0; 2 for an unknown argument.
 */
import { join } from "node:path";
import { zotPaths } from "../common/home.ts";
import { forStdout } from "../common/terminal-text.ts";
import { didYouMean } from "../common/did-you-mean.ts";
import { UsageError } from "../common/errors.ts";
import { listRunRecords } from "./runs.ts";

const AGENTS_HELP = `usage: zot agents [--json]

Lists the subagent runs recorded under $ZOT_HOME/agents/runs, newest first:
agent id, status, start time, agent name and description, one run a line.
--json prints the records as one JSON array. See docs/agents.md.
`;

export async function runAgentsCli(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    await Bun.write(Bun.stdout, AGENTS_HELP);
    return 0;
  }
  const json = argv.includes("--json");
  const unknown = argv.find((arg) => arg !== "--json");
  if (unknown !== undefined) {
    const hint = unknown.startsWith("--") ? didYouMean(unknown.slice(2), ["json", "help"], (name) => `--${name}`) : "";
    throw new UsageError(`zot agents: unknown argument "${unknown}"${hint} (usage: zot agents [--json])`, { argument: unknown });
  }
  const { records, warnings } = listRunRecords(join(zotPaths().home, "agents", "runs"));
  for (const warning of warnings) process.stderr.write(`zot: warning: ${warning}\n`);
  if (json) {
    await Bun.write(Bun.stdout, `${JSON.stringify(records)}\n`);
    return 0;
  }
  const lines = records.map((record) =>
    [record.agent_id, record.status, record.started, record.agent ?? "-", record.description.replace(/\s+/g, " ")].join("  "),
  );
  await Bun.write(Bun.stdout, forStdout(lines.length === 0 ? "no subagent runs\n" : `${lines.join("\n")}\n`));
  return 0;
}
