/**
 * The command collision rule (src/ext/registry.ts): a command whose name
 * another extension holds is shadowed but kept as `<extension>:<command>`;
 * a built-in's name or a second registration by the same extension is not
 * kept; the cap counts the kept ones; unregistering drops them. And the
 * slash parser (src/modes/commands.ts) reads `/<extension>:<command> args`.
 */
import { describe, expect, test } from "bun:test";
import { describeRefusal, ExtensionRegistry } from "../../src/ext/registry.ts";
import { MAX_COMMANDS_PER_EXTENSION } from "../../src/ext/registration-rules.ts";
import { parseSlashCommand } from "../../src/modes/commands.ts";

const command = (name: string, description = `${name} command`) => ({ type: "register_command" as const, name, description });

describe("qualified commands", () => {
  test("a name held by another extension stays reachable as <extension>:<command>", () => {
    const registry = new ExtensionRegistry();
    expect(registry.registerCommand("alpha", command("dup", "alpha's"))).toEqual({ ok: true });
    const result = registry.registerCommand("beta", command("Dup", "beta's"));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(describeRefusal(result)).toBe("command /Dup not registered: already taken by alpha; reachable as /beta:Dup");
    expect(registry.command("dup")?.extension).toBe("alpha");
    expect(registry.command("beta:dup")).toEqual({ name: "Dup", description: "beta's", extension: "beta" });
    expect(registry.command("BETA:DUP")?.extension).toBe("beta");
    // The holder answers to its own qualified name; a wrong extension does not.
    expect(registry.command("alpha:dup")?.extension).toBe("alpha");
    expect(registry.command("gamma:dup")).toBeUndefined();
    expect(registry.commands().map((entry) => entry.extension)).toEqual(["alpha"]);
    expect(registry.qualifiedCommands().map((entry) => entry.invokeAs)).toEqual(["beta:Dup"]);
  });

  test("built-in names and the same extension's second registration are not kept", () => {
    const registry = new ExtensionRegistry();
    const builtin = registry.registerCommand("alpha", command("help"));
    expect(builtin.ok === false && builtin.shadowed?.qualified).toBeUndefined();
    registry.registerCommand("alpha", command("dup"));
    const twice = registry.registerCommand("alpha", command("DUP"));
    expect(twice.ok === false && twice.shadowed?.qualified).toBeUndefined();
    expect(registry.command("alpha:help")).toBeUndefined();
    expect(registry.qualifiedCommands()).toEqual([]);
  });

  test("kept commands count against the cap; unregistering and clear drop them", () => {
    const registry = new ExtensionRegistry();
    registry.registerCommand("alpha", command("dup"));
    for (let i = 0; i < MAX_COMMANDS_PER_EXTENSION - 1; i++) registry.registerCommand("beta", command(`own${i}`));
    registry.registerCommand("beta", command("dup"));
    expect(registry.command("beta:dup")).toBeDefined();
    // Full now: another collision is shadowed without being kept, a new name is rejected.
    registry.registerCommand("alpha", command("more"));
    const full = registry.registerCommand("beta", command("more"));
    expect(full.ok === false && full.shadowed !== undefined && full.shadowed.qualified === undefined).toBe(true);
    expect(registry.registerCommand("beta", command("fresh")).ok === false).toBe(true);

    registry.unregisterExtension("beta");
    expect(registry.command("beta:dup")).toBeUndefined();
    registry.registerCommand("gamma", command("dup"));
    expect(registry.command("gamma:dup")).toBeDefined();
    registry.clear();
    expect(registry.qualifiedCommands()).toEqual([]);
  });
});

describe("parseSlashCommand", () => {
  test("reads /<extension>:<command> with its arguments", () => {
    expect(parseSlashCommand("/extui-twin:dup  a b ")).toEqual({ name: "extui-twin:dup", args: "a b" });
    expect(parseSlashCommand("/@scope+x.y:cmd")).toEqual({ name: "@scope+x.y:cmd", args: "" });
    expect(parseSlashCommand("/plain")).toEqual({ name: "plain", args: "" });
    expect(parseSlashCommand("/:cmd")).toBeUndefined();
    expect(parseSlashCommand("/a:b:c")).toBeUndefined();
    expect(parseSlashCommand("/.hidden:cmd")).toBeUndefined();
  });
});
