/** Registration checks and the registry's caps (the binary-level behaviour is in hostile-extensions.test.ts). */
import { describe, expect, test } from "bun:test";
import { ExtensionRegistry } from "../../src/ext/registry.ts";
import {
  DEFAULT_TOOL_SCHEMA, MAX_TOTAL_TOOL_DEFINITION_BYTES, checkCommandName, checkToolName, checkToolSchema,
} from "../../src/ext/registration-rules.ts";

function toolFrame(name: string, schema?: unknown, description = "") {
  return { type: "register_tool" as const, name, description, schema };
}

describe("registration rules", () => {
  test("tool and command names", () => {
    for (const good of ["a", "read_notes", "x-y", "A9", "t".repeat(64)]) expect(checkToolName(good)).toBeUndefined();
    for (const bad of ["", "a b", "a.b", "ä", "t".repeat(65), "a/b"]) expect(checkToolName(bad)).toContain("1-64 characters");
    expect(checkCommandName("reload-notes")).toBeUndefined();
    expect(checkCommandName("two words")).toContain("1-64 characters");
  });

  test("schemas: missing or null gets the default; objects of type object pass; everything else is refused with a reason", () => {
    expect(checkToolSchema(undefined)).toEqual({ ok: true, value: DEFAULT_TOOL_SCHEMA });
    expect(checkToolSchema(null)).toEqual({ ok: true, value: DEFAULT_TOOL_SCHEMA });
    expect(checkToolSchema({ type: "object" }).ok).toBe(true);
    const refused = (schema: unknown): string => {
      const checked = checkToolSchema(schema);
      return checked.ok ? "accepted" : checked.reason;
    };
    expect(refused([])).toBe("the schema must be a JSON Schema object, not an array");
    expect(refused(5)).toBe("the schema must be a JSON Schema object, not a number");
    expect(refused({ properties: {} })).toBe('the schema must have "type": "object" (got none)');
    expect(refused({ type: "object", properties: [] })).toBe(`the schema's "properties" must be an object, not an array`);
    expect(refused({ type: "object", required: "x" })).toBe(`the schema's "required" must be an array of strings`);
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { type: "object", properties: { x: deep } };
    expect(refused(deep)).toBe("the schema nests deeper than 128 levels");
  });
});

describe("registry caps", () => {
  test("a rejected tool leaves the others; per-extension caps; the total cap counts every extension and frees on unregister", () => {
    const registry = new ExtensionRegistry();
    expect(registry.registerTool("a", toolFrame("bad name")).ok).toBe(false);
    expect(registry.registerTool("a", toolFrame("good")).ok).toBe(true);
    for (let i = 0; i < 130; i++) registry.registerTool("a", toolFrame(`t${i}`));
    expect(registry.tools().filter((tool) => tool.extension === "a")).toHaveLength(128);
    expect(registry.rejectedTotal).toBe(4);
    expect(registry.rejected.length).toBe(4);

    const big = "d".repeat(15_000);
    let accepted = 0;
    for (let i = 0; i < 30; i++) if (registry.registerTool("b", toolFrame(`b${i}`, undefined, big)).ok) accepted += 1;
    expect(registry.toolDefinitionBytes).toBeLessThanOrEqual(MAX_TOTAL_TOOL_DEFINITION_BYTES);
    expect(accepted).toBeLessThan(30);
    registry.unregisterExtension("b");
    expect(registry.registerTool("c", toolFrame("c0", undefined, big)).ok).toBe(true);
  });

  test("refusal records are bounded per extension; the rest are counted", () => {
    const registry = new ExtensionRegistry();
    for (let i = 0; i < 10_000; i++) registry.registerTool("spam", toolFrame(`bad ${i}`));
    expect(registry.rejected.length).toBe(20);
    expect(registry.rejectedTotal).toBe(10_000);
    expect(registry.omittedRefusals("spam").rejected).toBe(9_980);
  });
});
