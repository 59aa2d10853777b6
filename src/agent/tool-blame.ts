/**
 * Names the extension behind a tool a provider refused. A provider that
 * rejects one tool definition (an extension's schema that zot accepts but
 * the API does not) refuses every request while that extension is loaded,
 * and its message points at the tool only by position (Anthropic
 * `tools.3.custom.input_schema: …`, `tools[3]`) or by name (OpenAI
 * `Invalid schema for function 'x'`). `blameTool` appends which tool that is
 * and which extension registered it, so the user knows what to disable.
 * Only tools registered by an extension are named; the message is otherwise
 * unchanged.
 */
import type { ToolSpec } from "../providers/types.ts";
import type { AgentTools } from "./types.ts";

const BY_INDEX = /\btools(?:\.|\[)(\d{1,4})\]?[.\s:]/;
const BY_NAME = /\b(?:function|tool)s? ['"`]([A-Za-z0-9_-]{1,64})['"`]/;

/** The message with ` (tool "x" was registered by extension y: …)` appended, or the message as it was. */
export function blameTool(message: string, specs: readonly ToolSpec[], tools: AgentTools): string {
  const index = BY_INDEX.exec(message)?.[1];
  const name = index !== undefined ? specs[Number(index)]?.name : BY_NAME.exec(message)?.[1];
  if (name === undefined) return message;
  const extension = tools.get(name)?.extension;
  if (extension === undefined) return message;
  return `${message} (tool "${name}" was registered by extension ${extension}: 'zot ext disable ${extension}' stops it, or fix its register_tool schema)`;
}
