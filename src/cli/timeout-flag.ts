/**
 * `--timeout <ms>` of `zot ext test` and `zot mcp doctor`: a whole number of
 * milliseconds from 1 to MAX_TIMEOUT_FLAG_MS; anything else is a UsageError
 * quoting the value. Absent: undefined (the command's default applies).
 */
import { UsageError } from "../common/errors.ts";

export const MAX_TIMEOUT_FLAG_MS = 600_000;

export function timeoutFlagMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!(Number.isInteger(ms) && ms >= 1 && ms <= MAX_TIMEOUT_FLAG_MS)) {
    throw new UsageError(`--timeout must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_FLAG_MS} (got "${value}")`, { flag: "--timeout" });
  }
  return ms;
}
