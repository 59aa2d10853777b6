/**
 * JSON that comes from outside (model output, extension frames, manifests,
 * session lines, config files, RPC input) enters through parseJson, which
 * bounds nesting before anything walks the value: JSON.parse itself copes
 * with any depth, but JSON.stringify, valibot and every recursive walk
 * overflow the stack on a value nested 100,000 levels deep. A document may
 * nest MAX_JSON_DEPTH containers; a value embedded in another document (tool
 * arguments, tool schemas) MAX_VALUE_DEPTH, so that the envelope around it
 * always fits. Errors are values, never throws. Depth counts containers:
 * `1` is 0, `{}` and `[]` are 1, `[[1]]` is 2.
 */

/** Deepest nesting accepted for a whole document (a frame, an SSE event, a session line, a file). */
export const MAX_JSON_DEPTH = 256;
/** Deepest nesting accepted for a value carried inside a document (tool arguments, JSON Schemas). */
export const MAX_VALUE_DEPTH = 128;

export type JsonProblem =
  | { readonly kind: "syntax"; readonly message: string }
  | { readonly kind: "too_deep"; readonly limit: number };

export type JsonParse = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: JsonProblem };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** True when `text` holds at most `limit` of `{` and `[` in all (strings included): it cannot nest deeper. */
function fewOpenings(text: string, limit: number): boolean {
  let count = 0;
  for (let at = text.indexOf("{"); at !== -1; at = text.indexOf("{", at + 1)) if (++count > limit) return false;
  for (let at = text.indexOf("["); at !== -1; at = text.indexOf("[", at + 1)) if (++count > limit) return false;
  return true;
}

/**
 * True when `text`, read as JSON, opens more than `limit` nested containers.
 * A linear scan that skips string contents; it does not validate syntax.
 * Most texts (an SSE event, a frame) hold fewer brackets than the limit:
 * counting them with indexOf settles those at a third of the scan's cost.
 */
export function jsonTextTooDeep(text: string, limit: number): boolean {
  // Fewer characters, or fewer brackets, than the limit cannot open more containers than it.
  if (text.length <= limit || fewOpenings(text, limit)) return false;
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      // Jump to the closing quote: the next quote not escaped by an odd run of backslashes.
      for (;;) {
        const next = text.indexOf('"', i + 1);
        if (next === -1) return false;
        let backslashes = 0;
        while (text.charCodeAt(next - 1 - backslashes) === BACKSLASH) backslashes++;
        i = next;
        if (backslashes % 2 === 0) break;
      }
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** Parses JSON text with a nesting bound. */
export function parseJson(text: string, maxDepth: number = MAX_JSON_DEPTH): JsonParse {
  if (jsonTextTooDeep(text, maxDepth)) return { ok: false, problem: { kind: "too_deep", limit: maxDepth } };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, problem: { kind: "syntax", message: err instanceof Error ? err.message : String(err) } };
  }
}

/** One line for a parse problem: "nested deeper than 256 levels" or the parser's message. */
export function describeJsonProblem(problem: JsonProblem): string {
  return problem.kind === "too_deep" ? `JSON nested deeper than ${problem.limit} levels` : problem.message;
}

/**
 * True when an in-memory value nests more than `limit` containers. Iterative
 * (an explicit stack), so it is safe on values of any depth; it stops at the
 * first container past the limit.
 */
export function valueTooDeep(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== "object") return false;
  const stack: { readonly value: object; readonly depth: number }[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (child !== null && typeof child === "object") stack.push({ value: child as object, depth: depth + 1 });
    }
  }
  return false;
}

/** A JSON object (not null, not an array): what a parsed value must be before its fields are read. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
