/** Every name the chat screen runs as a built-in (aliases included) is one an extension command cannot take, so doctor and the popup never list an extension command no one can reach. */
import { expect, test } from "bun:test";
import { BUILTIN_SLASH_COMMANDS } from "../../../src/ext/registry.ts";
import { BUILTIN_COMMANDS } from "../../../src/modes/interactive/commands.ts";

test("the extension registry reserves every built-in name and alias except the ones that yield to extensions", () => {
  const reserved = new Set<string>(BUILTIN_SLASH_COMMANDS);
  const run = BUILTIN_COMMANDS.filter((command) => command.yieldsToExtension !== true).flatMap((command) => [command.name, ...(command.aliases ?? [])]);
  expect(run.filter((name) => !reserved.has(name))).toEqual([]);
  // /agents yields: an extension's /agents replaces it.
  expect(reserved.has("agents")).toBe(false);
});
