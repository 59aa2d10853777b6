/**
 * Error responses of the model APIs as one line: `readCapped` reads at most
 * ERROR_BODY_LIMIT_BYTES (4 KiB) of a body, `describeErrorBody` extracts the
 * provider's own "type: message" (Anthropic, OpenAI and most look-alikes;
 * the raw text otherwise), `httpErrorLine` gives `<label>: http <status>:
 * <detail>` — the original zot's `<name>: http <code>: <body>`, so what
 * scripts grep for (`http 429`) is there, with the body's own "type:
 * message" instead of its raw JSON — whitespace collapsed, at most 500
 * characters. `credentialsOf` / `redactCredentials`: the request's own
 * credentials (API key headers, bearer tokens) never reach an error line,
 * even when a server or proxy echoes them back in its error body.
 */
import * as v from "valibot";
import { parseJson } from "../common/json.ts";

export const ERROR_BODY_LIMIT_BYTES = 4096;

export async function readCapped(body: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  while (size < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.byteLength;
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

/** Header names whose value is (or carries) a credential. */
const CREDENTIAL_HEADERS = new Set(["x-api-key", "api-key", "authorization", "proxy-authorization", "x-goog-api-key"]);
/** Shorter values are not treated as secrets (the literal "ollama" key, test stand-ins): replacing them would mangle ordinary text. */
const MIN_SECRET_CHARS = 8;
export const REDACTED = "[redacted]";

/** The credentials a request sends: the values of its key headers, without an auth scheme such as `Bearer `. */
export function credentialsOf(headers: Readonly<Record<string, string>>): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!CREDENTIAL_HEADERS.has(name.toLowerCase())) continue;
    const secret = value.replace(/^(?:bearer|basic|token)\s+/i, "").trim();
    if (secret.length >= MIN_SECRET_CHARS) secrets.push(secret);
  }
  return secrets;
}

/**
 * `text` with every occurrence of each secret replaced by [redacted]; a
 * text that ends in the first characters of a secret (a body cut at its
 * cap mid-key) loses that tail too.
 */
export function redactCredentials(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    out = out.split(secret).join(REDACTED);
    for (let keep = secret.length - 1; keep >= MIN_SECRET_CHARS; keep--) {
      if (out.endsWith(secret.slice(0, keep))) {
        out = `${out.slice(0, out.length - keep)}${REDACTED}`;
        break;
      }
    }
  }
  return out;
}

export function httpErrorLine(label: string, status: number, statusText: string, body: string, secrets: readonly string[] = []): string {
  const detail = oneLine(describeErrorBody(redactCredentials(body, secrets))) || statusText || "request failed";
  return `${label}: http ${status}: ${detail}`;
}
