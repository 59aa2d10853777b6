// The published schemas (schemas/): generated from the valibot schemas and committed; this fails when
// they drift, when the converter meets a valibot feature it cannot express, when frames.d.ts stops
// type-checking, and when a JSON Schema's verdict on a sample frame differs from valibot's.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { generateSchemaFiles } from "../../scripts/gen-schemas.ts";
import { toJsonSchema, type JsonSchema } from "../../scripts/schema-gen/json-schema.ts";
import { inboundSchemas, ManifestSchema, outboundSchemas } from "../../src/ext/wire-schemas.ts";
import { REPO_ROOT } from "../support/binary.ts";

/** Enough of draft 2020-12 for the subset json-schema.ts emits. */
function accepts(schema: JsonSchema, value: unknown, root: JsonSchema = schema): boolean {
  if (typeof schema.$ref === "string") return accepts((root.$defs as Record<string, JsonSchema>)[schema.$ref.replace("#/$defs/", "")]!, value, root);
  if ("const" in schema && value !== schema.const) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  if (Array.isArray(schema.anyOf) && !(schema.anyOf as JsonSchema[]).some((option) => accepts(option, value, root))) return false;
  if (Array.isArray(schema.oneOf) && (schema.oneOf as JsonSchema[]).filter((option) => accepts(option, value, root)).length !== 1) return false;
  const types = schema.type === undefined ? [] : [schema.type].flat();
  const typeOf = (x: unknown): string => (x === null ? "null" : Array.isArray(x) ? "array" : typeof x);
  if (types.length > 0 && !types.some((type) => type === typeOf(value) || (type === "integer" && Number.isInteger(value)))) return false;
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength) return false;
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern).test(value)) return false;
  }
  if (Array.isArray(value) && schema.items && !value.every((item) => accepts(schema.items as JsonSchema, item, root))) return false;
  if (typeOf(value) === "object" && schema.properties) {
    const object = value as Record<string, unknown>;
    if (((schema.required ?? []) as string[]).some((key) => !(key in object))) return false;
    for (const [key, property] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
      if (key in object && !accepts(property, object[key], root)) return false;
    }
    if (schema.additionalProperties === false && Object.keys(object).some((key) => !(key in (schema.properties as object)))) return false;
  }
  return true;
}

describe("published schemas", () => {
  test("the committed files are what scripts/gen-schemas.ts generates (run it after changing a frame schema)", () => {
    for (const [path, text] of generateSchemaFiles()) {
      let committed = "";
      try {
        committed = readFileSync(join(REPO_ROOT, path), "utf8");
      } catch {
        throw new Error(`${path} is missing: run 'bun scripts/gen-schemas.ts'`);
      }
      if (committed !== text) throw new Error(`${path} drifted from src/ext/wire-schemas.ts: run 'bun scripts/gen-schemas.ts'`);
    }
  });

  test("every frame of both directions and the manifest has a draft 2020-12 schema", () => {
    const files = generateSchemaFiles();
    for (const type of Object.keys(inboundSchemas)) expect(files.has(`schemas/frames/extension-to-host/${type}.schema.json`)).toBe(true);
    for (const type of Object.keys(outboundSchemas)) expect(files.has(`schemas/frames/host-to-extension/${type}.schema.json`)).toBe(true);
    for (const [path, text] of files) {
      if (!path.endsWith(".json")) continue;
      const schema = JSON.parse(text) as JsonSchema;
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    }
  });

  test("frames.d.ts type-checks", () => {
    const tsc = Bun.spawnSync([join(REPO_ROOT, "node_modules", ".bin", "tsc"), "--noEmit", "--ignoreConfig", "--strict", join(REPO_ROOT, "schemas", "frames.d.ts")]);
    expect(`${tsc.stdout}${tsc.stderr}`).toBe("");
    expect(tsc.exitCode).toBe(0);
  });

  test("the converter refuses valibot features it cannot express, naming where", () => {
    expect(() => toJsonSchema(v.object({ when: v.date() }), "frame")).toThrow('frame.when: valibot "date"');
    expect(() => toJsonSchema(v.pipe(v.string(), v.email()), "frame")).toThrow('action "email"');
  });

  test("JSON Schema and valibot agree on sample frames", () => {
    const files = generateSchemaFiles();
    const anyInbound = JSON.parse(files.get("schemas/frames/extension-to-host.schema.json")!) as JsonSchema;
    const anyOutbound = JSON.parse(files.get("schemas/frames/host-to-extension.schema.json")!) as JsonSchema;
    const manifest = JSON.parse(files.get("schemas/extension.schema.json")!) as JsonSchema;
    const inbound: unknown[] = [
      { type: "hello", name: "x", capabilities: ["tools"], extra: 1 },
      { type: "hello", name: "" },
      { type: "hello", name: "x", capabilities: "tools" },
      { type: "tool_result", id: 7, content: [{ type: "text", text: "hi" }] },
      { type: "tool_result", id: true },
      { type: "tool_result", id: "a", content: [{ text: "no type" }] },
      { type: "command_response", id: "a", open_panel: { id: "p", lines: ["a"] } },
      { type: "command_response", id: "a", open_panel: { lines: ["a"] } },
      { type: "subscribe", on_timeout: "deny" },
      { type: "subscribe", on_timeout: "maybe" },
      { type: "panel_render", panel_id: "p", lines: [1] },
      { type: "call_tool", id: "1", name: "read", parent_id: 3 },
      { type: "register_tool", name: "t", schema: 5 },
      { type: "nope" },
    ];
    for (const frame of inbound) {
      const type = (frame as { type: string }).type;
      const schema = inboundSchemas[type as keyof typeof inboundSchemas];
      const expected = schema !== undefined && v.safeParse(schema, frame).success;
      expect({ frame, accepted: accepts(anyInbound, frame) }).toEqual({ frame, accepted: expected });
    }
    const outbound: unknown[] = [
      { type: "hello_ack", protocol_version: 1, zot_version: "0", provider: "p", model: "m", cwd: "/", extension_dir: "/", data_dir: "/", capabilities: [] },
      { type: "hello_ack", protocol_version: 2, zot_version: "0", provider: "p", model: "m", cwd: "/", extension_dir: "/", data_dir: "/", capabilities: [] },
      { type: "tool_result", id: "1", name: "read", content: [{ type: "image", mime_type: "image/png", data: "" }], is_error: false },
      { type: "tool_result", id: "1", name: "read", content: [{ type: "image" }], is_error: false },
      { type: "event", event: "turn_start", step: 1, sequence: 3 },
      { type: "panel_key", panel_id: "p" },
    ];
    for (const frame of outbound) {
      const schema = outboundSchemas[(frame as { type: keyof typeof outboundSchemas }).type];
      expect({ frame, accepted: accepts(anyOutbound, frame) }).toEqual({ frame, accepted: v.safeParse(schema, frame).success });
    }
    const manifests: unknown[] = [{ name: "ok", exec: "./x" }, { name: ".bad" }, { name: "x", args: [1] }, { name: "x", exec: "" }, { exec: "./x" }];
    for (const value of manifests) {
      expect({ value, accepted: accepts(manifest, value) }).toEqual({ value, accepted: v.safeParse(ManifestSchema, value).success });
    }
  });
});
