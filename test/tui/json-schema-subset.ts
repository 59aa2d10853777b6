/**
 * A small JSON Schema checker for the keywords schemas/theme.schema.json
 * uses (type object/integer/string, properties, required,
 * additionalProperties false, enum, oneOf, minimum, maximum, pattern,
 * $ref to #/$defs/…); any other keyword fails loudly, so the schema cannot
 * grow past what this checks without the test noticing.
 */
type Schema = Readonly<Record<string, unknown>>;

const KNOWN = new Set(["$schema", "title", "description", "type", "properties", "required", "additionalProperties", "enum", "oneOf", "minimum", "maximum", "pattern", "$ref", "$defs"]);

export function validates(root: Schema, value: unknown, schema: Schema = root): boolean {
  for (const key of Object.keys(schema)) if (!KNOWN.has(key)) throw new Error(`json-schema-subset: keyword ${key} is not supported`);
  if (typeof schema.$ref === "string") {
    const name = /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1];
    const target = name === undefined ? undefined : (root.$defs as Record<string, Schema> | undefined)?.[name];
    if (target === undefined) throw new Error(`json-schema-subset: cannot resolve ${schema.$ref}`);
    if (!validates(root, value, target)) return false;
  }
  if (schema.type !== undefined) {
    const ok =
      schema.type === "object" ? typeof value === "object" && value !== null && !Array.isArray(value)
      : schema.type === "integer" ? typeof value === "number" && Number.isInteger(value)
      : schema.type === "string" ? typeof value === "string"
      : (() => { throw new Error(`json-schema-subset: type ${String(schema.type)}`); })();
    if (!ok) return false;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  if (typeof schema.minimum === "number" && !(typeof value === "number" && value >= schema.minimum)) return false;
  if (typeof schema.maximum === "number" && !(typeof value === "number" && value <= schema.maximum)) return false;
  if (typeof schema.pattern === "string" && !(typeof value === "string" && new RegExp(schema.pattern, "u").test(value))) return false;
  if (Array.isArray(schema.oneOf) && schema.oneOf.filter((option) => validates(root, value, option as Schema)).length !== 1) return false;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const name of (schema.required ?? []) as string[]) if (!(name in record)) return false;
    for (const [name, entry] of Object.entries(record)) {
      const property = properties[name];
      if (property !== undefined) {
        if (!validates(root, entry, property)) return false;
      } else if (schema.additionalProperties === false) return false;
    }
  }
  return true;
}
