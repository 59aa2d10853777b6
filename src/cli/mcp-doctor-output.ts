/**
 * The text report of `zot mcp doctor`: config problems first, then one block
 * per server (ok / loaded with problems / failed / disabled, transport,
 * scope, elapsed time; protocol version, server name and version, the tools
 * loaded by their zot names (the first TOOLS_SHOWN; --json has all), each
 * tool skipped and why, other problems, the error and, for a stdio server
 * that failed, its log file and the end of that log), then a summary line.
 * Never prints header or env values. Output goes through the terminal
 * sanitizer (output.ts writeStdout): it quotes the servers.
 */
import type { DoctorReport } from "../mcp/doctor.ts";

export const TOOLS_SHOWN = 32;

export interface DoctorEntry {
  readonly server: Record<string, unknown>;
  readonly report?: DoctorReport;
  /** Why it was not started: "disabled", or the project-trust reason (mcp-doctor-trust.ts). */
  readonly notStarted?: string;
}

function indent(text: string, prefix: string): string {
  return text.split("\n").map((line) => `${prefix}${line}`).join("\n");
}

/** ` (a, b, …)`: at most TOOLS_SHOWN names; `--json` lists them all. */
function toolList(tools: readonly string[]): string {
  if (tools.length === 0) return "";
  const more = tools.length - TOOLS_SHOWN;
  return ` (${tools.slice(0, TOOLS_SHOWN).join(", ")}${more > 0 ? `, … ${more} more: --json lists all` : ""})`;
}

function status(name: string, report: DoctorReport): string {
  if (report.ok) return `✓ ${name}: ok`;
  return report.error === undefined ? `✗ ${name}: loaded with problems` : `✗ ${name}: failed`;
}

export function renderDoctor(entries: readonly DoctorEntry[], problems: readonly string[]): string {
  const out: string[] = [];
  if (problems.length > 0) {
    out.push(`config problems: ${problems.length}`);
    for (const problem of problems) out.push(`  ✗ ${problem}`);
    out.push("");
  }
  let ok = 0;
  let withProblems = 0;
  let failed = 0;
  for (const { server, report, notStarted } of entries) {
    const where = `${String(server.transport)}, ${String(server.scope)}`;
    if (report === undefined) {
      out.push(`- ${String(server.name)}: not started (${where}): ${notStarted ?? "disabled"}`);
      continue;
    }
    if (report.ok) ok++;
    else if (report.error === undefined) withProblems++;
    else failed++;
    const elapsed = report.elapsedMs === undefined ? "" : `, ${report.elapsedMs} ms`;
    out.push(`${status(String(server.name), report)} (${where}${elapsed})`);
    if (report.protocolVersion !== undefined) out.push(`    protocol: ${report.protocolVersion}`);
    if (report.serverName !== undefined) out.push(`    server: ${report.serverName}${report.serverVersion !== undefined ? ` ${report.serverVersion}` : ""}`);
    if (report.error === undefined) out.push(`    tools: ${report.tools.length}${toolList(report.tools)}`);
    for (const skipped of report.skipped) out.push(`    ✗ skipped ${skipped.tool}: ${skipped.reason}`);
    for (const problem of report.problems) out.push(`    ✗ ${problem}`);
    if (report.error !== undefined) out.push(`    error: ${report.error}`);
    if (report.logTail !== undefined) out.push(`    log: ${String(report.logPath)} (last lines):\n${indent(report.logTail, "      ")}`);
  }
  if (entries.length === 0) out.push("no MCP servers configured");
  else {
    const checked = ok + withProblems + failed;
    out.push("", `${checked} server${checked === 1 ? "" : "s"} checked: ${ok} ok, ${withProblems > 0 ? `${withProblems} with problems, ` : ""}${failed} failed`);
  }
  return `${out.join("\n")}\n`;
}
