/**
 * Edits of one mcp.json for `zot mcp add|remove|enable|disable`. The file is
 * read as it is on disk, the edit changes only the `mcpServers` entries it
 * names, every other key (top level and inside untouched entries) is kept in
 * place, and the file is replaced atomically (common/atomic.ts) as pretty JSON
 * with a 2-space indent. The global file ($ZOT_HOME/mcp.json) is written 0600
 * (it may hold bearer tokens) in a 0700 $ZOT_HOME; a project file keeps its
 * mode (0644 when new). A missing file is an empty one. A file that cannot be
 * read, is larger than MAX_MCP_FILE_BYTES, is not valid JSON, whose top level
 * is not an object or whose `mcpServers` is not an object is never
 * overwritten: the edit fails with a ZotError naming the file (and the field),
 * code "mcp.config_unwritable". A file changed by someone else between the
 * read and the rename fails with code "mcp.config_changed".
 */
import { readFileSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "../common/atomic.ts";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";
import { MAX_JSON_DEPTH, describeJsonProblem, parseJson } from "../common/json.ts";
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "../common/private.ts";
import { MAX_MCP_FILE_BYTES } from "./config.ts";

export type McpServerTable = Record<string, unknown>;

function readText(path: string): string | undefined {
  try {
    const size = statSync(path).size;
    if (size > MAX_MCP_FILE_BYTES) {
      throw new ZotError("mcp.config_unwritable", `${path}: larger than ${MAX_MCP_FILE_BYTES / 1024 / 1024} MiB; not changed`, { file: path });
    }
    return readFileSync(path, "utf8");
  } catch (err) {
    if (err instanceof ZotError) throw err;
    if (systemErrorCode(err) === "ENOENT") return undefined;
    throw new ZotError("mcp.config_unwritable", `${path}: cannot be read (${errorMessage(err)}); not changed`, { file: path });
  }
}

/** The parsed top level of an mcp.json about to be edited (throws naming the file when it must not be overwritten). */
export function readMcpDocument(path: string): { top: Record<string, unknown>; servers: McpServerTable; text: string | undefined } {
  const text = readText(path);
  if (text === undefined || text.trim() === "") return { top: {}, servers: {}, text };
  const parsed = parseJson(text, MAX_JSON_DEPTH);
  if (!parsed.ok) {
    throw new ZotError("mcp.config_unwritable", `${path}: not valid JSON (${describeJsonProblem(parsed.problem)}); not changed (fix or remove it)`, { file: path });
  }
  const top = parsed.value;
  if (typeof top !== "object" || top === null || Array.isArray(top)) {
    throw new ZotError("mcp.config_unwritable", `${path}: not a JSON object; not changed (fix or remove it)`, { file: path });
  }
  const servers = (top as Record<string, unknown>).mcpServers ?? {};
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    throw new ZotError("mcp.config_unwritable", `${path}: field "mcpServers": not an object; not changed (fix or remove it)`, { file: path, field: "mcpServers" });
  }
  return { top: top as Record<string, unknown>, servers: servers as McpServerTable, text };
}

export interface McpEditOptions {
  /** "global": 0600 in a 0700 directory; "project": the file's own mode, 0644 when new. */
  readonly scope: "global" | "project";
}

/**
 * Reads `path`, lets `edit` change the server table (it may throw a ZotError
 * to refuse), and writes the result atomically when `edit` returns true.
 */
export async function editMcpFile(path: string, options: McpEditOptions, edit: (servers: McpServerTable) => boolean): Promise<void> {
  const { top, servers, text } = readMcpDocument(path);
  if (!edit(servers)) return;
  const next: Record<string, unknown> = { ...top, mcpServers: servers };
  let mode = PRIVATE_FILE_MODE;
  if (options.scope === "global") ensurePrivateDir(dirname(path));
  else {
    await mkdir(dirname(path), { recursive: true });
    mode = text === undefined ? 0o644 : statSync(path).mode & 0o777;
  }
  const verify = (): void => {
    let now: string | undefined;
    try {
      now = readFileSync(path, "utf8");
    } catch (err) {
      if (systemErrorCode(err) !== "ENOENT") throw err;
    }
    if (now !== text) throw new ZotError("mcp.config_changed", `${path}: changed while zot was editing it; not changed (try again)`, { file: path });
  };
  await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`, { mode, verify });
}
