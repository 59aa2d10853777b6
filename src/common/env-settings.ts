/**
 * The numeric ZOT_* environment settings and a check of their values. Each
 * setting is read where it is used (and a value that does not parse is
 * ignored there, the default applying); `envSettingWarnings` lists, for the
 * headless modes to print once at start, every setting that is set but
 * ignored for that reason — `ZOT_STREAM_IDLE_TIMEOUT_MS=30s` in a CI file
 * otherwise silently meant 120 s.
 */
type Env = Readonly<Record<string, string | undefined>>;

/** Read as Number(value), used when finite and above 0. */
const POSITIVE_SETTINGS: Readonly<Record<string, string>> = {
  ZOT_STREAM_IDLE_TIMEOUT_MS: "milliseconds",
  ZOT_STREAM_KEEPALIVE_TIMEOUT_MS: "milliseconds",
  ZOT_STREAM_MAX_BYTES: "bytes",
  ZOT_STREAM_MAX_OUTPUT_CHARS: "characters",
  ZOT_EXT_READY_TIMEOUT_MS: "milliseconds",
  ZOT_MCP_START_TIMEOUT_MS: "milliseconds",
  ZOT_MCP_CALL_TIMEOUT_MS: "milliseconds",
  ZOT_AGENT_TIMEOUT_MS: "milliseconds",
};

/** Read as a whole number of digits (0 allowed). */
const COUNT_SETTINGS: readonly string[] = ["ZOT_MAX_RETRIES"];

function shownValue(value: string): string {
  const cut = value.length > 40 ? `${value.slice(0, 39)}…` : value;
  return JSON.stringify(cut);
}

/** One `zot: warning: …` line (with its newline) per setting that is set, not blank, and ignored. */
export function envSettingWarnings(env: Env = process.env): string[] {
  const warnings: string[] = [];
  for (const [name, unit] of Object.entries(POSITIVE_SETTINGS)) {
    const value = env[name];
    if (value === undefined || value.trim() === "") continue;
    const number = Number(value);
    if (Number.isFinite(number) && number > 0) continue;
    warnings.push(`zot: warning: ${name}=${shownValue(value)} is not a positive number (of ${unit}); it is ignored and the default applies\n`);
  }
  for (const name of COUNT_SETTINGS) {
    const value = env[name];
    if (value === undefined || value.trim() === "" || /^\d+$/.test(value.trim())) continue;
    warnings.push(`zot: warning: ${name}=${shownValue(value)} is not a whole number; it is ignored and the default applies\n`);
  }
  return warnings;
}
