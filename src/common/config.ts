/**
 * $ZOT_HOME/config.json: user defaults that flags override (reference notes
 * §1.8): provider, model, reasoning, plus zot's auto_compact share and
 * ext_ready_timeout_ms (the extension startup bound; the env var
 * ZOT_EXT_READY_TIMEOUT_MS wins over it). Unknown
 * fields are kept untouched (the original writes theme, inline images,
 * changelog markers). A missing file is an empty config; an unreadable or
 * invalid one yields a warning naming the file and field, and is ignored —
 * a broken config must not stop a scripted run.
 */
import { readFileSync } from "node:fs";
import * as v from "valibot";
import { systemErrorCode } from "./errors.ts";
import { describeProblem, firstProblem } from "./validation.ts";

const ConfigSchema = v.looseObject({
  provider: v.optional(v.string("expected a string")),
  model: v.optional(v.string("expected a string")),
  reasoning: v.optional(v.string("expected a string")),
  /** Share of the context window that triggers automatic compaction (0 < x ≤ 1), or false. */
  auto_compact: v.optional(v.union([v.pipe(v.number(), v.minValue(0.05), v.maxValue(1)), v.literal(false)], "expected a number between 0.05 and 1, or false")),
  /** How long extensions get to say hello and ready at startup, in ms. */
  ext_ready_timeout_ms: v.optional(v.pipe(v.number("expected a number of milliseconds"), v.integer("expected a whole number of milliseconds"), v.minValue(1, "expected a positive number of milliseconds"))),
});

export type ZotConfig = v.InferOutput<typeof ConfigSchema>;

export interface LoadedConfig {
  readonly config: ZotConfig;
  readonly warning?: string;
}

/** Synchronous: a small file on the startup path. */
export function loadConfig(path: string): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if (systemErrorCode(err) === "ENOENT") return { config: {} };
    return { config: {}, warning: `${path}: cannot be read (${systemErrorCode(err) ?? "error"}); ignored` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { config: {}, warning: `${path}: not valid JSON (${err instanceof Error ? err.message : String(err)}); ignored` };
  }
  const result = v.safeParse(ConfigSchema, raw);
  if (!result.success) return { config: {}, warning: `${path}: ${describeProblem(firstProblem(result.issues))}; ignored` };
  return { config: result.output };
}
