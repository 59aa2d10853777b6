/**
 * The top-level `type`, `id` and `name` of a frame line that is too deep to
 * parse (over MAX_JSON_DEPTH): a single linear scan that never builds the
 * nested values, so the drop can say which frame it was (`register_tool
 * frame "deep" dropped`) and a reply that names its request can end that
 * request at once. Only string values of those keys at depth 1 are taken
 * (ids may also be numbers); anything the scan cannot read is left out.
 * Strings longer than 256 characters are not taken.
 */

export interface PeekedFrame {
  readonly type?: string;
  readonly id?: string;
  readonly name?: string;
}

const WANTED = new Set(["type", "id", "name"]);
const MAX_VALUE_CHARS = 256;

/** Index just past the string starting at `start` (a `"`), or -1 when it does not end. */
function skipString(line: string, start: number): number {
  for (let i = start + 1; i < line.length; i++) {
    const char = line.charCodeAt(i);
    if (char === 0x5c) i++;
    else if (char === 0x22) return i + 1;
  }
  return -1;
}

function decodeString(raw: string): string | undefined {
  if (raw.length > MAX_VALUE_CHARS + 2) return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

export function peekTopLevel(line: string): PeekedFrame {
  const found: Record<string, string> = {};
  let depth = 0;
  /** At depth 1: the key just read, waiting for its value. */
  let key: string | undefined;
  let expectKey = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === '"') {
      const end = skipString(line, i);
      if (end === -1) break;
      if (depth === 1) {
        const text = decodeString(line.slice(i, end));
        if (expectKey) {
          key = text;
          expectKey = false;
        } else if (key !== undefined) {
          if (WANTED.has(key) && text !== undefined && found[key] === undefined) found[key] = text;
          key = undefined;
          if (found.type !== undefined && found.id !== undefined && found.name !== undefined) break;
        }
      }
      i = end - 1;
      continue;
    }
    if (char === "{" || char === "[") {
      depth++;
      if (depth === 1) expectKey = char === "{";
      else key = undefined;
    } else if (char === "}" || char === "]") {
      depth--;
      if (depth <= 0) break;
    } else if (depth === 1 && char === ",") {
      expectKey = true;
      key = undefined;
    } else if (depth === 1 && key === "id" && /[-0-9]/.test(char ?? "")) {
      const number = /^-?\d{1,20}/.exec(line.slice(i, i + 21))?.[0];
      if (number !== undefined && found.id === undefined) found.id = number;
      key = undefined;
    }
  }
  return found;
}
