/**
 * JSON Schema (the subset json-schema.ts produces) → TypeScript type text for
 * schemas/frames.d.ts. Types describe the wire: optional properties are
 * optional, "unknown" values are `unknown`. Known fields only, except where
 * the caller asks for an open payload (`[field: string]: unknown`).
 */
import type { JsonSchema } from "./json-schema.ts";

export function toTypeScript(schema: JsonSchema, indent = "", open = false): string {
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map((option) => toTypeScript(option, indent)).join(" | ");
  const type = schema.type;
  if (Array.isArray(type)) return type.map((name) => primitive(String(name))).join(" | ");
  if (type === "array") {
    const item = toTypeScript(schema.items as JsonSchema, indent);
    return /[|&]/.test(item) ? `Array<${item}>` : `${item}[]`;
  }
  if (type === "object") return objectType(schema, indent, open);
  if (typeof type === "string") return primitive(type);
  return "unknown";
}

function primitive(name: string): string {
  return name === "integer" ? "number" : name;
}

function objectType(schema: JsonSchema, indent: string, open: boolean): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(([key, property]) => {
    const doc = typeof property.description === "string" ? `${inner}/** ${property.description} */\n` : "";
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
    return `${doc}${inner}${name}${required.has(key) ? "" : "?"}: ${toTypeScript(property, inner)};`;
  });
  if (open) lines.push(`${inner}[field: string]: unknown;`);
  return lines.length === 0 ? "Record<string, unknown>" : `{\n${lines.join("\n")}\n${indent}}`;
}
