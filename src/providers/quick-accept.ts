/**
 * A fast yes for values a valibot schema accepts, for the stream events of
 * every response (shared.ts validateEvent). `quickAccept(schema)` compiles
 * the schema, once, into a plain predicate that returns true only for
 * values the schema accepts unchanged, so the caller may use the value
 * itself instead of valibot's copy; anything else (false) goes through
 * valibot, which decides and words the error exactly as before. Sound by
 * construction for the schema kinds it knows: loose_object (own entries
 * checked, unknown keys allowed), unknown, string, number (not NaN), boolean,
 * literal, optional and nullish without defaults, array. A schema with a
 * pipe, a default, a fallback or of any other kind compiles to "never"
 * (always valibot). Purely a shortcut: what is accepted, and every error
 * text, is valibot's.
 */
import type * as v from "valibot";

export type QuickAccept = (value: unknown) => boolean;

const NEVER: QuickAccept = () => false;

interface SchemaShape {
  readonly type?: unknown;
  readonly pipe?: unknown;
  readonly default?: unknown;
  readonly fallback?: unknown;
  readonly wrapped?: unknown;
  readonly item?: unknown;
  readonly literal?: unknown;
  readonly entries?: unknown;
}

/** The compiled predicate, or undefined when the schema (or a part of it) is not one this shortcut knows. */
function compile(schema: SchemaShape): QuickAccept | undefined {
  if (schema.pipe !== undefined || schema.default !== undefined || schema.fallback !== undefined) return undefined;
  switch (schema.type) {
    case "unknown":
      return () => true;
    case "string":
      return (value) => typeof value === "string";
    case "number":
      return (value) => typeof value === "number" && !Number.isNaN(value);
    case "boolean":
      return (value) => typeof value === "boolean";
    case "literal": {
      const literal = schema.literal;
      if (typeof literal !== "string" && typeof literal !== "boolean" && (typeof literal !== "number" || Number.isNaN(literal))) return undefined;
      return (value) => value === literal;
    }
    case "optional": {
      const wrapped = compile(schema.wrapped as SchemaShape);
      return wrapped && ((value) => value === undefined || wrapped(value));
    }
    case "nullish": {
      const wrapped = compile(schema.wrapped as SchemaShape);
      return wrapped && ((value) => value === undefined || value === null || wrapped(value));
    }
    case "array": {
      const item = compile(schema.item as SchemaShape);
      return item && ((value) => Array.isArray(value) && value.every(item));
    }
    case "loose_object":
      return compileLooseObject(schema.entries as Readonly<Record<string, SchemaShape>>);
    default:
      return undefined;
  }
}

function compileLooseObject(entries: Readonly<Record<string, SchemaShape>>): QuickAccept | undefined {
  const checks: { readonly key: string; readonly accept: QuickAccept; readonly mayBeAbsent: boolean }[] = [];
  for (const key of Object.keys(entries)) {
    const entry = entries[key] as SchemaShape;
    const accept = compile(entry);
    if (accept === undefined) return undefined;
    checks.push({ key, accept, mayBeAbsent: entry.type === "optional" || entry.type === "nullish" });
  }
  return (value) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
    const record = value as Record<string, unknown>;
    for (const { key, accept, mayBeAbsent } of checks) {
      // valibot looks keys up with `in`: a key only on the prototype is left to it.
      if (!Object.hasOwn(record, key)) {
        if (!mayBeAbsent || key in record) return false;
        continue;
      }
      if (!accept(record[key])) return false;
    }
    return true;
  };
}

const compiled = new WeakMap<object, QuickAccept>();

/** The schema's quick predicate (compiled on first use, kept per schema object). */
export function quickAccept(schema: v.GenericSchema): QuickAccept {
  let accept = compiled.get(schema);
  if (accept === undefined) {
    accept = compile(schema as SchemaShape) ?? NEVER;
    compiled.set(schema, accept);
  }
  return accept;
}
