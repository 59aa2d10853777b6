import { describe, expect, test } from "bun:test";
import {
  DEFAULT_RETRY_POLICY,
  backoffDelayMs,
  decideRetry,
  formatDuration,
  isRefusedCode,
  resolveRetryPolicy,
  retryableStatus,
  serverRetryAfterMs,
  statusReason,
  transientNetworkCode,
} from "../../src/providers/retry.ts";

const none = new Headers();

describe("the default retry policy", () => {
  test("5 retries (2 after a refused connection), 1 s doubling to at most 16 s, 60 s of waiting in total", () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxRetries: 5, maxRefusedRetries: 2, baseDelayMs: 1000, maxDelayMs: 16_000, maxTotalWaitMs: 60_000 });
    const top = [1, 2, 3, 4, 5, 6].map((retry) => backoffDelayMs(retry, DEFAULT_RETRY_POLICY, () => 0));
    expect(top).toEqual([1000, 2000, 4000, 8000, 16_000, 16_000]);
    const bottom = [1, 2, 3, 4, 5].map((retry) => backoffDelayMs(retry, DEFAULT_RETRY_POLICY, () => 1));
    expect(bottom).toEqual([750, 1500, 3000, 6000, 12_000]);
    // Five full backoffs fit in the budget: only a server's Retry-After can exhaust it.
    expect(top.slice(0, 5).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.maxTotalWaitMs);
  });

  test("ZOT_MAX_RETRIES overrides the count (capped at 10); nonsense is ignored", () => {
    expect(resolveRetryPolicy({}, { ZOT_MAX_RETRIES: "0" })).toMatchObject({ maxRetries: 0, maxRefusedRetries: 0 });
    expect(resolveRetryPolicy({}, { ZOT_MAX_RETRIES: "8" })).toMatchObject({ maxRetries: 8, maxRefusedRetries: 2 });
    expect(resolveRetryPolicy({}, { ZOT_MAX_RETRIES: "99" }).maxRetries).toBe(10);
    expect(resolveRetryPolicy({}, { ZOT_MAX_RETRIES: "many" })).toEqual(DEFAULT_RETRY_POLICY);
    expect(resolveRetryPolicy({ maxRetries: 1 }, { ZOT_MAX_RETRIES: "8" }).maxRetries).toBe(1);
  });
});

describe("what is retried", () => {
  test("408, 409, 429 and 5xx except 501/505; x-should-retry wins", () => {
    const retried = [400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 501, 502, 503, 504, 505, 520, 529].filter((status) =>
      retryableStatus(status, none),
    );
    expect(retried).toEqual([408, 409, 429, 500, 502, 503, 504, 520, 529]);
    expect(retryableStatus(503, new Headers({ "x-should-retry": "false" }))).toBe(false);
    expect(retryableStatus(400, new Headers({ "x-should-retry": "true" }))).toBe(true);
  });

  test("transient network failures: resets, refusals, timeouts, temporary DNS; not unknown hosts or TLS", () => {
    for (const code of ["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EAI_AGAIN", "ENETUNREACH"]) expect(transientNetworkCode(code)).toBe(true);
    for (const code of ["ENOTFOUND", "CERT_HAS_EXPIRED", "DEPTH_ZERO_SELF_SIGNED_CERT", "ERR_INVALID_URL", undefined]) {
      expect(transientNetworkCode(code)).toBe(false);
    }
    expect(isRefusedCode("ECONNREFUSED")).toBe(true);
    expect(isRefusedCode("ECONNRESET")).toBe(false);
  });

  test("notices use zot's words for the status", () => {
    expect([429, 529, 500, 502, 503, 504, 520].map(statusReason)).toEqual([
      "429 rate limited",
      "529 overloaded",
      "500 server error",
      "502 bad gateway",
      "503 service unavailable",
      "504 gateway timeout",
      "520 server error",
    ]);
  });
});

