/**
 * Tells a 2xx response that is not an event stream from one that is, before
 * the SSE parser sees it (docs/providers.md "Answers that are not an event
 * stream"). `checkEventStream` reads the body's first bytes from its
 * reader: when the first character that is not whitespace (a byte-order mark skipped) is `<`, `{`
 * or `[` (an HTML page of a proxy or captive portal, a JSON body of a
 * server that ignored `stream: true` or reports an error with 200), or the
 * body is empty, it reads up to ERROR_BODY_LIMIT_BYTES (4 KiB) of it,
 * cancels the rest and returns the one-line reason: the content type and
 * what the body says (the provider's "type: message" for JSON, the text
 * without tags for HTML, at most 300 characters). Otherwise it returns the
 * chunks it read (the caller uses them first, then reads on).
 * No SSE stream starts with those characters: a line of an event stream
 * begins with a field name (`data`, `event`, `id`, `retry`) or `:`. Errors
 * of the body's reads propagate unchanged.
 */
import { describeErrorBody, ERROR_BODY_LIMIT_BYTES, oneLine } from "./http-errors.ts";

/** What the caller needs of the body's reader. */
export interface BodyReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}

export type StreamCheck =
  | { readonly ok: true; readonly read: readonly Uint8Array[] }
  | { readonly ok: false; readonly reason: string };

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const BOM = [0xef, 0xbb, 0xbf];
const NOT_SSE_OPENERS = new Set([0x3c, 0x7b, 0x5b]); // < { [

/** Index of the first byte that is neither whitespace nor part of a leading BOM, or -1. */
function firstSignificant(bytes: Uint8Array): number {
  let i = 0;
  if (BOM.every((byte, k) => bytes[k] === byte)) i = BOM.length;
  while (i < bytes.length && WHITESPACE.has(bytes[i] as number)) i++;
  return i < bytes.length ? i : -1;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

function describeBody(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith("<")) return oneLine(describeErrorBody(trimmed), 300);
  const plain = trimmed
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]*>?/g, " ")
    .replace(/&nbsp;/g, " ");
  return oneLine(plain, 300);
}

export async function checkEventStream(reader: BodyReader, contentType: string | null): Promise<StreamCheck> {
  const read: Uint8Array[] = [];
  let size = 0;
  let verdict: "sse" | "not" | undefined;
  let ended = false;
  while (verdict === undefined) {
    const { done, value } = await reader.read();
    if (done || value === undefined) {
      ended = true;
      verdict = "not";
      break;
    }
    read.push(value);
    size += value.byteLength;
    const joined = concat(read);
    const at = firstSignificant(joined);
    if (at !== -1) verdict = NOT_SSE_OPENERS.has(joined[at] as number) ? "not" : "sse";
    // Kilobytes of whitespace and nothing else: let the SSE parser and its bounds judge.
    else if (size >= ERROR_BODY_LIMIT_BYTES) verdict = "sse";
  }
  if (verdict === "sse") return { ok: true, read };
  while (!ended && size < ERROR_BODY_LIMIT_BYTES) {
    const { done, value } = await reader.read();
    if (done || value === undefined) break;
    read.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  const text = new TextDecoder().decode(concat(read).subarray(0, ERROR_BODY_LIMIT_BYTES));
  const type = contentType ? `content-type ${oneLine(contentType, 100)}` : "no content-type";
  const said = describeBody(text);
  return { ok: false, reason: said === "" ? `the body is empty; ${type}` : `${type}: ${said}` };
}
