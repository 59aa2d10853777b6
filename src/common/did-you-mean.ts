/**
 * "Did you mean": the candidates closest to a mistyped word. `closeMatches`
 * compares case-insensitively and returns, best first, the candidates that
 * are either within the edit-distance bound (optimal string alignment
 * distance: insertions, deletions, substitutions and swaps of two adjacent
 * characters each cost 1; the bound is 1 for words of up to 4 characters, 2
 * up to 8, else 3, and always less than the shorter word's length) or that
 * start with the word (at least 3 characters typed) or that the word starts
 * with (`--modelx`). Only the best tier is kept (the fewest edits; prefix
 * matches only when nothing is within the bound), in the candidates' order.
 * An exact match is not a suggestion. `didYouMean` turns
 * the first few into " (did you mean x or y?)" or "" when there is none.
 * Pure functions; nothing happens at import time.
 */

/** Edit distance with adjacent transpositions (optimal string alignment), stopping early past `limit`. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous2: number[] = [];
  let previous: number[] = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current: number[] = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, previous2[j - 2]! + 1);
      current.push(value);
      rowBest = Math.min(rowBest, value);
    }
    if (rowBest > limit) return limit + 1;
    previous2 = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** Most edits a word of this length may be away from a suggestion. */
export function editBound(length: number): number {
  return length <= 4 ? 1 : length <= 8 ? 2 : 3;
}

/** Candidates close to `word`: the best tier (fewest edits, else prefix matches, the closest in length first), in candidate order; at most `limit`. */
export function closeMatches(word: string, candidates: Iterable<string>, limit = 3): string[] {
  const typed = word.toLowerCase();
  if (typed === "") return [];
  const scored: { candidate: string; score: number; order: number }[] = [];
  const seen = new Set<string>();
  let order = 0;
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    if (lower === typed) return [];
    if (seen.has(lower)) continue;
    seen.add(lower);
    order++;
    const bound = Math.min(editBound(Math.max(typed.length, lower.length)), Math.min(typed.length, lower.length) - 1);
    const distance = bound < 1 ? bound + 1 : editDistance(typed, lower, bound);
    if (distance <= bound) scored.push({ candidate, score: distance, order });
    else if ((typed.length >= 3 && lower.startsWith(typed)) || (lower.length >= 3 && typed.startsWith(lower))) {
      scored.push({ candidate, score: 10 + Math.abs(lower.length - typed.length), order });
    }
  }
  scored.sort((x, y) => x.score - y.score || x.order - y.order);
  const best = scored[0]?.score;
  return scored.filter((entry) => entry.score === best).slice(0, limit).map((entry) => entry.candidate);
}

/** " (did you mean a, b or c?)" for the close matches of `word` (each passed through `show`), or "". */
export function didYouMean(word: string, candidates: Iterable<string>, show: (candidate: string) => string = (c) => c, limit = 3): string {
  const matches = closeMatches(word, candidates, limit).map(show);
  if (matches.length === 0) return "";
  const list = matches.length === 1 ? matches[0]! : `${matches.slice(0, -1).join(", ")} or ${matches.at(-1)!}`;
  return ` (did you mean ${list}?)`;
}