describe("Retry-After", () => {
  const now = Date.parse("2025-06-01T12:00:00Z");

  test("seconds, fractional seconds, an HTTP date, retry-after-ms first", () => {
    expect(serverRetryAfterMs(new Headers({ "retry-after": "4" }), now)).toBe(4000);
    expect(serverRetryAfterMs(new Headers({ "retry-after": "1.5" }), now)).toBe(1500);
    expect(serverRetryAfterMs(new Headers({ "retry-after": "Sun, 01 Jun 2025 12:00:30 GMT" }), now)).toBe(30_000);
    expect(serverRetryAfterMs(new Headers({ "retry-after": "Sun, 01 Jun 2025 11:00:00 GMT" }), now)).toBe(0);
    expect(serverRetryAfterMs(new Headers({ "retry-after": "7", "retry-after-ms": "250" }), now)).toBe(250);
  });

  test("absent, negative or unreadable values fall back to the backoff", () => {
    for (const value of ["", "-3", "soon", "1e3"]) expect(serverRetryAfterMs(new Headers({ "retry-after": value }), now)).toBeUndefined();
    expect(serverRetryAfterMs(none, now)).toBeUndefined();
    expect(serverRetryAfterMs(new Headers({ "retry-after-ms": "x", "retry-after": "2" }), now)).toBe(2000);
  });
});

describe("decideRetry", () => {
  const policy = DEFAULT_RETRY_POLICY;

  test("retries with the server's wait when given, the backoff otherwise", () => {
    expect(decideRetry({ retries: 0, waitedMs: 0 }, policy, { retryAfterMs: 4000 })).toEqual({ retry: true, delayMs: 4000, maxRetries: 5 });
    expect(decideRetry({ retries: 2, waitedMs: 3000 }, policy, {}, () => 0)).toEqual({ retry: true, delayMs: 4000, maxRetries: 5 });
  });

  test("the count bound, with its own lower bound for refused connections", () => {
    expect(decideRetry({ retries: 5, waitedMs: 10_000 }, policy, {})).toEqual({ retry: false, why: "gave up after 5 retries" });
    expect(decideRetry({ retries: 2, waitedMs: 3000 }, policy, { refused: true })).toEqual({ retry: false, why: "gave up after 2 retries" });
    expect(decideRetry({ retries: 0, waitedMs: 0 }, { ...policy, maxRetries: 0 }, {})).toEqual({ retry: false, why: "retries disabled" });
  });

  test("a wait beyond what is left of the budget gives up at once", () => {
    expect(decideRetry({ retries: 0, waitedMs: 0 }, policy, { retryAfterMs: 61_000 })).toEqual({
      retry: false,
      why: "not retried: the server asks to wait 61 s, more than the 60 s left of the 60 s retry budget",
    });
    expect(decideRetry({ retries: 3, waitedMs: 55_000 }, policy, {}, () => 0)).toEqual({
      retry: false,
      why: "not retried: the next wait is 8 s, more than the 5 s left of the 60 s retry budget",
    });
    expect(decideRetry({ retries: 1, waitedMs: 30_000 }, policy, { retryAfterMs: 30_000 })).toMatchObject({ retry: true, delayMs: 30_000 });
  });

  test("durations read naturally", () => {
    expect([0, 50, 999, 1000, 1500, 4000, 12_345, 120_000].map(formatDuration)).toEqual([
      "0 ms",
      "50 ms",
      "999 ms",
      "1 s",
      "1.5 s",
      "4 s",
      "12 s",
      "120 s",
    ]);
  });

  test("days past two days, and a bound past 100 years (a Retry-After of 1e20 s)", () => {
    const day = 86_400_000;
    expect([3_600_000, 2 * day - 1, 2 * day, 3.4 * day, 36_500 * day, 36_501 * day, 1e23].map(formatDuration)).toEqual([
      "3600 s",
      "172800 s",
      "2 days",
      "3 days",
      "36500 days",
      "more than 100 years",
      "more than 100 years",
    ]);
  });
});
