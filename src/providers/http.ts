/**
 * The one HTTP path every provider streams through. `postStream` POSTs JSON
 * and resolves with a 2xx response whose body is wrapped so that:
 *  - a gap between bytes longer than the stall timeout aborts the request and
 *    raises ProviderError "stalled" (the wait for headers counts too);
 *  - a connection dropped mid-stream raises ProviderError "network";
 *  - the caller's abort surfaces as an AbortError (callers check the signal).
 * Before the stream starts, 502/503/504 and connection failures are retried
 * silently up to twice (250 ms, then 750 ms); an abort is never retried. Any
 * other non-2xx status raises ProviderError "http" with one line naming the
 * status and the provider's own error message (body read up to 4 KiB).
 */
import { systemErrorCode } from "../common/errors.ts";
import { MAX_JSON_DEPTH, parseJson } from "../common/json.ts";
import * as v from "valibot";
import { ProviderError } from "./types.ts";

export const DEFAULT_STALL_TIMEOUT_MS = 120_000;
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [250, 750];
export const ERROR_BODY_LIMIT_BYTES = 4096;
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

export interface PostStreamOptions {
  /** Provider label used in error lines ("anthropic", "openai", ...). */
  readonly label: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly signal: AbortSignal;
  readonly stallTimeoutMs?: number;
  readonly retryDelaysMs?: readonly number[];
}

export interface StreamingResponse {
  readonly status: number;
  readonly body: ReadableStream<Uint8Array>;
}

/** The stall timeout: explicit option, else ZOT_STREAM_IDLE_TIMEOUT_MS, else 120 s. */
export function resolveStallTimeoutMs(
  explicit?: number,
  env: Readonly<Record<string, string | undefined>> = process.env,
): number {
  if (explicit !== undefined && explicit > 0) return explicit;
  const fromEnv = Number(env.ZOT_STREAM_IDLE_TIMEOUT_MS);
  if (Number.isFinite(fromEnv) && fromEnv > 0) return fromEnv;
  return DEFAULT_STALL_TIMEOUT_MS;
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}

function abortError(): Error {
  return new DOMException("The operation was aborted.", "AbortError");
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** One attempt's abort controller, tied to the caller's signal and a restartable stall timer. */
class AttemptControl {
  readonly controller = new AbortController();
  stalled = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly unlink: () => void;

  constructor(
    private readonly outer: AbortSignal,
    private readonly stallMs: number,
  ) {
    const forward = () => this.controller.abort();
    outer.addEventListener("abort", forward, { once: true });
    this.unlink = () => outer.removeEventListener("abort", forward);
  }

  arm(): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.stalled = true;
      this.controller.abort();
    }, this.stallMs);
  }

  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  finish(): void {
    this.disarm();
    this.unlink();
  }

  /** Turns a failure of fetch or of a body read into the error callers see. */
  classify(err: unknown, label: string, phase: "connect" | "stream"): Error {
    if (this.stalled) {
      return new ProviderError("stalled", `${label}: stream stalled: no data for ${this.stallMs} ms`, undefined, {}, { cause: err });
    }
    if (this.outer.aborted) return isAbortError(err) ? (err as Error) : abortError();
    if (err instanceof ProviderError) return err;
    const detail = networkDetail(err);
    const what = phase === "connect" ? "connection failed" : "connection dropped mid-stream";
    return new ProviderError("network", `${label}: ${what}: ${detail}`, undefined, {}, { cause: err });
  }
}

/** One clean line from a fetch/network failure: the system code and Bun's message without its hints. */
function networkDetail(err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "";
  const cleaned = message
    .replace(/\s*For more information, pass `verbose: true`.*$/, "")
    .replace(/\s*Is the computer able to access the url\?$/, "")
    .trim();
  const code = systemErrorCode(err);
  return code && !cleaned.includes(code) ? `${code}: ${cleaned}` : cleaned || code || "network error";
}

export async function postStream(options: PostStreamOptions): Promise<StreamingResponse> {
  const stallMs = resolveStallTimeoutMs(options.stallTimeoutMs);
  const delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const payload = JSON.stringify(options.body);
  for (let attempt = 0; ; attempt++) {
    if (options.signal.aborted) throw abortError();
    const control = new AttemptControl(options.signal, stallMs);
    const canRetry = attempt < delays.length;
    let response: Response;
    control.arm();
    try {
      response = await fetch(options.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", ...options.headers },
        body: payload,
        signal: control.controller.signal,
      });
    } catch (err) {
      control.finish();
      const failure = control.classify(err, options.label, "connect");
      const retryable = failure instanceof ProviderError && failure.kind === "network";
      if (!retryable || !canRetry) throw failure;
      await sleep(delays[attempt] ?? 0, options.signal);
      continue;
    }
    if (response.ok && response.body) {
      return { status: response.status, body: guardBody(response.body, control, options.label) };
    }
    let errorBody: string;
    try {
      errorBody = response.body ? await readCapped(response.body, ERROR_BODY_LIMIT_BYTES) : "";
    } catch (err) {
      errorBody = "";
      if (options.signal.aborted) {
        control.finish();
        throw control.classify(err, options.label, "connect");
      }
    }
    control.finish();
    if (RETRYABLE_STATUSES.has(response.status) && canRetry) {
      await sleep(delays[attempt] ?? 0, options.signal);
      continue;
    }
    throw new ProviderError("http", httpErrorLine(options.label, response.status, response.statusText, errorBody), response.status);
  }
}

/** Re-arms the stall timer around every read and classifies read failures. */
function guardBody(body: ReadableStream<Uint8Array>, control: AttemptControl, label: string): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(out) {
      control.arm();
      try {
        const { done, value } = await reader.read();
        control.disarm();
        if (done) {
          control.finish();
          out.close();
        } else {
          out.enqueue(value);
        }
      } catch (err) {
        control.finish();
        out.error(control.classify(err, label, "stream"));
      }
    },
    async cancel(reason) {
      control.finish();
      await reader.cancel(reason).catch(() => undefined);
    },
  });
}

async function readCapped(body: ReadableStream<Uint8Array>, limit: number): Promise<string> {
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
  const parsed = parseJson(trimmed, MAX_JSON_DEPTH);
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
  return `${label}: ${status} ${detail}`;
}
