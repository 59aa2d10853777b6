/**
 * Error responses of the model APIs as one line: `readCapped` reads at most
 * ERROR_BODY_LIMIT_BYTES (4 KiB) of a body (within `waitMs` when given), `describeErrorBody` extracts the
 * provider's own "type: message" (Anthropic, OpenAI and most look-alikes;
 * the raw text otherwise), `httpErrorLine` gives `<label>: http <status>:
 * <detail>` — the original zot's `<name>: http <code>: <body>`, so what
 * scripts grep for (`http 429`) is there, with the body's own "type:
 * message" instead of its raw JSON — whitespace collapsed, at most 500
 * characters; `withoutSecrets` blanks the API key the request sent, should
 * a server echo it. `notHttpUrl` says why a request URL is not an http(s) one.
 * `redirectLine` words a 3xx that zot does not follow (both
 * addresses without user:password, the target at most 200 characters).
 */
import * as v from "valibot";
import { parseJson } from "../common/json.ts";

export const ERROR_BODY_LIMIT_BYTES = 4096;

/** How long an error body may take to arrive; what came by then is used (a server that sends the status and then trickles must not hold each retry for the idle timeout). */
export const ERROR_BODY_WAIT_MS = 5000;

export async function readCapped(body: ReadableStream<Uint8Array>, limit: number, waitMs?: number): Promise<string> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  // Cancelling the reader ends a pending read as done: the loop stops with what it has.
  const timer = waitMs === undefined ? undefined : setTimeout(() => void reader.cancel().catch(() => undefined), waitMs);
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.byteLength;
    }
  } finally {
    clearTimeout(timer);
  }
  await reader.cancel().catch(() => undefined);
  const joined = new Uint8Array(Math.min(size, limit));
  let offset = 0;
  for (const part of parts) {
    const take = part.subarray(0, joined.length - offset);
    joined.set(take, offset);
    offset += take.length;
    if (offset >= joined.length) break;
  }
  return new TextDecoder().decode(joined);
}

const ErrorObjectSchema = v.looseObject({
  type: v.optional(v.unknown()),
  code: v.optional(v.unknown()),
  message: v.optional(v.unknown()),
});
const ErrorBodySchema = v.looseObject({
  error: v.optional(v.union([v.string(), ErrorObjectSchema])),
  message: v.optional(v.unknown()),
  detail: v.optional(v.unknown()),
});

function asText(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim() !== "") return value;
  if (typeof value === "number") return String(value);
  return undefined;
}

/** The provider's own "type: message" from an error body (Anthropic, OpenAI and most look-alikes). */
export function describeErrorBody(body: string): string {
  const trimmed = body.trim();
  if (trimmed === "") return "";
  const parsed = parseJson(trimmed);
  if (!parsed.ok) return trimmed;
  const result = v.safeParse(ErrorBodySchema, parsed.value);
  if (!result.success) return trimmed;
  const { error, message, detail } = result.output;
  if (typeof error === "string") return error;
  if (error) {
    const kind = asText(error.type) ?? asText(error.code);
    const text = asText(error.message);
    if (kind && text) return `${kind}: ${text}`;
    if (text || kind) return (text ?? kind) as string;
  }
  return asText(message) ?? asText(detail) ?? trimmed;
}

/** Collapses whitespace so the line stays one line, and bounds its length. */
export function oneLine(text: string, max = 500): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function httpErrorLine(label: string, status: number, statusText: string, body: string): string {
  const detail = oneLine(describeErrorBody(body)) || statusText || "request failed";
  return `${label}: http ${status}: ${detail}`;
}

/** The URL as shown in messages: without user:password (unparseable text is returned as it is). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString();
  } catch {
    return url;
  }
}

/** `<label>: http 307: redirect not followed (<url> → <location>); …` for a 3xx response, else undefined. */
export function redirectLine(label: string, response: Response, url: string): string | undefined {
  if (response.status < 300 || response.status > 399) return undefined;
  const location = response.headers.get("location");
  let target = "no location given";
  if (location !== null) {
    let resolved = location;
    try {
      resolved = new URL(location, url).toString();
    } catch {
      // An unparseable Location is shown as sent.
    }
    target = oneLine(displayUrl(resolved), 200);
  }
  return `${label}: http ${response.status}: redirect not followed (${displayUrl(url)} → ${target}); set the base URL to the final address (zot never sends the API key on to a redirect target)`;
}

/** Why `url` cannot be a model endpoint (not a URL, or not http/https), or undefined when it can. */
export function notHttpUrl(url: string): string | undefined {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return `${oneLine(displayUrl(url), 200)} is not a URL (set --base-url, or the model's baseUrl in models.json, to an http:// or https:// address)`;
  }
  if (protocol === "http:" || protocol === "https:") return undefined;
  // "localhost:11434" parses with the scheme "localhost:".
  const guess = url.includes("://") ? "" : `did you mean http://${oneLine(url, 200)}? `;
  return `${oneLine(displayUrl(url), 200)} is not an http:// or https:// URL (${guess}set --base-url, or the model's baseUrl in models.json, to one)`;
}

/** Header values that carry a credential (the API key of x-api-key, or of Authorization after its scheme). */
function secretsOf(headers: Readonly<Record<string, string>>): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === "x-api-key" || lower === "api-key") secrets.push(value.trim());
    else if (lower === "authorization") secrets.push(value.replace(/^\s*\S+\s+/, "").trim());
  }
  // Too short to be a key ("ollama" is a made-up one): replacing it would mangle ordinary words.
  return secrets.filter((secret) => secret.length >= 8);
}

/** `line` with every credential sent in `headers` replaced by "[API key]" (a server that echoes the key must not put it in a terminal or a CI log). */
export function withoutSecrets(line: string, headers: Readonly<Record<string, string>>): string {
  let out = line;
  for (const secret of secretsOf(headers)) out = out.split(secret).join("[API key]");
  return out;
}
