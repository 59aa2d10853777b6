/**
 * ZOT_DEBUG_ANTHROPIC=<file> (the original zot's debugging aid): every
 * Anthropic Messages request body is appended to <file> as one JSON line,
 * the file created 0600 (bodies hold the conversation; the API key travels
 * in a header and is never written). Read per request, so nothing happens
 * at import. A failed write is ignored: it must never fail a model call.
 */
import { appendFileSync } from "node:fs";

export function logAnthropicRequest(body: unknown, env: Readonly<Record<string, string | undefined>> = process.env): void {
  const file = env.ZOT_DEBUG_ANTHROPIC;
  if (!file) return;
  try {
    appendFileSync(file, `${JSON.stringify(body)}\n`, { mode: 0o600 });
  } catch {
    // a debugging aid only
  }
}
