/**
 * Reading Streamable HTTP response bodies with bounds (http-transport.ts):
 * `idleWatched` passes a body through and aborts its request when no chunk
 * arrives for `idleMs`; `readJsonMessages` reads an application/json body of
 * at most `maxBytes` bytes (a larger Content-Length or body is an error
 * before the rest is read) and yields the JSON-RPC objects in it (one object
 * or a batch array); `readSseMessages` yields the JSON-RPC object in each SSE
 * event's data (providers/sse.ts parser, lines and events bounded to
 * `maxBytes` characters; events without data, such as priming events, are
 * skipped). Anything that is not a JSON object, or nests deeper than
 * MAX_JSON_DEPTH, throws a BodyProblem.
 */
import { MAX_JSON_DEPTH, describeJsonProblem, parseJson } from "../common/json.ts";
import { parseSse } from "../providers/sse.ts";
import { ProviderError } from "../providers/types.ts";
import type { JsonRpcMessage } from "./transport.ts";

/** A body that broke a bound or the format; the message says which. */
export class BodyProblem extends Error {}

/** "16 MiB", "1000 bytes". */
export function bytesText(count: number): string {
  const mi = 1024 * 1024;
  return count % mi === 0 ? `${count / mi} MiB` : `${count} bytes`;
}

/** `body`, aborting `abort` when no chunk comes for `idleMs` (the timer runs only while the reader waits). */
export function idleWatched(body: ReadableStream<Uint8Array>, idleMs: number, onIdle: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const timer = setTimeout(onIdle, idleMs);
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } finally {
        clearTimeout(timer);
      }
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => undefined);
    },
  });
}

function toMessages(value: unknown, where: string): JsonRpcMessage[] {
  const items = Array.isArray(value) ? value : [value];
  for (const item of items) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) throw new BodyProblem(`${where} is not a JSON-RPC object`);
  }
  return items as JsonRpcMessage[];
}

function parseMessages(text: string, where: string): JsonRpcMessage[] {
  const parsed = parseJson(text, MAX_JSON_DEPTH);
  if (!parsed.ok) throw new BodyProblem(`${where} is not valid JSON (${describeJsonProblem(parsed.problem)})`);
  return toMessages(parsed.value, where);
}

export async function readJsonMessages(response: Response, maxBytes: number): Promise<JsonRpcMessage[]> {
  const declared = Number(response.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new BodyProblem(`response of ${declared} bytes is larger than ${bytesText(maxBytes)} (the per-message limit)`);
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) throw new BodyProblem(`response larger than ${bytesText(maxBytes)} (the per-message limit)`);
        parts.push(value);
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
  return parseMessages(new TextDecoder().decode(Buffer.concat(parts)), "response body");
}

export async function* readSseMessages(body: ReadableStream<Uint8Array>, maxBytes: number): AsyncGenerator<JsonRpcMessage, void, undefined> {
  try {
    for await (const event of parseSse(body, { maxLineChars: maxBytes, maxEventChars: maxBytes })) {
      if (event.data.trim() === "") continue;
      for (const message of parseMessages(event.data, "SSE event data")) yield message;
    }
  } catch (err) {
    if (err instanceof BodyProblem) throw err;
    // ProviderError "malformed" / "too_large" from the SSE parser: its message names the bound.
    if (err instanceof ProviderError) throw new BodyProblem(err.message.replace(/^stream /, "SSE "));
    throw err;
  }
}
