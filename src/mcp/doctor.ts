/**
 * `zot mcp doctor`'s check of configured servers, through the run's own
 * client: an McpManager over the given servers (the same stdio and
 * Streamable HTTP transports, session, protocol version negotiation, tool
 * name rules, schema checks, caps and the one definition budget shared by
 * all servers, charged in the order they become ready, as in a run), so the
 * report is what `zot` would load. Every server given is started, disabled
 * or not (the caller chooses); each is bounded by `timeoutMs` from its start
 * (spawn or first request through tools/list); then every server is closed
 * (stdio: stdin closed, SIGTERM and SIGKILL of its process group; HTTP: the
 * session deleted) before this resolves. A stdio server's stderr goes to its
 * log file as in a run ($ZOT_HOME/logs/mcp-<name>.log); the report of a
 * server that failed carries the last LOG_TAIL_CHARS of that log written
 * since this start. A zot name two servers both load stays with the one
 * that was ready first (as the run's registry keeps it) and is a skipped
 * tool of the other. A server is ok when it became ready with no tool
 * skipped and no other problem. Tool names taken by extensions are not
 * checked (doctor starts no extensions). `reason` is reported as `error`.
 * `signal` (the command's SIGINT/SIGTERM/SIGHUP) closes every server at
 * once: a signal must not leave a server behind (they run in their own
 * process groups, out of reach of the terminal's Ctrl+C).
 */
import { readFileSync } from "node:fs";
import { flushAllLogs } from "../common/log-file.ts";
import { ZOT_SEMVER } from "../common/version.ts";
import type { McpServerConfig } from "./config.ts";
import { McpManager, type McpServerReport } from "./manager.ts";
import type { SkippedTool } from "./tools.ts";

export const LOG_TAIL_CHARS = 2048;

export interface DoctorReport extends Omit<McpServerReport, "reason"> {
  readonly ok: boolean;
  /** Why it is not running (failed to start, initialize or list; exited). */
  readonly error?: string;
  /** stdio servers that failed: the end of their log since this start (stderr and zot's notes). */
  readonly logTail?: string;
}

export interface DoctorOptions {
  readonly logsDir: string;
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Aborted (SIGINT, SIGTERM, SIGHUP): every server is closed at once; those not ready yet are reported as interrupted. */
  readonly signal?: AbortSignal;
}

/** The log text written since the last start of server `name` (stdio-transport.ts writes the marker), its last LOG_TAIL_CHARS. */
function logTail(path: string, name: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const marker = text.lastIndexOf(`[zot] starting mcp server ${name} (`);
  let section = marker === -1 ? text : text.slice(marker);
  if (section.length > LOG_TAIL_CHARS) {
    section = section.slice(-LOG_TAIL_CHARS);
    section = section.slice(section.indexOf("\n") + 1);
  }
  section = section.trim();
  return section === "" ? undefined : section;
}

/** Starts `servers`, reports each by name, and closes them all. Never rejects for a server's failure. */
export async function diagnoseServers(servers: readonly McpServerConfig[], options: DoctorOptions): Promise<Map<string, DoctorReport>> {
  const manager = new McpManager({
    servers: servers.map((server) => ({ ...server, disabled: false })),
    logsDir: options.logsDir,
    cwd: options.cwd,
    clientVersion: ZOT_SEMVER,
    // Everything a run would warn about is in the report.
    warn: () => undefined,
    startTimeoutMs: options.timeoutMs,
  });
  // Taken before shutdown (at the end of the start, or at the interruption): a ready server's state is what a run would have.
  const snapshot = (): { readonly name: string; readonly report: McpServerReport }[] =>
    servers.flatMap((server) => {
      const report = manager.report(server.name);
      return report === undefined ? [] : [{ name: server.name, report }];
    });
  let reports: { readonly name: string; readonly report: McpServerReport }[] | undefined;
  const interrupt = (): void => {
    reports ??= snapshot();
    void manager.shutdown();
  };
  options.signal?.addEventListener("abort", interrupt, { once: true });
  try {
    if (options.signal?.aborted === true) interrupt();
    else await manager.start();
    reports ??= snapshot();
  } finally {
    options.signal?.removeEventListener("abort", interrupt);
    await manager.shutdown();
  }
  const interrupted = options.signal?.aborted === true;
  // The log tails are read once every server is closed and its log written.
  await flushAllLogs();
  const result = new Map<string, DoctorReport>();
  const holders = new Map<string, string>();
  // As the run's registry does: a zot name stays with the server that was ready first.
  const readyFirst = [...reports].sort((a, b) => (a.report.elapsedMs ?? 0) - (b.report.elapsedMs ?? 0));
  const taken = new Map<string, SkippedTool[]>();
  for (const { name, report } of readyFirst) {
    if (report.state !== "ready") continue;
    for (const tool of report.tools) {
      const holder = holders.get(tool);
      if (holder === undefined) holders.set(tool, name);
      else taken.set(name, [...(taken.get(name) ?? []), { tool, reason: `the name is taken by a tool of server ${holder} (ready first); a run would not add it` }]);
    }
  }
  for (const { name, report } of reports) {
    const { reason, ...rest } = report;
    const lost = taken.get(name) ?? [];
    const tools = report.tools.filter((tool) => !lost.some((skipped) => skipped.tool === tool));
    const skipped = [...report.skipped, ...lost];
    const ready = report.state === "ready";
    const ok = ready && skipped.length === 0 && report.problems.length === 0;
    const tail = ready || report.logPath === undefined ? undefined : logTail(report.logPath, name);
    result.set(name, {
      ...rest,
      tools,
      skipped,
      ok,
      ...(!ready ? { error: interrupted ? `interrupted before it was ready${reason === undefined ? "" : ` (${reason})`}` : reason ?? `did not become ready (${report.state})` } : {}),
      ...(tail !== undefined ? { logTail: tail } : {}),
    });
  }
  return result;
}
