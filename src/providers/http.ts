/**
 * The one HTTP path every provider streams through. `postStream` POSTs JSON
 * and resolves with a 2xx response whose body is wrapped so that
 * (docs/providers.md "Stream limits"):
 *  - no response headers within the idle timeout (120 s, ZOT_STREAM_IDLE_TIMEOUT_MS),
 *    or no SSE event for that long once streaming (the caller reports events
 *    with `sawEvent`; comment lines and partial events do not count), aborts
 *    the request and raises ProviderError "stalled";
 *  - events that carry no model output (pings, empty chunks) keep a stream
 *    alive for at most the keepalive timeout (600 s,
 *    ZOT_STREAM_KEEPALIVE_TIMEOUT_MS; the caller reports output with
 *    `sawOutput`), then "stalled" too;
 *  - more than 256 MiB (ZOT_STREAM_MAX_BYTES) in one response raises
 *    ProviderError "too_large", after the reader has been handed every
 *    byte up to the cap (what streamed before it is never lost);
 *  - a connection dropped mid-stream raises ProviderError "network" naming the URL;
 *  - the caller's abort surfaces as an AbortError (callers check the signal);
 *  - while the caller stops reading for its own reasons (`paused`: zot's
 *    stdout is behind), neither timeout runs.
 * A URL that is not http:// or https:// (fetch would also read file:,
 * data: and s3: URLs) is ProviderError "config" before anything is sent.
 * Before the stream starts, transient statuses and network failures are
 * retried by the policy of retry.ts (each retry announced through `onRetry`
 * before its wait; an abort during the wait ends it at once). Any other
 * non-2xx status, or the last one, raises ProviderError "http" with one line
 * naming the status and the provider's own error message (body read up to
 * 4 KiB, for at most 5 s; the API key blanked should the body echo it; a 404 or 405 also
 * names the URL); a connection failure raises "network" naming the URL
 * (plus the caller's `connectHint`). A 3xx redirect is not followed (the
 * API key would go along to its target, and a 301/302 turns the POST into a GET):
 * ProviderError "http" naming both addresses, not retried. A 2xx whose
 * body is not an event stream (not-sse.ts: an HTML proxy page, a JSON body,
 * nothing) fails its first read with ProviderError "malformed" naming the
 * URL and what came instead.
 */
import { systemErrorCode } from "../common/errors.ts";
import { traceStartupOnce } from "../common/startup-trace.ts";
import { displayUrl, ERROR_BODY_LIMIT_BYTES, ERROR_BODY_WAIT_MS, httpErrorLine, notHttpUrl, readCapped, redirectLine, withoutSecrets } from "./http-errors.ts";

export { displayUrl };
import {
  decideRetry,
  formatDuration,
  isRefusedCode,
  networkReason,
  resolveRetryPolicy,
  retryableStatus,
  serverRetryAfterMs,
  statusReason,
  transientNetworkCode,
  type RetryPolicy,
} from "./retry.ts";
import { Deadline } from "./deadline.ts";
import { checkEventStream, type BodyReader } from "./not-sse.ts";
import { decodedBody } from "./content-encoding.ts";
import { ProviderError, type RetryNotice } from "./types.ts";

export const DEFAULT_STALL_TIMEOUT_MS = 120_000;
export const DEFAULT_KEEPALIVE_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
/** Characters of model output (text, thinking, tool-call arguments) one response may carry. */
export const DEFAULT_MAX_OUTPUT_CHARS = 16 * 1024 * 1024;

export interface PostStreamOptions {
  /** Provider label used in error lines ("anthropic", "openai", ...). */
  readonly label: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly signal: AbortSignal;
  readonly stallTimeoutMs?: number;
  readonly keepaliveTimeoutMs?: number;
  readonly maxResponseBytes?: number;
  /** Overrides of the retry policy (retry.ts); absent fields take the defaults. */
  readonly retry?: Partial<RetryPolicy>;
  /** Told about every retry before its wait starts. */
  readonly onRetry?: (notice: RetryNotice) => void;
  /** Appended to a connection failure ("is an Ollama server running there?"). */
  readonly connectHint?: string;
}

