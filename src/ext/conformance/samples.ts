/**
 * What `zot ext test` sends: tool arguments generated from a tool's JSON
 * Schema (const, enum, default and examples first; then the type, honouring
 * min/max lengths, items and bounds; every listed property is filled; local
 * $refs followed; at most 8 levels deep) and sample payloads for each
 * lifecycle event and interceptable event, shaped as extensions.md's
 * "Lifecycle payloads" and interception sections describe them.
 */
import type { InterceptableEvent } from "../frames.ts";
import { isPlainObject } from "../../common/json.ts";

type Schema = Readonly<Record<string, unknown>>;

const MAX_SAMPLE_DEPTH = 8;

function resolveRef(ref: string, root: Schema): Schema {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const defs = match ? root[match[1]!] : undefined;
  const target = match && isPlainObject(defs) ? defs[match[2]!] : undefined;
  return isPlainObject(target) ? target : {};
}

function sampleString(schema: Schema): string {
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
  const candidates = ["example", "a", "1", "a1", "example-1"];
  if (typeof schema.pattern === "string") {
    try {
      const pattern = new RegExp(schema.pattern, "u");
      const found = candidates.find((text) => pattern.test(text));
      if (found !== undefined) return found;
    } catch {
      // not a JS-compatible pattern: fall through
    }
  }
  let text = "example";
  while (text.length < min) text += "x";
  return text.slice(0, Math.max(min, Math.min(max, text.length)));
}

function sampleNumber(schema: Schema, integer: boolean): number {
  const min = typeof schema.minimum === "number" ? schema.minimum : typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : undefined;
  const max = typeof schema.maximum === "number" ? schema.maximum : typeof schema.exclusiveMaximum === "number" ? schema.exclusiveMaximum - 1 : undefined;
  let value = min ?? (max !== undefined ? Math.min(1, max) : 1);
  if (integer) value = Math.ceil(value);
  return value;
}

/** A value that satisfies `schema` as far as these rules can tell. */
export function sampleValue(schema: unknown, root: Schema = isPlainObject(schema) ? schema : {}, depth = 0): unknown {
  if (!isPlainObject(schema) || depth > MAX_SAMPLE_DEPTH) return null;
  if (typeof schema.$ref === "string") return sampleValue(resolveRef(schema.$ref, root), root, depth + 1);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ("default" in schema) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return sampleValue(options[0], root, depth + 1);
  }
  const types = [schema.type].flat().filter((type): type is string => typeof type === "string");
  const type = types.find((name) => name !== "null") ?? types[0] ?? (isPlainObject(schema.properties) ? "object" : "string");
  switch (type) {
    case "object": {
      const properties = isPlainObject(schema.properties) ? schema.properties : {};
      // fromEntries defines own properties: `out[key] =` would set the prototype for a property named "__proto__".
      return Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, sampleValue(property, root, depth + 1)]));
    }
    case "array": {
      const min = typeof schema.minItems === "number" ? schema.minItems : 1;
      const max = typeof schema.maxItems === "number" ? schema.maxItems : Math.max(min, 1);
      return Array.from({ length: Math.min(Math.max(min, 1), max, 16) }, () => sampleValue(schema.items, root, depth + 1));
    }
    case "integer":
      return sampleNumber(schema, true);
    case "number":
      return sampleNumber(schema, false);
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return sampleString(schema);
  }
}

/** Tool arguments for a registered schema: always a JSON object. */
export function sampleArguments(schema: unknown): Record<string, unknown> {
  const value = sampleValue(schema ?? { type: "object" });
  return isPlainObject(value) ? { ...value } : {};
}

export const SAMPLE_SESSION = "zot-ext-test-session";

/** Payload fields (beyond type/event and the envelope) of each lifecycle notification. */
export function eventPayload(event: string): Record<string, unknown> {
  const tool = { tool_id: "zot-ext-test-call-1", tool_name: "read" };
  switch (event) {
    case "session_end":
      return { reason: "shutdown" };
    case "user_prompt_submit":
      return { text: "hello from zot ext test" };
    case "turn_start":
      return { step: 1 };
    case "turn_end":
      // What zot sends, as the original does (extensions.md's example shows "end_turn").
      return { stop: "end" };
    case "tool_call":
      return { ...tool, tool_args: { path: "README.md" } };
    case "tool_confirmation_requested":
      return { ...tool, tool_preview: "README.md" };
    case "permission_decision":
      return { ...tool, decision: "approved", source: "yolo", stage: "pre_execution" };
    case "tool_result":
      return { ...tool, tool_args: { path: "README.md" }, status: "completed", executed: true, result: { content: [{ type: "text", text: "# readme" }], is_error: false } };
    case "assistant_message":
      return { text: "Here is the answer." };
    case "pre_compact":
      return { compaction_id: "zot-ext-test-compaction", message_count: 4, token_estimate: 1200 };
    case "post_compact":
      return { compaction_id: "zot-ext-test-compaction", message_count: 2, token_estimate: 300, status: "completed" };
    case "subagent_start":
      return { agent_id: "agent-1", agent_run_id: "run-1", name: "agent-1" };
    case "subagent_stop":
      return { agent_id: "agent-1", agent_run_id: "run-1", name: "agent-1", status: "completed" };
    default:
      return {};
  }
}

/** Payload fields of each event_intercept request. */
export function interceptPayload(event: InterceptableEvent, cwd: string): Record<string, unknown> {
  switch (event) {
    case "before_agent_start":
      return { session_id: SAMPLE_SESSION, agent_run_id: "zot-ext-test-run", cwd, provider: "zot-ext-test", model: "zot-ext-test", system_prompt: "You are a coding agent." };
    case "tool_call":
      return { tool_id: "zot-ext-test-call-2", tool_name: "bash", tool_args: { command: "echo hello" } };
    case "turn_start":
      return { step: 1 };
    case "assistant_message":
      return { text: "Here is the answer." };
    case "tool_result":
      return eventPayload("tool_result");
  }
}
