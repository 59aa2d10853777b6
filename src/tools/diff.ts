/**
 * Compact diff for the `edit` tool, computed only around the edited regions:
 * given the original text and its sorted, non-overlapping replacements, it
 * emits ` ctx` / `-old` / `+new` lines with CONTEXT_LINES of context and `...`
 * between hunks. Cost is linear in the file plus the size of the edited
 * blocks; an LCS is run only inside small edited blocks.
 */

export const CONTEXT_LINES = 3;
/** Edited blocks up to this many old×new line pairs get a line-level LCS. */
const LCS_CELL_LIMIT = 40_000;

export interface Replacement {
  /** Offsets into the original text: [start, end) is replaced by text. */
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export interface CompactDiff {
  readonly text: string;
  /** 1-based line of the first changed line in the original, if anything changed. */
  readonly firstChangedLine: number | undefined;
  readonly added: number;
  readonly removed: number;
}

interface LineChange {
  /** 0-based index of the first removed line (or the insertion point) in the original. */
  readonly oldStart: number;
  readonly removed: readonly string[];
  readonly added: readonly string[];
}

/** Lines of a text; a trailing newline does not start another line. */
function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf("\n", from); at !== -1 && at < to; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

/** Groups replacements that touch the same lines into whole-line blocks and trims unchanged lines. */
function lineChanges(original: string, replacements: readonly Replacement[]): LineChange[] {
  const groups: { lineStart: number; lineEnd: number; members: Replacement[] }[] = [];
  for (const replacement of replacements) {
    const lineStart = original.lastIndexOf("\n", replacement.start - 1) + 1;
    let lineEnd: number;
    if (replacement.end > replacement.start && original[replacement.end - 1] === "\n") lineEnd = replacement.end;
    else {
      const newline = original.indexOf("\n", replacement.end);
      lineEnd = newline === -1 ? original.length : newline + 1;
    }
    const last = groups[groups.length - 1];
    if (last && lineStart < last.lineEnd) {
      last.lineEnd = Math.max(last.lineEnd, lineEnd);
      last.members.push(replacement);
    } else groups.push({ lineStart, lineEnd, members: [replacement] });
  }

  const changes: LineChange[] = [];
  let scanned = 0;
  let lineIndex = 0;
  for (const group of groups) {
    lineIndex += countNewlines(original, scanned, group.lineStart);
    scanned = group.lineStart;
    let rebuilt = "";
    let cursor = group.lineStart;
    for (const member of group.members) {
      rebuilt += original.slice(cursor, member.start) + member.text;
      cursor = member.end;
    }
    rebuilt += original.slice(cursor, group.lineEnd);
    const oldLines = splitLines(original.slice(group.lineStart, group.lineEnd));
    const newLines = splitLines(rebuilt);
    let prefix = 0;
    while (prefix < oldLines.length && prefix < newLines.length && oldLines[prefix] === newLines[prefix]) prefix++;
    let suffix = 0;
    while (
      suffix < oldLines.length - prefix &&
      suffix < newLines.length - prefix &&
      oldLines[oldLines.length - 1 - suffix] === newLines[newLines.length - 1 - suffix]
    )
      suffix++;
    const removed = oldLines.slice(prefix, oldLines.length - suffix);
    const added = newLines.slice(prefix, newLines.length - suffix);
    if (removed.length > 0 || added.length > 0) changes.push({ oldStart: lineIndex + prefix, removed, added });
  }
  return changes;
}

/** `-`/`+` lines for one change, interleaved by a line LCS when the block is small. */
function changeBody(change: LineChange): string[] {
  const { removed, added } = change;
  const n = removed.length;
  const m = added.length;
  if (n === 0 || m === 0 || n * m > LCS_CELL_LIMIT) {
    return [...removed.map((line) => `-${line}`), ...added.map((line) => `+${line}`)];
  }
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] =
        removed[i] === added[j]
          ? (table[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(table[(i + 1) * width + j] ?? 0, table[i * width + j + 1] ?? 0);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (removed[i] === added[j]) {
      out.push(` ${removed[i]}`);
      i++;
      j++;
    } else if ((table[(i + 1) * width + j] ?? 0) >= (table[i * width + j + 1] ?? 0)) out.push(`-${removed[i++]}`);
    else out.push(`+${added[j++]}`);
  }
  while (i < n) out.push(`-${removed[i++]}`);
  while (j < m) out.push(`+${added[j++]}`);
  return out;
}

export function compactDiff(original: string, replacements: readonly Replacement[], context = CONTEXT_LINES): CompactDiff {
  const changes = lineChanges(original, replacements);
  const first = changes[0];
  if (!first) return { text: "(no line changes)", firstChangedLine: undefined, added: 0, removed: 0 };
  const lines = splitLines(original);
  const hunks: LineChange[][] = [];
  let previousEnd = -Infinity;
  for (const change of changes) {
    const windowStart = change.oldStart - context;
    const current = hunks[hunks.length - 1];
    if (current && windowStart <= previousEnd) current.push(change);
    else hunks.push([change]);
    previousEnd = change.oldStart + change.removed.length + context;
  }

  const out: string[] = [];
  let added = 0;
  let removed = 0;
  hunks.forEach((hunk, index) => {
    if (index > 0) out.push("...");
    const head = hunk[0];
    const tail = hunk[hunk.length - 1];
    if (!head || !tail) return;
    let cursor = Math.max(0, head.oldStart - context);
    for (const change of hunk) {
      for (; cursor < change.oldStart; cursor++) out.push(` ${lines[cursor] ?? ""}`);
      for (const line of changeBody(change)) {
        out.push(line);
        if (line.startsWith("+")) added++;
        else if (line.startsWith("-")) removed++;
      }
      cursor = change.oldStart + change.removed.length;
    }
    const end = Math.min(lines.length, tail.oldStart + tail.removed.length + context);
    for (; cursor < end; cursor++) out.push(` ${lines[cursor] ?? ""}`);
  });
  return { text: out.join("\n"), firstChangedLine: first.oldStart + 1, added, removed };
}
