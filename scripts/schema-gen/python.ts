/**
 * JSON Schema (the subset json-schema.ts produces) → Python TypedDicts for
 * sdk/python/zot_extension/frames_generated.py. Python ≥ 3.9, standard
 * library only (no typing_extensions, so no NotRequired): a class with both
 * required and optional keys is a private `_<Name>Required(TypedDict)` base
 * holding the required keys and the public `<Name>(base, total=False)`
 * adding the optional ones. Nested objects become their own classes, named
 * after where they sit (`<Parent><Field>`, plus the member's `type` constant
 * for tagged unions: `HostToolResultFrameContentText`), declared before
 * their first use. Types describe the wire; unknown values are `Any`. A key
 * that is not a Python identifier (or is a keyword) throws naming it.
 */
import type { JsonSchema } from "./json-schema.ts";

/** A top-level declaration: a TypedDict class from an object schema. */
export interface PythonClass {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly doc?: string;
}

const KEYWORDS = new Set([
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
  "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
  "pass", "raise", "return", "try", "while", "with", "yield",
]);

export function pascal(text: string): string {
  return text.split(/[^A-Za-z0-9]+/).filter(Boolean).map((part) => part[0]!.toUpperCase() + part.slice(1)).join("");
}

/** Emits every class (nested ones first); returns the source text of the declarations. */
export class PythonEmitter {
  private readonly blocks: string[] = [];
  private readonly names = new Set<string>();

  /** Declares `name` as a TypedDict for an object schema and returns the name. */
  declare(entry: PythonClass): string {
    if (this.names.has(entry.name)) throw new Error(`${entry.name}: declared twice (scripts/schema-gen/python.ts)`);
    this.names.add(entry.name);
    const properties = (entry.schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((entry.schema.required ?? []) as string[]);
    const fields = (keys: string[]): string[] =>
      keys.map((key) => {
        if (!/^[A-Za-z_]\w*$/.test(key) || KEYWORDS.has(key)) throw new Error(`${entry.name}.${key}: not a Python identifier, cannot be a TypedDict class field`);
        const property = properties[key]!;
        const comment = typeof property.description === "string" ? `  # ${property.description}` : "";
        return `    ${key}: ${this.type(property, `${entry.name}${pascal(key)}`)}${comment}`;
      });
    const requiredKeys = Object.keys(properties).filter((key) => required.has(key));
    const optionalKeys = Object.keys(properties).filter((key) => !required.has(key));
    const doc = entry.doc === undefined ? [] : [`    """${entry.doc.replaceAll("\\", "\\\\").replaceAll('"""', '\\"\\"\\"')}"""`];
    const body = (lines: string[]): string[] => (lines.length === 0 && doc.length === 0 ? ["    pass"] : lines);
    // Field types first: they declare the nested classes, which must precede this one.
    const requiredFields = fields(requiredKeys);
    const optionalFields = fields(optionalKeys);
    if (requiredKeys.length > 0 && optionalKeys.length > 0) {
      const base = `_${entry.name}Required`;
      this.blocks.push(`class ${base}(TypedDict):\n${requiredFields.join("\n")}`);
      this.blocks.push(`class ${entry.name}(${base}, total=False):\n${[...doc, ...optionalFields].join("\n")}`);
    } else if (optionalKeys.length > 0) {
      this.blocks.push(`class ${entry.name}(TypedDict, total=False):\n${[...doc, ...optionalFields].join("\n")}`);
    } else {
      this.blocks.push(`class ${entry.name}(TypedDict):\n${body([...doc, ...requiredFields]).join("\n")}`);
    }
    return entry.name;
  }

  /** A type alias line (`Name = Union[...]`). */
  alias(name: string, members: readonly string[]): void {
    this.blocks.push(`${name} = Union[\n${members.map((member) => `    ${member},`).join("\n")}\n]`);
  }

  /** The Python type of a schema; nested objects are declared under `name`. */
  type(schema: JsonSchema, name: string): string {
    if ("const" in schema) return `Literal[${literal(schema.const)}]`;
    if (Array.isArray(schema.enum)) return `Literal[${schema.enum.map(literal).join(", ")}]`;
    if (Array.isArray(schema.anyOf)) {
      const options = (schema.anyOf as JsonSchema[]).map((option, i) => this.type(option, `${name}${memberTag(option) ?? String(i + 1)}`));
      return union(options);
    }
    const type = schema.type;
    if (Array.isArray(type)) return union(type.map((each) => primitive(String(each))));
    if (type === "array") return `List[${this.type((schema.items ?? {}) as JsonSchema, name)}]`;
    if (type === "object") {
      if (Object.keys((schema.properties ?? {}) as object).length === 0) return "Dict[str, Any]";
      return this.declare({ name, schema });
    }
    if (typeof type === "string") return primitive(type);
    return "Any";
  }

  text(): string {
    return this.blocks.join("\n\n\n");
  }
}

function memberTag(option: JsonSchema): string | undefined {
  const tag = ((option.properties ?? {}) as Record<string, JsonSchema>).type;
  return tag !== undefined && typeof tag.const === "string" ? pascal(tag.const) : undefined;
}

function union(options: readonly string[]): string {
  const unique = [...new Set(options)];
  return unique.length === 1 ? unique[0]! : `Union[${unique.join(", ")}]`;
}

function literal(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return value === true ? "True" : value === false ? "False" : String(value);
  if (value === null) return "None";
  throw new Error(`literal ${JSON.stringify(value)} has no Python Literal form (scripts/schema-gen/python.ts)`);
}

function primitive(name: string): string {
  switch (name) {
    case "string":
      return "str";
    case "integer":
      return "int";
    case "number":
      return "float";
    case "boolean":
      return "bool";
    case "null":
      return "None";
    default:
      return "Any";
  }
}
