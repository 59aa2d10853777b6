/**
 * The body of a model response, decoded from its Content-Encoding by zot
 * instead of by fetch (postStream fetches with `decompress: false`: Bun's own
 * decoder writes "Decompression error: ZlibError" straight to stderr, over
 * the chat screen, and its error read as a dropped connection).
 * `decodedBody` applies `gzip` / `x-gzip`, `deflate`, `br` and `zstd`
 * (several, comma-separated, undone last first); `identity` or no header
 * is the body as it is. An encoding zot does not know, or bytes that do
 * not decode, is ProviderError "malformed" naming the URL and the encoding;
 * a failure of the connection itself is passed on unchanged. Size bounds
 * apply to the decoded bytes (http.ts), so a compression bomb ends at the
 * response cap like any other large answer.
 */
import { displayUrl, oneLine } from "./http-errors.ts";
import { ProviderError } from "./types.ts";

/** DecompressionStream's format names (Bun's: also "brotli" and "zstd"). */
type Format = ConstructorParameters<typeof DecompressionStream>[0];
const FORMATS: Readonly<Record<string, string>> = { gzip: "gzip", "x-gzip": "gzip", deflate: "deflate", br: "brotli", zstd: "zstd" };

function decompressor(coding: string): ReadableWritablePair<Uint8Array, Uint8Array> {
  return new DecompressionStream(FORMATS[coding] as Format) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>;
}

export type Decoded = { readonly ok: true; readonly body: ReadableStream<Uint8Array> } | { readonly ok: false; readonly error: ProviderError };

export function decodedBody(body: ReadableStream<Uint8Array>, contentEncoding: string | null, target: { label: string; url: string }): Decoded {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length === 0) return { ok: true, body };
  const url = displayUrl(target.url);
  const unknown = codings.find((coding) => FORMATS[coding] === undefined);
  if (unknown !== undefined) {
    void body.cancel().catch(() => undefined);
    const message = `${target.label}: the response from ${url} has content-encoding ${oneLine(unknown, 50)}, which zot cannot decode`;
    return { ok: false, error: new ProviderError("malformed", message, undefined, { url }) };
  }
  // Failures of the connection pass through the decoders as they are; anything else is the decoding's.
  let sourceFailure: unknown;
  const sourceReader = body.getReader();
  let decoded: ReadableStream<Uint8Array> = new ReadableStream<Uint8Array>({
    async pull(out) {
      try {
        const { done, value } = await sourceReader.read();
        if (done) out.close();
        else out.enqueue(value);
      } catch (err) {
        sourceFailure = err;
        throw err;
      }
    },
    cancel: (reason) => sourceReader.cancel(reason).catch(() => undefined),
  });
  for (const coding of [...codings].reverse()) decoded = decoded.pipeThrough(decompressor(coding));
  const reader = decoded.getReader();
  const encoding = codings.join(", ");
  return {
    ok: true,
    body: new ReadableStream<Uint8Array>({
      async pull(out) {
        try {
          const { done, value } = await reader.read();
          if (done) out.close();
          else out.enqueue(value);
        } catch (err) {
          if (sourceFailure !== undefined) throw sourceFailure;
          const detail = oneLine(err instanceof Error ? err.message : String(err), 200);
          throw new ProviderError("malformed", `${target.label}: the response from ${url} is not valid ${encoding} (its content-encoding): ${detail}`, undefined, { url }, { cause: err });
        }
      },
      cancel: (reason) => reader.cancel(reason).catch(() => undefined),
    }),
  };
}