export interface StreamingResponse {
  readonly status: number;
  readonly body: ReadableStream<Uint8Array>;
  /** A complete SSE event arrived: restarts the idle timeout. */
  sawEvent(): void;
  /** The model produced output (text, thinking, tool-call data): restarts the keepalive timeout. */
  sawOutput(): void;
  /**
   * zot stops reading the response until `wait` settles (its own output is
   * behind: common/stdout.ts); that time counts against neither timeout.
   */
  paused(wait: Promise<void>): Promise<void>;
  /** Tells a stall's message whether the bytes since the last event were part of an unfinished event (not keepalive comments). */
  setMidEventProbe(probe: () => boolean): void;
}

type Env = Readonly<Record<string, string | undefined>>;

function positiveSetting(explicit: number | undefined, env: Env, name: string, fallback: number): number {
  if (explicit !== undefined && explicit > 0) return explicit;
  const fromEnv = Number(env[name]);
  if (Number.isFinite(fromEnv) && fromEnv > 0) return fromEnv;
  return fallback;
}

/** The idle timeout: explicit option, else ZOT_STREAM_IDLE_TIMEOUT_MS, else 120 s. */
export function resolveStallTimeoutMs(explicit?: number, env: Env = process.env): number {
  return positiveSetting(explicit, env, "ZOT_STREAM_IDLE_TIMEOUT_MS", DEFAULT_STALL_TIMEOUT_MS);
}

/** The keepalive timeout: explicit option, else ZOT_STREAM_KEEPALIVE_TIMEOUT_MS, else 600 s. */
export function resolveKeepaliveTimeoutMs(explicit?: number, env: Env = process.env): number {
  return positiveSetting(explicit, env, "ZOT_STREAM_KEEPALIVE_TIMEOUT_MS", DEFAULT_KEEPALIVE_TIMEOUT_MS);
}

/** The model-output cap of one response: ZOT_STREAM_MAX_OUTPUT_CHARS, else 16 Mi characters. */
export function resolveMaxOutputChars(env: Env = process.env): number {
  return positiveSetting(undefined, env, "ZOT_STREAM_MAX_OUTPUT_CHARS", DEFAULT_MAX_OUTPUT_CHARS);
}

