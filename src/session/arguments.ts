/**
 * Tool-call arguments in session files. In memory (providers/types.ts) they
 * are the raw JSON text the model produced; in the file they are a JSON
 * object, as the original zot writes them, so that either zot can resume the
 * other's sessions. Writing: text that is not a JSON object (invalid JSON, an
 * array or scalar, or nested deeper than MAX_VALUE_DEPTH) is stored as {}.
 * Reading accepts both forms: an object (or any JSON value) is turned back
 * into text, a string (written by earlier versions of this zot) is kept; either one nested
 * deeper than MAX_VALUE_DEPTH becomes "{}" and is reported as replaced, so
 * nothing downstream ever walks an unbounded value.
 */
import { jsonTextTooDeep, MAX_VALUE_DEPTH, parseJson, valueTooDeep, isPlainObject } from "../common/json.ts";

/** The value written to the file for the argument text `text`. */
export function argumentsForFile(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  const parsed = parseJson(text, MAX_VALUE_DEPTH);
  return parsed.ok && isPlainObject(parsed.value) ? parsed.value : {};
}

export interface ArgumentsRead {
  readonly text: string;
  /** True when the stored value was nested too deep and replaced by "{}". */
  readonly replaced: boolean;
}

/** The in-memory argument text for a value read from a file (object or legacy string). */
export function argumentsFromFile(value: unknown): ArgumentsRead {
  if (typeof value === "string") {
    return jsonTextTooDeep(value, MAX_VALUE_DEPTH) ? { text: "{}", replaced: true } : { text: value, replaced: false };
  }
  if (value === undefined || value === null) return { text: "{}", replaced: false };
  if (valueTooDeep(value, MAX_VALUE_DEPTH)) return { text: "{}", replaced: true };
  return { text: JSON.stringify(value), replaced: false };
}
