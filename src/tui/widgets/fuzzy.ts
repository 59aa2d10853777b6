/**
 * Fuzzy matching for popups and pickers. fuzzyScore(query, candidate) is
 * undefined when the query's characters do not all appear in order in the
 * candidate (case-insensitive), else a score where higher is better: a
 * prefix match, matches at word or path-segment starts (after / . _ - space
 * or a lower→upper case change), contiguous runs and a short candidate all
 * score more. An empty query matches everything with score 0. fuzzyFilter
 * keeps the best `limit` items, best first, ties in input order. One pass
 * per candidate, no allocation per character: tens of thousands of paths
 * per keystroke.
 */

const BOUNDARY = new Set(["/", "\\", ".", "_", "-", " ", ":"]);

function isUpper(code: number): boolean {
  return code >= 65 && code <= 90;
}

export function fuzzyScore(query: string, candidate: string): number | undefined {
  if (query === "") return 0;
  if (query.length > candidate.length) return undefined;
  const q = query.toLowerCase();
  const c = candidate.toLowerCase();
  let score = 0;
  let qi = 0;
  let previous = -2;
  for (let ci = 0; ci < c.length && qi < q.length; ci++) {
    if (c.charCodeAt(ci) !== q.charCodeAt(qi)) continue;
    let points = 1;
    const before = ci === 0 ? "" : candidate[ci - 1]!;
    if (ci === 0) points += 8;
    else if (BOUNDARY.has(before)) points += 6;
    else if (isUpper(candidate.charCodeAt(ci)) && !isUpper(candidate.charCodeAt(ci - 1))) points += 5;
    if (previous === ci - 1) points += 4;
    score += points;
    previous = ci;
    qi++;
  }
  if (qi < q.length) return undefined;
  if (c.startsWith(q)) score += 10;
  // The match in the last path segment (the file name) is what people type.
  const slash = Math.max(c.lastIndexOf("/"), c.lastIndexOf("\\"));
  if (slash !== -1 && c.indexOf(q, slash + 1) !== -1) score += 6;
  return score - candidate.length / 100;
}

export function fuzzyFilter<T>(query: string, items: readonly T[], text: (item: T) => string, limit: number): T[] {
  if (limit <= 0) return [];
  if (query === "") return items.slice(0, limit);
  // The best `limit` so far, kept sorted (score desc, index asc).
  const best: { item: T; score: number; index: number }[] = [];
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    const score = fuzzyScore(query, text(item));
    if (score === undefined) continue;
    if (best.length === limit && score <= best[best.length - 1]!.score) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]!.score < score) at--;
    best.splice(at, 0, { item, score, index });
    if (best.length > limit) best.pop();
  }
  return best.map((entry) => entry.item);
}
