/**
 * The retry policy of a model request before its stream starts (docs/providers.md
 * "Retries"). Pure functions, used by http.ts:
 *  - which HTTP statuses are transient (`retryableStatus`: 408, 409, 429 and
 *    every 5xx except 501 and 505, overridden by `x-should-retry`), which
 *    network failures are (`transientNetworkCode`: resets, refusals, timeouts,
 *    temporary DNS failures; never TLS, unknown hosts or bad URLs);
 *  - how long to wait (`retryDelay`): the server's `retry-after-ms` or
 *    `Retry-After` (seconds or an HTTP date) when present, else exponential
 *    backoff 1 s, 2 s, 4 s, 8 s, 16 s with jitter (each wait 75–100 % of it);
 *  - the bounds (`RetryPolicy`): at most 5 retries (2 for a refused connection:
 *    usually nothing is listening), at most 60 s of waiting in total; a wait
 *    that does not fit in what is left of the budget means giving up at once.
 * `ZOT_MAX_RETRIES` (0–10) overrides the retry count.
 */

export interface RetryPolicy {
  /** Retries after the first attempt (HTTP statuses and transient network errors). */
  readonly maxRetries: number;
  /** Retries after a refused connection (nothing listening is rarely transient). */
  readonly maxRefusedRetries: number;
  /** First backoff wait; doubled for every further retry. */
  readonly baseDelayMs: number;
  /** Longest single backoff wait (a server's Retry-After may ask for more, within the budget). */
  readonly maxDelayMs: number;
  /** Longest total time spent waiting between attempts of one request. */
  readonly maxTotalWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 5,
  maxRefusedRetries: 2,
  baseDelayMs: 1000,
  maxDelayMs: 16_000,
  maxTotalWaitMs: 60_000,
};

export const MAX_RETRIES_ENV = "ZOT_MAX_RETRIES";
const MAX_RETRIES_CAP = 10;

/** The policy: explicit fields, else ZOT_MAX_RETRIES for the count, else the defaults. */
export function resolveRetryPolicy(
  explicit: Partial<RetryPolicy> = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): RetryPolicy {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...explicit };
  const text = env[MAX_RETRIES_ENV];
  if (explicit.maxRetries !== undefined || text === undefined || !/^\d+$/.test(text.trim())) return policy;
  const count = Math.min(Number(text.trim()), MAX_RETRIES_CAP);
  return { ...policy, maxRetries: count, maxRefusedRetries: Math.min(policy.maxRefusedRetries, count) };
}

const NOT_RETRIED_5XX: ReadonlySet<number> = new Set([501, 505]);

/** Whether a non-2xx response may succeed when repeated. `x-should-retry: true|false` wins (as the vendors' SDKs do). */
export function retryableStatus(status: number, headers: Headers): boolean {
  const hint = headers.get("x-should-retry")?.trim().toLowerCase();
  if (hint === "true") return true;
  if (hint === "false") return false;
  if (status === 408 || status === 409 || status === 429) return true;
  return status >= 500 && status <= 599 && !NOT_RETRIED_5XX.has(status);
}

/** Network failure codes worth another attempt (Bun reports POSIX-style codes). */
const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "ENETDOWN",
  "EHOSTDOWN",
  "ConnectionClosed",
  "ConnectionRefused",
]);

export function transientNetworkCode(code: string | undefined): boolean {
  return code !== undefined && TRANSIENT_NETWORK_CODES.has(code);
}

export function isRefusedCode(code: string | undefined): boolean {
  return code === "ECONNREFUSED" || code === "ConnectionRefused";
}

/** The server's requested wait in ms: `retry-after-ms`, else `Retry-After` (seconds or HTTP date); undefined when absent or invalid. */
export function serverRetryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms")?.trim();
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get("retry-after")?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // HTTP dates (IMF-fixdate and the two obsolete forms) open with the day name.
  const date = /^[A-Za-z]/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Nominal backoff for retry number `retry` (1-based): base × 2^(retry−1), capped; jitter keeps 75–100 % of it. */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const nominal = Math.min(policy.baseDelayMs * 2 ** Math.max(0, retry - 1), policy.maxDelayMs);
  return Math.round(nominal * (1 - 0.25 * random()));
}

export type RetryDecision =
  | { readonly retry: true; readonly delayMs: number; readonly maxRetries: number }
  | { readonly retry: false; readonly why: string };

export interface RetryState {
  /** Retries already made for this request. */
  readonly retries: number;
  /** Time already spent waiting between attempts. */
  readonly waitedMs: number;
}

/**
 * Whether to try again after a transient failure, and after how long. `why`
 * says, for the final error line, why not (budget or count exhausted).
 */
export function decideRetry(
  state: RetryState,
  policy: RetryPolicy,
  failure: { readonly refused?: boolean; readonly retryAfterMs?: number },
  random: () => number = Math.random,
): RetryDecision {
  const maxRetries = failure.refused ? policy.maxRefusedRetries : policy.maxRetries;
  if (state.retries >= maxRetries) {
    return { retry: false, why: maxRetries === 0 ? "retries disabled" : `gave up after ${plural(state.retries, "retry", "retries")}` };
  }
  const left = Math.max(0, policy.maxTotalWaitMs - state.waitedMs);
  const delayMs = failure.retryAfterMs ?? backoffDelayMs(state.retries + 1, policy, random);
  if (delayMs > left) {
    const asked = failure.retryAfterMs !== undefined ? `the server asks to wait ${formatDuration(delayMs)}` : `the next wait is ${formatDuration(delayMs)}`;
    return {
      retry: false,
      why: `not retried: ${asked}, more than the ${formatDuration(left)} left of the ${formatDuration(policy.maxTotalWaitMs)} retry budget`,
    };
  }
  return { retry: true, delayMs, maxRetries };
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

const DAY_MS = 86_400_000;

/** "250 ms", "4 s", "1.5 s", "120 s", "3600 s"; from two days on "3 days", past 100 years "more than 100 years". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms >= 2 * DAY_MS) return ms > 36_500 * DAY_MS ? "more than 100 years" : `${Math.round(ms / DAY_MS)} days`;
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) || seconds >= 10 ? Math.round(seconds) : seconds.toFixed(1)} s`;
}

const STATUS_PHRASES: Readonly<Record<number, string>> = {
  408: "request timeout",
  409: "conflict",
  429: "rate limited",
  500: "server error",
  502: "bad gateway",
  503: "service unavailable",
  504: "gateway timeout",
  529: "overloaded",
};

/** Short, zot-worded reason of a retried HTTP failure ("429 rate limited"); never the server's text. */
export function statusReason(status: number): string {
  return `${status} ${STATUS_PHRASES[status] ?? (status >= 500 ? "server error" : "error")}`;
}

const NETWORK_PHRASES: Readonly<Record<string, string>> = {
  ECONNRESET: "connection reset",
  ConnectionClosed: "connection reset",
  ECONNREFUSED: "connection refused",
  ConnectionRefused: "connection refused",
  ECONNABORTED: "connection aborted",
  EPIPE: "connection broken",
  ETIMEDOUT: "connection timed out",
  EAI_AGAIN: "temporary DNS failure",
  ENETUNREACH: "network unreachable",
  EHOSTUNREACH: "host unreachable",
  ENETDOWN: "network down",
  EHOSTDOWN: "host down",
};

export function networkReason(code: string | undefined): string {
  return (code !== undefined ? NETWORK_PHRASES[code] : undefined) ?? "connection failed";
}
