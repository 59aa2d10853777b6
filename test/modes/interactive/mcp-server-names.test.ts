/**
 * The trust dialog's reading of ./.zot/mcp.json (mcp-server-names.ts):
 * names in file order, at most MAX_NAMES (the rest counted), sanitized and
 * cut; an empty file or no `mcpServers` is "none"; a file that is missing,
 * too large, not JSON, nested too deep or of the wrong shape is
 * "unreadable".
 */
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeMcpServerNames, MAX_FILE_BYTES, MAX_NAME_CHARS, readMcpServerNames } from "../../../src/modes/interactive/mcp-server-names.ts";
import { removeTempDirs, tempDir } from "../../support/temp.ts";

afterAll(removeTempDirs);

function names(text: string): string {
  const file = join(tempDir("zot-mcp-names-"), "mcp.json");
  writeFileSync(file, text);
  return describeMcpServerNames(readMcpServerNames(file));
}

test("names in file order, bounded, sanitized", () => {
  expect(names(JSON.stringify({ mcpServers: { github: {}, files: {} } }))).toBe("github, files");
  const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`s${i}`, {}]));
  expect(names(JSON.stringify({ mcpServers: many }))).toBe("s0, s1, s2, s3, s4, s5, s6, s7, s8, s9 … and 2 more");
  const shown = names(JSON.stringify({ mcpServers: { ["\u001b[2Jevil\u001b[31m\nname" + "x".repeat(100)]: {} } }));
  expect(shown).not.toContain("\u001b");
  expect(shown).not.toContain("\n");
  expect(shown.startsWith("evil name")).toBe(true);
  expect(Bun.stringWidth(shown)).toBe(MAX_NAME_CHARS);
});

test("none and unreadable", () => {
  expect(names("")).toBe("none");
  expect(names("{}")).toBe("none");
  expect(names('{"mcpServers": {"a": ')).toBe("unreadable");
  expect(names("[1]")).toBe("unreadable");
  expect(names('{"mcpServers": []}')).toBe("unreadable");
  expect(names(`{"mcpServers": {"a": ${"[".repeat(300)}${"]".repeat(300)}}}`)).toBe("unreadable");
  expect(names(`{"mcpServers": {"a": "${"x".repeat(MAX_FILE_BYTES)}"}}`)).toBe("unreadable");
  expect(describeMcpServerNames(readMcpServerNames(join(tempDir("zot-mcp-names-"), "missing.json")))).toBe("unreadable");
});
