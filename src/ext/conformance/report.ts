/**
 * The result of `zot ext test`: an ordered list of checks (pass, fail, warn,
 * skip, each with a one-line detail) and its two renderings, a doctor-like
 * text report and JSON for CI (`--json`: one object, schema below in
 * `ConformanceReportJson`). A run fails when any check failed; warnings do
 * not fail it.
 */
export type CheckStatus = "pass" | "fail" | "warn" | "skip";

export interface Check {
  readonly check: string;
  readonly status: CheckStatus;
  readonly detail: string;
}

export class ConformanceReport {
  readonly checks: Check[] = [];
  name: string | undefined;
  stderrTail = "";

  constructor(readonly dir: string) {}

  add(check: string, status: CheckStatus, detail: string): void {
    this.checks.push({ check, status, detail });
  }

  pass(check: string, detail: string): void {
    this.add(check, "pass", detail);
  }

  fail(check: string, detail: string): void {
    this.add(check, "fail", detail);
  }

  warn(check: string, detail: string): void {
    this.add(check, "warn", detail);
  }

  skip(check: string, detail: string): void {
    this.add(check, "skip", detail);
  }

  count(status: CheckStatus): number {
    return this.checks.filter((check) => check.status === status).length;
  }

  get ok(): boolean {
    return this.count("fail") === 0;
  }
}

export interface ConformanceReportJson {
  readonly dir: string;
  readonly name: string | null;
  readonly ok: boolean;
  readonly passed: number;
  readonly failed: number;
  readonly warnings: number;
  readonly skipped: number;
  readonly checks: readonly Check[];
  readonly stderr_tail: string;
}

export function reportJson(report: ConformanceReport): ConformanceReportJson {
  return {
    dir: report.dir,
    name: report.name ?? null,
    ok: report.ok,
    passed: report.count("pass"),
    failed: report.count("fail"),
    warnings: report.count("warn"),
    skipped: report.count("skip"),
    checks: report.checks,
    stderr_tail: report.stderrTail,
  };
}

const MARK: Readonly<Record<CheckStatus, string>> = { pass: "✓", fail: "✗", warn: "!", skip: "-" };

export function reportText(report: ConformanceReport): string {
  const lines = [`zot ext test — ${report.name ?? "(unknown)"} in ${report.dir}`, ""];
  for (const check of report.checks) {
    const [first, ...rest] = check.detail.split("\n");
    lines.push(`  ${MARK[check.status]} ${check.check}: ${first}`);
    for (const more of rest) lines.push(`      ${more}`);
  }
  if (!report.ok && report.stderrTail.trim() !== "") {
    lines.push("", "extension stderr (last lines):");
    for (const line of report.stderrTail.trimEnd().split("\n").slice(-20)) lines.push(`  ${line}`);
  }
  const failed = report.count("fail");
  const summary = [`${report.count("pass")} passed`, `${failed} failed`, `${report.count("warn")} warning(s)`, `${report.count("skip")} skipped`].join(", ");
  lines.push("", failed > 0 ? `FAIL: ${summary}` : `ok: ${summary}`);
  return `${lines.join("\n")}\n`;
}
