/**
 * What any tool definition from outside zot (an extension's register_tool,
 * an MCP server's tools/list) must look like before the registry, the agent
 * or a provider sees it: a schema is a JSON Schema object of
 * `"type": "object"` nested at most MAX_VALUE_DEPTH levels, with object
 * `properties` and a string-array `required` when present (a missing or null
 * schema becomes DEFAULT_TOOL_SCHEMA); a description is at most
 * MAX_TOOL_DESCRIPTION_CHARS; `definitionBytes` is a definition's
 * serialized size as providers receive it (what the per-source budgets
 * count). Each check returns a reason, never throws. The extension-only
 * rules (names, commands, per-extension caps) are in ext/registration-rules.ts.
 */
import { MAX_VALUE_DEPTH, valueTooDeep, isPlainObject } from "../common/json.ts";

export const MAX_TOOL_DESCRIPTION_CHARS = 16 * 1024;

export const DEFAULT_TOOL_SCHEMA: Readonly<Record<string, unknown>> = { type: "object", properties: {} };

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

function describeJsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** `text` as one printable line of at most `max` characters (control characters escaped, cut with "…"). */
function clipped(text: string, max: number): string {
  const escaped = text.slice(0, max * 2).replace(/[\u0000-\u001f\u007f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return escaped.length > max || text.length > max * 2 ? `${escaped.slice(0, max)}…` : escaped;
}

export function checkDescription(description: string, max: number): string | undefined {
  return description.length > max ? `the description is ${description.length} characters, over the limit of ${max}` : undefined;
}

/** The schema to advertise for a tool, or why it cannot be used. */
export function checkToolSchema(schema: unknown): Checked<Readonly<Record<string, unknown>>> {
  if (schema === undefined || schema === null) return { ok: true, value: DEFAULT_TOOL_SCHEMA };
  if (!isPlainObject(schema)) return { ok: false, reason: `the schema must be a JSON Schema object, not ${describeJsonType(schema)}` };
  // Before anything walks or serialises it.
  if (valueTooDeep(schema, MAX_VALUE_DEPTH)) return { ok: false, reason: `the schema nests deeper than ${MAX_VALUE_DEPTH} levels` };
  if (schema.type !== "object") {
    const got = schema.type === undefined ? "none" : JSON.stringify(schema.type);
    return { ok: false, reason: `the schema must have "type": "object" (got ${clipped(got, 40)})` };
  }
  if (schema.properties !== undefined && !isPlainObject(schema.properties)) {
    return { ok: false, reason: `the schema's "properties" must be an object, not ${describeJsonType(schema.properties)}` };
  }
  const required = schema.required;
  if (required !== undefined && !(Array.isArray(required) && required.every((item) => typeof item === "string"))) {
    return { ok: false, reason: `the schema's "required" must be an array of strings` };
  }
  return { ok: true, value: schema };
}

/** UTF-8 size of a tool definition as providers receive it. */
export function definitionBytes(name: string, description: string, schema: Readonly<Record<string, unknown>>): number {
  return Buffer.byteLength(JSON.stringify({ name, description, input_schema: schema }));
}
