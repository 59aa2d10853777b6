/**
 * The text report of `zot mcp doctor`: config problems first, then one block
 * per server (ok / failed / disabled, transport, scope, elapsed time;
 * protocol version, server name and version, the tools; problems, the error
 * and the tail of a stdio server's stderr), then a summary line. Never
 * prints header or env values. Output goes through the terminal sanitizer
 * (output.ts writeStdout): it quotes the servers.
 */
import type { ProbeReport } from "../mcp/doctor.ts";

export interface DoctorEntry {
  readonly server: Record<string, unknown>;
  readonly report?: ProbeReport;
}

function indent(text: string, prefix: string): string {
  return text.split("\n").map((line) => `${prefix}${line}`).join("\n");
}

export function renderDoctor(entries: readonly DoctorEntry[], problems: readonly string[]): string {
  const out: string[] = [];
  if (problems.length > 0) {
    out.push(`config problems: ${problems.length}`);
    for (const problem of problems) out.push(`  ✗ ${problem}`);
    out.push("");
  }
  let ok = 0;
  let failed = 0;
  for (const { server, report } of entries) {
    const where = `${String(server.transport)}, ${String(server.scope)}`;
    if (report === undefined) {
      out.push(`- ${String(server.name)}: disabled (${where}); not started`);
      continue;
    }
    if (report.ok) ok++;
    else failed++;
    out.push(`${report.ok ? "✓" : "✗"} ${String(server.name)}: ${report.ok ? "ok" : "failed"} (${where}, ${report.elapsedMs} ms)`);
    if (report.protocolVersion !== undefined) out.push(`    protocol: ${report.protocolVersion}`);
    if (report.serverName !== undefined) out.push(`    server: ${report.serverName}${report.serverVersion !== undefined ? ` ${report.serverVersion}` : ""}`);
    if (report.error === undefined || report.tools.length > 0) {
      out.push(`    tools: ${report.tools.length}${report.tools.length > 0 ? ` (${report.tools.join(", ")})` : ""}`);
    }
    for (const problem of report.problems) out.push(`    ✗ ${problem}`);
    if (report.error !== undefined) out.push(`    error: ${report.error}`);
    if (report.stderrTail !== undefined && !report.ok) out.push(`    stderr (last lines):\n${indent(report.stderrTail, "      ")}`);
  }
  if (entries.length === 0) out.push("no MCP servers configured");
  else out.push("", `${ok + failed} server${ok + failed === 1 ? "" : "s"} checked: ${ok} ok, ${failed} failed`);
  return `${out.join("\n")}\n`;
}
