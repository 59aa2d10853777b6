/**
 * $ZOT_HOME/config.json: user defaults that flags override (reference notes
 * §1.8): provider, model, reasoning, plus zot's auto_compact share,
 * ext_ready_timeout_ms (the extension startup bound; the env var
 * ZOT_EXT_READY_TIMEOUT_MS wins over it) and the subagent settings agents,
 * agents_max_concurrent, agent_timeout_ms (docs/agents.md). Unknown
 * fields are kept untouched (the original writes theme, inline images,
 * changelog markers). A missing file is an empty config. An unreadable
 * file, invalid JSON (nested deeper than MAX_JSON_DEPTH included) or a top level that is not an object yields one warning
 * naming the file and the file is ignored; a known field with a wrong value
 * yields a warning naming the file and the field, and only that field is
 * ignored (the others still apply). A known field that is null or blank
 * text counts as not set, as the original reads it. A broken config never
 * stops a run.
 */
import * as v from "valibot";
import { systemErrorCode } from "./errors.ts";
import { MAX_JSON_DEPTH, describeJsonProblem, parseJson } from "./json.ts";
import { describeProblem, firstProblem } from "./validation.ts";
import { NotRegularFileError, readRegularText } from "./regular-file.ts";

const FIELD_SCHEMAS = {
  provider: v.string("expected a string"),
  model: v.string("expected a string"),
  reasoning: v.string("expected a string"),
  /** Share of the context window that triggers automatic compaction (0 < x ≤ 1), or false. */
  auto_compact: v.union([v.pipe(v.number(), v.minValue(0.05), v.maxValue(1)), v.literal(false)], "expected a number between 0.05 and 1, or false"),
  /** How long extensions get to say hello and ready at startup, in ms. */
  ext_ready_timeout_ms: v.pipe(v.number("expected a number of milliseconds"), v.integer("expected a whole number of milliseconds"), v.minValue(1, "expected a positive number of milliseconds")),
  /** The `agent` tool (subagents, docs/agents.md) is offered to the model; default true, false turns it off. */
  agents: v.boolean("expected true or false"),
  /** How many subagents run at once (1-32). */
  agents_max_concurrent: v.pipe(v.number("expected a number"), v.integer("expected a whole number"), v.minValue(1, "expected at least 1"), v.maxValue(32, "expected at most 32")),
  /** How long one subagent run may take, in ms. */
  agent_timeout_ms: v.pipe(v.number("expected a number of milliseconds"), v.integer("expected a whole number of milliseconds"), v.minValue(1, "expected a positive number of milliseconds")),
} as const;

type ConfigField = keyof typeof FIELD_SCHEMAS;

export type ZotConfig = { -readonly [K in ConfigField]?: v.InferOutput<(typeof FIELD_SCHEMAS)[K]> } & Record<string, unknown>;

export interface LoadedConfig {
  readonly config: ZotConfig;
  /** One line per problem, each naming the file (and the field when one is at fault). */
  readonly warnings: readonly string[];
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** Keeps every known field whose value is valid, and every unknown field untouched. */
function validateConfig(path: string, raw: unknown): LoadedConfig {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { config: {}, warnings: [`${path}: expected a JSON object at the top level, got ${kindOf(raw)}; ignored`] };
  }
  const config: ZotConfig = { ...(raw as Record<string, unknown>) };
  const warnings: string[] = [];
  for (const field of Object.keys(FIELD_SCHEMAS) as ConfigField[]) {
    // As the original's Go decoder reads them: null, and a blank text, are "not set" (the original itself saves `"model": ""`).
    const value = config[field];
    if (value === null || (typeof value === "string" && value.trim() === "")) {
      delete config[field];
      continue;
    }
    if (!(field in config) || value === undefined) continue;
    const result = v.safeParse(FIELD_SCHEMAS[field], config[field]);
    if (result.success) continue;
    delete config[field];
    warnings.push(`${path}: ${describeProblem({ field, message: firstProblem(result.issues).message })}; ignored`);
  }
  return { config, warnings };
}

/** Synchronous: a small file on the startup path. */
export function loadConfig(path: string): LoadedConfig {
  let text: string;
  try {
    text = readRegularText(path);
  } catch (err) {
    if (systemErrorCode(err) === "ENOENT") return { config: {}, warnings: [] };
    const reason = err instanceof NotRegularFileError ? "not a regular file" : (systemErrorCode(err) ?? "error");
    return { config: {}, warnings: [`${path}: cannot be read (${reason}); ignored`] };
  }
  const parsed = parseJson(text, MAX_JSON_DEPTH);
  if (!parsed.ok) {
    const problem = parsed.problem;
    const detail = problem.kind === "too_deep" ? describeJsonProblem(problem) : `not valid JSON (${problem.message})`;
    return { config: {}, warnings: [`${path}: ${detail}; ignored`] };
  }
  return validateConfig(path, parsed.value);
}
