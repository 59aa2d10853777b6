/**
 * What a `register_tool` / `register_command` must look like before anything
 * (the registry, the agent, a provider) sees it. Tool names are what every
 * provider accepts; a schema is a JSON Schema object of `"type": "object"`
 * nested at most MAX_VALUE_DEPTH levels, with object `properties` and a
 * string-array `required` when present (a missing or null schema becomes
 * `{type:"object",properties:{}}`). Command names are what the slash-command
 * parser can invoke. The caps (per extension, and the serialized size of all
 * extensions' tool definitions together, which is sent with every request)
 * are checked by the registry with `definitionBytes`. Each check returns a
 * reason for the extension's log and doctor, never throws.
 */
import { MAX_VALUE_DEPTH, valueTooDeep } from "../common/json.ts";
import { oneLine } from "./drop-log.ts";

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const COMMAND_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_TOOLS_PER_EXTENSION = 128;
export const MAX_COMMANDS_PER_EXTENSION = 128;
/** Serialized bytes of every extension tool definition together (name, description, schema). */
export const MAX_TOTAL_TOOL_DEFINITION_BYTES = 256 * 1024;
export const MAX_TOOL_DESCRIPTION_CHARS = 16 * 1024;
export const MAX_COMMAND_DESCRIPTION_CHARS = 4 * 1024;

export const DEFAULT_TOOL_SCHEMA: Readonly<Record<string, unknown>> = { type: "object", properties: {} };

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeJsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

export function checkToolName(name: string): string | undefined {
  return TOOL_NAME_PATTERN.test(name) ? undefined : "the name must be 1-64 characters of letters, digits, '_' and '-'";
}

export function checkCommandName(name: string): string | undefined {
  return COMMAND_NAME_PATTERN.test(name) ? undefined : "the name must be 1-64 characters of letters, digits, '_' and '-'";
}

export function checkDescription(description: string, max: number): string | undefined {
  return description.length > max ? `the description is ${description.length} characters, over the limit of ${max}` : undefined;
}

/** The schema to advertise for a tool, or why it cannot be used. */
export function checkToolSchema(schema: unknown): Checked<Readonly<Record<string, unknown>>> {
  if (schema === undefined || schema === null) return { ok: true, value: DEFAULT_TOOL_SCHEMA };
  if (!isObject(schema)) return { ok: false, reason: `the schema must be a JSON Schema object, not ${describeJsonType(schema)}` };
  // Before anything walks or serialises it.
  if (valueTooDeep(schema, MAX_VALUE_DEPTH)) return { ok: false, reason: `the schema nests deeper than ${MAX_VALUE_DEPTH} levels` };
  if (schema.type !== "object") {
    const got = schema.type === undefined ? "none" : JSON.stringify(schema.type);
    return { ok: false, reason: `the schema must have "type": "object" (got ${oneLine(got, 40)})` };
  }
  if (schema.properties !== undefined && !isObject(schema.properties)) {
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
