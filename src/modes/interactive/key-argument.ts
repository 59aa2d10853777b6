/**
 * The key argument of a tool call (`"command": "npm te…`) read from its
 * argument JSON while it streams in, for the card's title. Each delta costs
 * work in proportion to the delta plus a bounded amount, not to everything
 * received so far (the card used to re-parse it all per delta): the
 * search for the key resumes where the previous one stopped (with a small
 * overlap for a key split across deltas), and once the key's value has
 * started only its first PREVIEW_MAX_CHARS characters are ever read (a
 * title shows no more); when the value's closing quote has arrived, or that
 * many characters have, the preview is final. The keys and the decoding
 * (JSON string escapes; a value cut inside an escape shows raw) are the
 * ones the chat screen has always used; the complete call's parsed
 * arguments replace this preview (ToolCard.started).
 */

const KEY = /"(command|path|file_path|url|query|name)"\s*:\s*"/g;
/** Enough to find `"file_path" : "` again when a delta boundary cut it. */
const KEY_OVERLAP = 32;
export const PREVIEW_MAX_CHARS = 1024;

function decodeJsonStringPrefix(raw: string): string {
  try {
    return JSON.parse(`"${raw.replace(/\\$/, "")}"`) as string;
  } catch {
    return raw;
  }
}

export class KeyArgumentScanner {
  #searchedTo = 0;
  #valueStart: number | undefined;
  #preview: string | undefined;
  #final = false;

  /** The preview for `raw` (every delta so far, joined), or undefined while no key argument has started. */
  update(raw: string): string | undefined {
    if (this.#final) return this.#preview;
    if (this.#valueStart === undefined) {
      KEY.lastIndex = Math.max(0, this.#searchedTo - KEY_OVERLAP);
      const match = KEY.exec(raw);
      this.#searchedTo = raw.length;
      if (match === null) return undefined;
      this.#valueStart = match.index + match[0].length;
    }
    const limit = Math.min(raw.length, this.#valueStart + PREVIEW_MAX_CHARS);
    let end = this.#valueStart;
    while (end < limit && raw[end] !== '"') {
      if (raw[end] !== "\\") end += 1;
      else if (end + 1 < raw.length) end += 2;
      else break; // an escape cut by the delta boundary: read again with the next delta
    }
    const closed = end < raw.length && raw[end] === '"';
    this.#preview = decodeJsonStringPrefix(raw.slice(this.#valueStart, Math.min(end, limit)));
    this.#final = closed || limit === this.#valueStart + PREVIEW_MAX_CHARS;
    return this.#preview;
  }
}
