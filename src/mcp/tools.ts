/**
 * MCP tools as zot Tools. A listed tool becomes `<prefix><tool>` (prefix
 * default `<server>__`), every character outside [A-Za-z0-9_-] replaced by
 * `_`; a name longer than 64 characters keeps its first 55 and gets `_` and
 * 8 hex digits of a hash of the full name. The inputSchema is checked with
 * the extension registration rules (JSON Schema object of "type": "object",
 * nesting ≤ MAX_VALUE_DEPTH, object `properties`, string-array `required`);
 * a description longer than MAX_TOOL_DESCRIPTION_CHARS is cut there. A tool
 * without a string name, with an invalid schema, whose zot name is a
 * built-in's or already taken by an earlier tool of the server, or whose
 * definition does not fit the shared definition budget (the bytes all MCP
 * tools may add to every request) is skipped with a problem naming the
 * server and the tool; the rest load. Results: text → text; image →
 * image block when its mimeType is one providers accept and its data is
 * base64, else a text note; audio, embedded resources (their text shown,
 * blobs described) and resource_link → text descriptions; structuredContent
 * → its JSON as text when there is no text content; isError → error result.
 * Text past MAX_RESULT_TEXT_CHARS in all is cut with a note.
 */
import * as v from "valibot";
import { MAX_TOOL_DESCRIPTION_CHARS, checkToolSchema, definitionBytes } from "../tools/definition-rules.ts";
import { BUILTIN_TOOL_NAMES, type Tool, type ToolContext, type ToolOutcome, type ToolResultContent } from "../tools/types.ts";
import type { CallToolOutput } from "./session.ts";

export const MAX_TOOL_NAME_CHARS = 64;
/** Serialized bytes of every MCP tool definition together (sent with every model request). */
export const MAX_TOTAL_MCP_DEFINITION_BYTES = 256 * 1024;
/** Characters of text one MCP result may hand the model. */
export const MAX_RESULT_TEXT_CHARS = 256 * 1024;
const IMAGE_MIME_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
/** The largest image (decoded) a tool result may carry to the model, whatever the transport (HTTP answers may be 16 MiB). */
export const MAX_MCP_IMAGE_BYTES = 4 * 1024 * 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const RESERVED: ReadonlySet<string> = new Set([...BUILTIN_TOOL_NAMES, "agent"]);

const ListedTool = v.looseObject({
  name: v.pipe(v.string(), v.minLength(1)),
  description: v.optional(v.string()),
  title: v.optional(v.string()),
  inputSchema: v.optional(v.unknown()),
});

export interface McpToolDefinition {
  /** The name the model sees. */
  readonly zotName: string;
  /** The name the server knows. */
  readonly mcpName: string;
  readonly description: string;
  readonly schema: Readonly<Record<string, unknown>>;
  readonly bytes: number;
}

/** A listed tool that does not load: `tool` is its MCP name (or a label such as "(no name)"), `reason` why. */
export interface SkippedTool {
  readonly tool: string;
  readonly reason: string;
}

/** Bytes still free for MCP tool definitions, shared by every server of a run. */
export class DefinitionBudget {
  used = 0;
  constructor(readonly limit: number = MAX_TOTAL_MCP_DEFINITION_BYTES) {}
}

function hash8(text: string): string {
  return (Bun.hash.crc32(text) >>> 0).toString(16).padStart(8, "0");
}

export function defaultPrefix(server: string): string {
  return `${server}__`;
}

/** The provider-safe zot name of an MCP tool. */
export function zotToolName(prefix: string, tool: string): string {
  const full = `${prefix}${tool}`;
  const safe = full.replace(/[^A-Za-z0-9_-]/g, "_");
  if (safe.length <= MAX_TOOL_NAME_CHARS) return safe;
  return `${safe.slice(0, MAX_TOOL_NAME_CHARS - 9)}_${hash8(full)}`;
}

function labelOf(raw: unknown): string {
  const name = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>).name : undefined;
  if (typeof name === "string") return JSON.stringify(name.slice(0, 80));
  return name === undefined ? "(no name)" : `(name ${JSON.stringify(name)?.slice(0, 40) ?? "?"})`;
}

/**
 * Validated definitions of a server's listed tools, in order, and the
 * problems of those skipped. `budget` is charged for what is accepted;
 * `previousBytes` (this server's earlier definitions, being replaced) is
 * given back first.
 */
