/**
 * `/session tree` (the original zot's): this directory's sessions as a tree
 * linked by meta `parent` (a fork's source), for the help overlay. A session
 * whose parent is not in the directory is a root; roots and siblings are
 * ordered by start time; the current session is marked. Each session
 * appears once (a parent loop is cut). Pure: lines from summaries.
 */
import { localTime, sessionLabel, type SessionSummary } from "../../session/index.ts";

function line(session: SessionSummary, depth: number, currentPath: string | undefined): string {
  const indent = depth === 0 ? "" : `${"   ".repeat(depth - 1)}└─ `;
  const count = `${session.messageCount} msg${session.messageCount === 1 ? "" : "s"}`;
  const current = session.path === currentPath ? "  (current)" : "";
  return `  ${indent}${session.id.slice(0, 8)}  ${localTime(session.mtime)}  ${count}  ${sessionLabel(session)}${current}`;
}

export function sessionTreeLines(sessions: readonly SessionSummary[], currentPath: string | undefined): string[] {
  const ids = new Set(sessions.map((session) => session.id));
  const byStart = [...sessions].sort((a, b) => a.started.localeCompare(b.started));
  const children = new Map<string, SessionSummary[]>();
  for (const session of byStart) {
    if (session.parent === undefined || !ids.has(session.parent)) continue;
    const siblings = children.get(session.parent);
    if (siblings === undefined) children.set(session.parent, [session]);
    else siblings.push(session);
  }
  const lines: string[] = [];
  const shown = new Set<string>();
  const visit = (session: SessionSummary, depth: number): void => {
    if (shown.has(session.path)) return;
    shown.add(session.path);
    lines.push(line(session, depth, currentPath));
    for (const child of children.get(session.id) ?? []) visit(child, depth + 1);
  };
  for (const session of byStart) if (session.parent === undefined || !ids.has(session.parent)) visit(session, 0);
  // Sessions only reachable through a parent loop.
  for (const session of byStart) visit(session, 0);
  return lines;
}
