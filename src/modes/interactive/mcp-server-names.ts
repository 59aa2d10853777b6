/**
 * The server names in a project's ./.zot/mcp.json, for the trust dialog:
 * read cheaply (no src/mcp: names only, the file at most MAX_FILE_BYTES,
 * parsed with parseJson), the `mcpServers` object's keys in file order, at
 * most MAX_NAMES of them (the rest counted), each as plain text (no escape
 * sequence, colour included) cut to MAX_NAME_CHARS columns. A file that is missing, too large, not JSON, or whose
 * top level or `mcpServers` is not an object is "unreadable" (the trust
 * question is still asked: the fingerprint covers its bytes either way).
 */
import { statSync } from "node:fs";
import { MAX_JSON_DEPTH, parseJson, isPlainObject } from "../../common/json.ts";
import { displayText, fitWidth } from "../../tui/index.ts";
import { readRegularText } from "../../common/regular-file.ts";

export const MAX_FILE_BYTES = 1024 * 1024;
export const MAX_NAMES = 10;
export const MAX_NAME_CHARS = 40;

export type McpServerNames = { readonly ok: true; readonly names: readonly string[]; readonly more: number } | { readonly ok: false };

/** Plain text (no escape sequence at all, not even colour), one line, at most MAX_NAME_CHARS columns. */
function shown(name: string): string {
  const clean = displayText(name).replace(/\x1b\[[0-9;:]*m/g, "").replace(/\s+/g, " ");
  return fitWidth(clean, MAX_NAME_CHARS);
}

export function readMcpServerNames(file: string): McpServerNames {
  let text: string;
  try {
    if (statSync(file).size > MAX_FILE_BYTES) return { ok: false };
    text = readRegularText(file);
  } catch {
    return { ok: false };
  }
  if (text.trim() === "") return { ok: true, names: [], more: 0 };
  const parsed = parseJson(text, MAX_JSON_DEPTH);
  if (!parsed.ok || !isPlainObject(parsed.value)) return { ok: false };
  const table = parsed.value.mcpServers;
  if (table === undefined) return { ok: true, names: [], more: 0 };
  if (!isPlainObject(table)) return { ok: false };
  const all = Object.keys(table);
  return { ok: true, names: all.slice(0, MAX_NAMES).map(shown), more: Math.max(0, all.length - MAX_NAMES) };
}

/** "github, files" / "a, b … and 3 more" / "none" / "unreadable". */
export function describeMcpServerNames(read: McpServerNames): string {
  if (!read.ok) return "unreadable";
  if (read.names.length === 0) return "none";
  return `${read.names.join(", ")}${read.more > 0 ? ` … and ${read.more} more` : ""}`;
}
