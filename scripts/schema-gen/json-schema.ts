/**
 * valibot → JSON Schema (draft 2020-12) for the subset of valibot the wire
 * schemas use: string, number, boolean, unknown, literal, picklist, array,
 * object / loose_object (unknown fields allowed) / strict_object, optional
 * (with its default as "default"), union, and pipes with min_length,
 * max_length, regex, integer, min_value, max_value, description; transform
 * is ignored (the JSON Schema describes the wire input). Anything else throws
 * naming the valibot type and where it sits, so a schema change cannot
 * silently produce a wrong published schema.
 */
export type JsonSchema = { [key: string]: unknown };

interface ValibotNode {
  readonly kind: string;
  readonly type: string;
  readonly pipe?: readonly ValibotNode[];
  readonly entries?: Readonly<Record<string, ValibotNode>>;
  readonly item?: ValibotNode;
  readonly wrapped?: ValibotNode;
  readonly options?: readonly unknown[];
  readonly literal?: unknown;
  readonly default?: unknown;
  readonly requirement?: unknown;
  readonly description?: string;
}

export function toJsonSchema(schema: unknown, where = "$"): JsonSchema {
  const node = schema as ValibotNode;
  if (node.pipe !== undefined && node.pipe[0] === node) {
    throw new Error(`${where}: unexpected self-referencing pipe`);
  }
  const base = convertBase(node, where);
  if (node.pipe !== undefined) {
    for (const action of node.pipe.slice(1)) applyAction(base, action, where);
  }
  return base;
}

function convertBase(node: ValibotNode, where: string): JsonSchema {
  switch (node.type) {
    case "string":
      return { type: "string" };
    case "number":
      return { type: "number" };
    case "boolean":
      return { type: "boolean" };
    case "unknown":
    case "any":
      return {};
    case "literal":
      return { const: node.literal };
    case "picklist":
      return { enum: [...(node.options ?? [])] };
    case "array":
      return { type: "array", items: toJsonSchema(node.item, `${where}[]`) };
    case "object":
    case "loose_object":
    case "strict_object":
      return objectSchema(node, where);
    case "optional":
      // Only meaningful as an object entry (handled there); elsewhere: the wrapped schema.
      return toJsonSchema(node.wrapped, where);
    case "union":
      return unionSchema(node, where);
    default:
      throw new Error(`${where}: valibot "${node.type}" has no JSON Schema conversion (scripts/schema-gen/json-schema.ts)`);
  }
}

function objectSchema(node: ValibotNode, where: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, entry] of Object.entries(node.entries ?? {})) {
    if (entry.type === "optional") {
      const property = toJsonSchema(entry.wrapped, `${where}.${key}`);
      if (entry.default !== undefined && typeof entry.default !== "function") property.default = entry.default;
      if (entry.pipe !== undefined) for (const action of entry.pipe.slice(1)) applyAction(property, action, `${where}.${key}`);
      properties[key] = property;
    } else {
      properties[key] = toJsonSchema(entry, `${where}.${key}`);
      required.push(key);
    }
  }
  const out: JsonSchema = { type: "object", properties };
  if (required.length > 0) out.required = required;
  out.additionalProperties = node.type !== "strict_object";
  return out;
}

function unionSchema(node: ValibotNode, where: string): JsonSchema {
  const options = (node.options ?? []).map((option, i) => toJsonSchema(option, `${where}|${i}`));
  const simple = options.every((option) => Object.keys(option).length === 1 && typeof option.type === "string");
  if (simple) return { type: options.map((option) => option.type) };
  return { anyOf: options };
}

function applyAction(target: JsonSchema, action: ValibotNode, where: string): void {
  const isArray = target.type === "array";
  switch (action.type) {
    case "min_length":
      target[isArray ? "minItems" : "minLength"] = action.requirement;
      return;
    case "max_length":
      target[isArray ? "maxItems" : "maxLength"] = action.requirement;
      return;
    case "regex":
      target.pattern = (action.requirement as RegExp).source;
      return;
    case "integer":
      target.type = "integer";
      return;
    case "min_value":
      target.minimum = action.requirement;
      return;
    case "max_value":
      target.maximum = action.requirement;
      return;
    case "description":
      target.description = action.description;
      return;
    case "transform":
      return;
    default:
      throw new Error(`${where}: valibot action "${action.type}" has no JSON Schema conversion (scripts/schema-gen/json-schema.ts)`);
  }
}
