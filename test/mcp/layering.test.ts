/** The layering rule modes → mcp → tools / common: src/mcp never imports src/ext, and src/ext never imports src/mcp. */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const SRC = join(import.meta.dir, "..", "..", "src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** `file: specifier` for every import/export-from whose specifier reaches into `area`. */
function importsInto(from: string, area: string): string[] {
  const found: string[] = [];
  for (const file of sources(join(SRC, from))) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:from|import\()\s*["']([^"']+)["']/g)) {
      const specifier = match[1]!;
      if (specifier.includes(`/${area}/`) || specifier.startsWith(`../${area}`)) found.push(`${relative(SRC, file)}: ${specifier}`);
    }
  }
  return found;
}

describe("layering", () => {
  test("src/mcp does not import src/ext", () => {
    expect(importsInto("mcp", "ext")).toEqual([]);
  });
  test("src/ext does not import src/mcp", () => {
    expect(importsInto("ext", "mcp")).toEqual([]);
  });
});