/** The response size cap: explicit option, else ZOT_STREAM_MAX_BYTES, else 256 MiB. */
export function resolveMaxResponseBytes(explicit?: number, env: Env = process.env): number {
  return positiveSetting(explicit, env, "ZOT_STREAM_MAX_BYTES", DEFAULT_MAX_RESPONSE_BYTES);
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

type StallReason = "response" | "event" | "output";

interface StreamLimits {
  readonly idleMs: number;
  readonly keepaliveMs: number;
  readonly maxBytes: number;
}

/** One attempt's abort controller, tied to the caller's signal and the stall deadlines. */
class AttemptControl {
  readonly controller = new AbortController();
  stalled: StallReason | undefined;
  /** Bytes read since the last complete event (a comment-only keepalive shows here). */
  bytesSinceEvent = 0;
  midEvent: (() => boolean) | undefined;
  private streaming = false;
  private readonly idle: Deadline;
  private readonly keepalive: Deadline;
  private readonly unlink: () => void;

  constructor(
    private readonly outer: AbortSignal,
    readonly limits: StreamLimits,
  ) {
    const forward = () => this.controller.abort();
    outer.addEventListener("abort", forward, { once: true });
    this.unlink = () => outer.removeEventListener("abort", forward);
    this.idle = new Deadline(limits.idleMs, () => this.stall(this.streaming ? "event" : "response"));
    this.keepalive = new Deadline(limits.keepaliveMs, () => this.stall("output"));
    this.idle.start();
  }

  private stall(reason: StallReason): void {
    if (this.stalled !== undefined) return;
    this.stalled = reason;
    this.controller.abort();
  }

  /** Response headers arrived; from now on the idle deadline waits for events. */
  headersArrived(ok: boolean): void {
    this.idle.touch();
    if (!ok) return;
    this.streaming = true;
    this.keepalive.start();
  }

  sawEvent(): void {
    this.bytesSinceEvent = 0;
    this.idle.touch();
  }

  sawOutput(): void {
    this.keepalive.touch();
  }

  /** zot waits for its own output: neither deadline runs until `wait` settles. */
  async paused(wait: Promise<void>): Promise<void> {
    this.idle.hold();
    this.keepalive.hold();
    try {
      await wait;
    } finally {
      this.idle.release();
      this.keepalive.release();
    }
  }

  finish(): void {
    this.idle.stop();
    this.keepalive.stop();
    this.unlink();
  }

  private stallMessage(label: string, url: string): string {
    const { idleMs, keepaliveMs } = this.limits;
    switch (this.stalled) {
      case "output":
        return `${label}: stream stalled: no model output for ${formatDuration(keepaliveMs)} (only keepalive events)`;
      case "event":
        return `${label}: stream stalled: no event for ${formatDuration(idleMs)}${this.midEvent?.() ? " (an event was still arriving)" : this.bytesSinceEvent > 0 ? " (only keepalive comments)" : ""}`;
      default:
        return `${label}: stream stalled: no response from ${displayUrl(url)} within ${formatDuration(idleMs)}`;
    }
  }

  /** Turns a failure of fetch or of a body read into the error callers see. */
  classify(err: unknown, target: { label: string; url: string; hint?: string; note?: string }, phase: "connect" | "stream"): Error {
    if (this.stalled) {
      return new ProviderError("stalled", this.stallMessage(target.label, target.url), undefined, { url: displayUrl(target.url) }, { cause: err });
    }
    if (this.outer.aborted) return isAbortError(err) ? (err as Error) : abortError();
    if (err instanceof ProviderError) return err;
    return networkError(err, target, phase);
  }
}

function networkError(err: unknown, target: { label: string; url: string; hint?: string; note?: string }, phase: "connect" | "stream"): ProviderError {
  const url = displayUrl(target.url);
  const detail = networkDetail(err);
  const note = target.note ? ` (${target.note})` : "";
  const hint = target.hint ? ` — ${target.hint}` : "";
  const message =
    phase === "connect"
      ? `${target.label}: cannot connect to ${url}: ${detail}${note}${hint}`
      : `${target.label}: connection dropped mid-stream (${url}): ${detail}`;
  return new ProviderError("network", message, undefined, { url, code: systemErrorCode(err) }, { cause: err });
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

function retryNotice(label: string, retry: number, maxRetries: number, delayMs: number, reason: string, error: string, status?: number): RetryNotice {
  const message = `${label}: retrying in ${formatDuration(delayMs)} (retry ${retry} of ${maxRetries}): ${reason}`;
  return { provider: label, attempt: retry, max_retries: maxRetries, delay_ms: delayMs, ...(status !== undefined ? { status } : {}), error, message };
}

export async function postStream(options: PostStreamOptions): Promise<StreamingResponse> {
  const limits: StreamLimits = {
    idleMs: resolveStallTimeoutMs(options.stallTimeoutMs),
    keepaliveMs: resolveKeepaliveTimeoutMs(options.keepaliveTimeoutMs),
    maxBytes: resolveMaxResponseBytes(options.maxResponseBytes),
  };
  const policy = resolveRetryPolicy(options.retry);
  const { label, url } = options;
  const urlProblem = notHttpUrl(url);
  if (urlProblem !== undefined) throw new ProviderError("config", `${label}: ${urlProblem}`, undefined, { url: displayUrl(url) });
  const payload = JSON.stringify(options.body);
  let retries = 0;
  let waitedMs = 0;
  const wait = async (delayMs: number, notice: RetryNotice): Promise<void> => {
    options.onRetry?.(notice);
    retries++;
    waitedMs += delayMs;
    await sleep(delayMs, options.signal);
  };
  for (;;) {
    if (options.signal.aborted) throw abortError();
    const control = new AttemptControl(options.signal, limits);
    let response: Response;
    try {
      traceStartupOnce("first model request");
      response = await fetch(url, {
        method: "POST",
        // What fetch sends when it decodes (decompress: false drops the header); content-encoding.ts decodes these.
        headers: { "content-type": "application/json", accept: "text/event-stream", "accept-encoding": "gzip, deflate, br, zstd", ...options.headers },
        body: payload,
        signal: control.controller.signal,
        // A redirect is reported, never followed: it would carry the API key to wherever it points.
        redirect: "manual",
        // zot decodes the body itself (content-encoding.ts): Bun's decoder prints its errors on stderr.
        decompress: false,
      });
    } catch (err) {
      control.finish();
      const target = { label, url, hint: options.connectHint };
      const failure = control.classify(err, target, "connect");
      const code = systemErrorCode(err);
      if (!(failure instanceof ProviderError) || failure.kind !== "network" || !transientNetworkCode(code)) throw failure;
      const decision = decideRetry({ retries, waitedMs }, policy, { refused: isRefusedCode(code) });
      if (!decision.retry) throw networkError(err, { ...target, note: decision.why }, "connect");
      await wait(decision.delayMs, retryNotice(label, retries + 1, decision.maxRetries, decision.delayMs, networkReason(code), failure.message));
      continue;
    }
    control.headersArrived(response.ok);
    const decoded = response.body ? decodedBody(response.body, response.headers.get("content-encoding"), { label, url }) : undefined;
    if (response.ok && decoded) {
      if (!decoded.ok) {
        control.finish();
        throw decoded.error;
      }
      return {
        status: response.status,
        body: guardBody(decoded.body, response, control, { label, url }),
        sawEvent: () => control.sawEvent(),
        sawOutput: () => control.sawOutput(),
        paused: (wait) => control.paused(wait),
        setMidEventProbe: (probe) => void (control.midEvent = probe),
      };
    }
    let errorBody: string;
    try {
      errorBody = decoded?.ok ? await readCapped(decoded.body, ERROR_BODY_LIMIT_BYTES, ERROR_BODY_WAIT_MS) : "";
    } catch (err) {
      errorBody = "";
      if (options.signal.aborted) {
        control.finish();
        throw control.classify(err, { label, url }, "connect");
      }
    }
    control.finish();
    const redirect = redirectLine(label, response, url);
    if (redirect !== undefined) throw new ProviderError("http", redirect, response.status, { url: displayUrl(url) });
    const wrongAddress = response.status === 404 || response.status === 405 ? ` (${displayUrl(url)}: is the base URL right?)` : "";
    const line = withoutSecrets(httpErrorLine(label, response.status, response.statusText, errorBody), options.headers) + wrongAddress;
    if (!retryableStatus(response.status, response.headers)) throw new ProviderError("http", line, response.status, { url: displayUrl(url) });
    const decision = decideRetry({ retries, waitedMs }, policy, { retryAfterMs: serverRetryAfterMs(response.headers) });
    if (!decision.retry) throw new ProviderError("http", `${line} (${decision.why})`, response.status, { url: displayUrl(url) });
    await wait(decision.delayMs, retryNotice(label, retries + 1, decision.maxRetries, decision.delayMs, statusReason(response.status), line, response.status));
  }
}

/** Counts the response's bytes against its cap and classifies read failures; events re-arm the deadlines, not bytes. */
function guardBody(body: ReadableStream<Uint8Array>, response: Response, control: AttemptControl, target: { label: string; url: string }): ReadableStream<Uint8Array> {
  const reader: BodyReader = body.getReader();
  // The bytes not-sse.ts read to tell an event stream; undefined until the first pull has checked.
  let replay: Uint8Array[] | undefined;
  let total = 0;
  let overCap = false;
  const tooLarge = () =>
    new ProviderError("too_large", `${target.label}: response larger than ${formatBytes(control.limits.maxBytes)} (the per-response limit)`, undefined, {
      url: displayUrl(target.url),
    });
  return new ReadableStream<Uint8Array>({
    async pull(out) {
      if (overCap) {
        // Raised one pull after the last allowed bytes, so the consumer has parsed everything up to the cap.
        out.error(tooLarge());
        return;
      }
      try {
        if (replay === undefined) {
          const check = await checkEventStream(reader, response.headers.get("content-type"));
          if (!check.ok) {
            const message = `${target.label}: http ${response.status} from ${displayUrl(target.url)} is not an event stream (${check.reason})`;
            throw new ProviderError("malformed", message, response.status, { url: displayUrl(target.url) });
          }
          replay = [...check.read];
        }
        const first = replay.shift();
        const { done, value } = first !== undefined ? { done: false, value: first } : await reader.read();
        if (done || value === undefined) {
          control.finish();
          out.close();
          return;
        }
        const allowed = control.limits.maxBytes - total;
        total += value.byteLength;
        control.bytesSinceEvent += value.byteLength;
        if (total > control.limits.maxBytes) {
          overCap = true;
          control.finish();
          await reader.cancel().catch(() => undefined);
          if (allowed > 0) out.enqueue(value.subarray(0, allowed));
          else out.error(tooLarge());
          return;
        }
        out.enqueue(value);
      } catch (err) {
        control.finish();
        out.error(control.classify(err, target, "stream"));
      }
    },
    async cancel(reason) {
      control.finish();
      await reader.cancel(reason).catch(() => undefined);
    },
  });
}

/** "256 MiB", "1000 bytes". */
function formatBytes(bytes: number): string {
  const mi = 1024 * 1024;
  return bytes % mi === 0 ? `${bytes / mi} MiB` : `${bytes} bytes`;
}