export function toolDefinitions(
  server: string,
  prefix: string,
  listed: readonly unknown[],
  budget: DefinitionBudget,
  previousBytes = 0,
): { definitions: McpToolDefinition[]; problems: string[]; skipped: SkippedTool[] } {
  budget.used -= previousBytes;
  const definitions: McpToolDefinition[] = [];
  const problems: string[] = [];
  const skipped: SkippedTool[] = [];
  const taken = new Set<string>();
  for (const raw of listed) {
    const parsed = v.safeParse(ListedTool, raw);
    if (!parsed.success) {
      const reason = 'it needs a non-empty string "name"';
      skipped.push({ tool: labelOf(raw), reason });
      problems.push(`mcp server ${server}: tool ${labelOf(raw)} skipped: ${reason}`);
      continue;
    }
    const tool = parsed.output;
    const skip = (why: string): void => {
      skipped.push({ tool: tool.name.slice(0, 80), reason: why });
      problems.push(`mcp server ${server}: tool "${tool.name.slice(0, 80)}" skipped: ${why}`);
    };
    const schema = checkToolSchema(tool.inputSchema);
    if (!schema.ok) {
      skip(`invalid inputSchema: ${schema.reason}`);
      continue;
    }
    const zotName = zotToolName(prefix, tool.name);
    if (RESERVED.has(zotName)) {
      skip(`its name "${zotName}" is a built-in tool's`);
      continue;
    }
    if (taken.has(zotName)) {
      skip(`its name "${zotName}" is taken by an earlier tool of this server`);
      continue;
    }
    const text = tool.description ?? tool.title ?? "";
    const description = text.length > MAX_TOOL_DESCRIPTION_CHARS ? `${text.slice(0, MAX_TOOL_DESCRIPTION_CHARS - 1)}…` : text;
    const bytes = definitionBytes(zotName, description, schema.value);
    if (budget.used + bytes > budget.limit) {
      skip(`its definition (${bytes} bytes) does not fit the ${budget.limit}-byte budget of all MCP tool definitions`);
      continue;
    }
    budget.used += bytes;
    taken.add(zotName);
    definitions.push({ zotName, mcpName: tool.name, description, schema: schema.value, bytes });
  }
  return { definitions, problems, skipped };
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function describeResource(block: Record<string, unknown>, server: string): string {
  const resource = record(block.resource);
  const uri = str(resource.uri) ?? "(no uri)";
  const mime = str(resource.mimeType);
  const head = `[resource ${uri}${mime === undefined ? "" : ` (${mime})`}]`;
  const text = str(resource.text);
  if (text !== undefined) return `${head}\n${text}`;
  const blob = str(resource.blob);
  if (blob !== undefined) return `${head} ${Math.floor((blob.length * 3) / 4)} bytes of binary data from mcp server ${server}, not shown`;
  return head;
}

function blockContent(block: Record<string, unknown>, server: string): ToolResultContent {
  const type = str(block.type);
  switch (type) {
    case "text":
      return { type: "text", text: str(block.text) ?? "" };
    case "image": {
      const mime = str(block.mimeType) ?? "";
      const data = (str(block.data) ?? "").replace(/\s+/g, "");
      if (IMAGE_MIME_TYPES.has(mime) && data.length > 0 && data.length % 4 === 0 && BASE64.test(data)) {
        const bytes = Math.floor((data.length * 3) / 4);
        if (bytes > MAX_MCP_IMAGE_BYTES) {
          return { type: "text", text: `[image from mcp server ${server} not shown: ${bytes} bytes, over the ${MAX_MCP_IMAGE_BYTES}-byte limit for an image]` };
        }
        return { type: "image", mime_type: mime, data };
      }
      return { type: "text", text: `[image from mcp server ${server} not shown: needs a mimeType of ${[...IMAGE_MIME_TYPES].join(", ")} and base64 data (got ${JSON.stringify(mime.slice(0, 60))})]` };
    }
    case "audio": {
      const data = str(block.data) ?? "";
      return { type: "text", text: `[audio (${str(block.mimeType) ?? "unknown type"}, ${Math.floor((data.length * 3) / 4)} bytes) from mcp server ${server}, not shown]` };
    }
    case "resource":
      return { type: "text", text: describeResource(block, server) };
    case "resource_link": {
      const parts = [str(block.name), str(block.uri), str(block.mimeType) === undefined ? undefined : `(${str(block.mimeType)})`, str(block.description)];
      return { type: "text", text: `[resource link: ${parts.filter((part) => part !== undefined && part !== "").join(" ")}]` };
    }
    default:
      return { type: "text", text: `[unknown content type ${JSON.stringify((type ?? typeof block.type).slice(0, 40))} from mcp server ${server}]` };
  }
}

/** The ToolOutcome of an MCP tools/call result. */
export function mapCallResult(server: string, tool: string, result: CallToolOutput): ToolOutcome {
  const content: ToolResultContent[] = [];
  let textChars = 0;
  let cut = 0;
  const pushText = (text: string): void => {
    const room = MAX_RESULT_TEXT_CHARS - textChars;
    if (text.length > room) {
      cut += text.length - Math.max(room, 0);
      text = text.slice(0, Math.max(room, 0));
    }
    textChars += text.length;
    if (text !== "") content.push({ type: "text", text });
  };
  for (const raw of result.content) {
    const mapped = blockContent(record(raw), server);
    if (mapped.type === "text") pushText(mapped.text);
    else content.push(mapped);
  }
  if (result.structuredContent !== undefined && !content.some((block) => block.type === "text")) {
    pushText(JSON.stringify(result.structuredContent, null, 2));
  }
  if (cut > 0) content.push({ type: "text", text: `[… ${cut} more characters of the mcp result not shown (limit ${MAX_RESULT_TEXT_CHARS}) …]` });
  if (content.length === 0) content.push({ type: "text", text: "(mcp server returned no content)" });
  return { content, isError: result.isError === true, details: { mcp_server: server, mcp_tool: tool } };
}

export type McpCall = (definition: McpToolDefinition, args: Readonly<Record<string, unknown>>, ctx: ToolContext) => Promise<ToolOutcome>;

/** The agent-facing Tool of one MCP tool; `call` goes to the server (manager.ts). */
export function mcpTool(definition: McpToolDefinition, call: McpCall): Tool {
  return {
    name: definition.zotName,
    description: definition.description,
    schema: definition.schema,
    execute: (args, ctx) => call(definition, args, ctx),
  };
}
