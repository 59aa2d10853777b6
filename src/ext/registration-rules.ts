/**
 * What a `register_tool` / `register_command` must look like before anything
 * (the registry, the agent, a provider) sees it. Tool names are what every
 * provider accepts; command names are what the slash-command parser can
 * invoke. The schema check, description cap and definition size are the
 * generic tool-definition rules (tools/definition-rules.ts, shared with MCP
 * tools) and are re-exported here. The caps (per extension, and the
 * serialized size of all extensions' tool definitions together, which is
 * sent with every request) are checked by the registry with
 * `definitionBytes`. Each check returns a reason for the extension's log and
 * doctor, never throws.
 */
export {
  type Checked, DEFAULT_TOOL_SCHEMA, MAX_TOOL_DESCRIPTION_CHARS, checkDescription, checkToolSchema, definitionBytes,
} from "../tools/definition-rules.ts";

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const COMMAND_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_TOOLS_PER_EXTENSION = 128;
export const MAX_COMMANDS_PER_EXTENSION = 128;
/** Serialized bytes of every extension tool definition together (name, description, schema). */
export const MAX_TOTAL_TOOL_DEFINITION_BYTES = 256 * 1024;
export const MAX_COMMAND_DESCRIPTION_CHARS = 4 * 1024;

export function checkToolName(name: string): string | undefined {
  return TOOL_NAME_PATTERN.test(name) ? undefined : "the name must be 1-64 characters of letters, digits, '_' and '-'";
}

export function checkCommandName(name: string): string | undefined {
  return COMMAND_NAME_PATTERN.test(name) ? undefined : "the name must be 1-64 characters of letters, digits, '_' and '-'";
}
