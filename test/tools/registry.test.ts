import { describe, expect, test } from "bun:test";
import { builtinTools, ToolRegistry, textOutcome, type Tool } from "../../src/tools/index.ts";

function fakeTool(name: string, extra: Partial<Pick<Tool, "extension" | "deferred" | "description">> = {}): Tool {
  return {
    name,
    description: extra.description ?? `${name} tool`,
    schema: { type: "object", properties: {} },
    ...(extra.extension !== undefined ? { extension: extra.extension } : {}),
    ...(extra.deferred !== undefined ? { deferred: extra.deferred } : {}),
    execute: async () => textOutcome(name),
  };
}

describe("builtinTools", () => {
  test("all four by default, --tools selects (unknown ignored), --no-tools gives none", () => {
    expect(builtinTools({}).map((t) => t.name)).toEqual(["read", "write", "edit", "bash"]);
    expect(builtinTools({ only: ["bash", "read", "nope"] }).map((t) => t.name)).toEqual(["read", "bash"]);
    expect(builtinTools({ none: true })).toEqual([]);
    expect(builtinTools({ only: [] })).toEqual([]);
  });
});

describe("ToolRegistry", () => {
  test("built-ins win and the first extension to register a name wins", () => {
    const registry = new ToolRegistry(builtinTools({}));
    expect(registry.register(fakeTool("read", { extension: "evil" }))).toBe(false);
    expect(registry.get("read")?.extension).toBeUndefined();
    expect(registry.register(fakeTool("weather", { extension: "first", description: "first" }))).toBe(true);
    expect(registry.register(fakeTool("weather", { extension: "second", description: "second" }))).toBe(false);
    expect(registry.get("weather")?.extension).toBe("first");
  });

  test("extensions cannot take a reserved built-in name even when it is disabled", () => {
    const registry = new ToolRegistry(builtinTools({ only: ["read"] }));
    expect(registry.register(fakeTool("bash", { extension: "shell" }))).toBe(false);
    expect(registry.register(fakeTool("skill"))).toBe(true);
  });

  test("specs are sorted by name and hide deferred tools until activated", () => {
    const registry = new ToolRegistry(builtinTools({}));
    registry.register(fakeTool("zeta", { extension: "x" }));
    registry.register(fakeTool("alpha", { extension: "x", deferred: true }));
    registry.register(fakeTool("beta", { extension: "y", deferred: true }));
    expect(registry.specs(new Set()).map((s) => s.name)).toEqual(["bash", "edit", "read", "write", "zeta"]);
    expect(registry.specs(new Set(["beta"])).map((s) => s.name)).toEqual(["bash", "beta", "edit", "read", "write", "zeta"]);
    expect(registry.activate(["alpha", "unknown", "zeta", "alpha"])).toEqual(["alpha"]);
    expect(registry.specs(new Set()).map((s) => s.name)).toEqual(["alpha", "bash", "edit", "read", "write", "zeta"]);
    const spec = registry.specs(new Set()).find((s) => s.name === "zeta");
    expect(spec).toEqual({ name: "zeta", description: "zeta tool", schema: { type: "object", properties: {} } });
  });

  test("unregisterExtension removes only that extension's tools and frees the names", () => {
    const registry = new ToolRegistry(builtinTools({}));
    registry.register(fakeTool("one", { extension: "a", deferred: true }));
    registry.register(fakeTool("two", { extension: "a" }));
    registry.register(fakeTool("three", { extension: "b" }));
    registry.activate(["one"]);
    expect(registry.unregisterExtension("a").sort()).toEqual(["one", "two"]);
    expect(registry.get("one")).toBeUndefined();
    expect(registry.get("three")).toBeDefined();
    expect(registry.unregisterExtension("nobody")).toEqual([]);
    expect(registry.register(fakeTool("one", { extension: "c", deferred: true }))).toBe(true);
    expect(registry.specs(new Set()).map((s) => s.name)).not.toContain("one");
  });

  test("a built-in that yields to extensions (agent) is replaced by an extension tool of its name and comes back after", () => {
    const registry = new ToolRegistry(builtinTools({}));
    const builtin: Tool = { ...fakeTool("agent"), yieldsToExtension: true };
    expect(registry.register(builtin)).toBe(true);
    // Another built-in of the name does not replace it; an extension's does.
    expect(registry.register(fakeTool("agent"))).toBe(false);
    expect(registry.register(fakeTool("agent", { extension: "theirs", description: "their agent" }))).toBe(true);
    expect(registry.get("agent")?.extension).toBe("theirs");
    // A second extension does not take it from the first.
    expect(registry.register(fakeTool("agent", { extension: "late" }))).toBe(false);
    expect(registry.unregisterExtension("theirs")).toEqual(["agent"]);
    expect(registry.get("agent")).toBe(builtin);
    // Built-ins that do not yield still win.
    expect(registry.register(fakeTool("bash", { extension: "theirs" }))).toBe(false);
  });

  test("unregister removes one non-built-in tool by name (an MCP tool that left) and never a built-in", () => {
    const registry = new ToolRegistry(builtinTools({}));
    expect(registry.register(fakeTool("srv__echo"))).toBe(true);
    expect(registry.unregister("srv__echo")).toBe(true);
    expect(registry.has("srv__echo")).toBe(false);
    expect(registry.unregister("srv__echo")).toBe(false);
    expect(registry.unregister("bash")).toBe(false);
    expect(registry.has("bash")).toBe(true);
  });
});
