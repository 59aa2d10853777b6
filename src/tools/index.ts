/**
 * Public surface of the tools area: the built-in file and shell tools
 * (read, write, edit, bash), the selection rules of `--tools a,b` /
 * `--no-tools`, the ToolRegistry, and the Tool contract types.
 */
import { createBashTool } from "./bash.ts";
import { createEditTool } from "./edit.ts";
import { createReadTool } from "./read.ts";
import type { Tool } from "./types.ts";
import { createWriteTool } from "./write.ts";

export * from "./types.ts";
export { ToolRegistry } from "./registry.ts";
export { createBashTool, formatDuration, KILL_GRACE_MS, type BashToolOptions } from "./bash.ts";
export { createEditTool } from "./edit.ts";
export { createReadTool, MAX_IMAGE_BYTES } from "./read.ts";
export { createWriteTool } from "./write.ts";
export { MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } from "./shared.ts";
export { canonicalPath, resolveToolPath } from "./paths.ts";

/** Names of the file and shell built-ins this module provides, in registry order. */
export const FILE_AND_SHELL_TOOL_NAMES = ["read", "write", "edit", "bash"] as const;

export interface BuiltinToolOptions {
  /** `--tools a,b`: keep only these (unknown names are ignored). */
  readonly only?: readonly string[];
  /** `--no-tools`: no built-in tools at all. */
  readonly none?: boolean;
}

/** Fresh instances of the built-in tools the options select, in a stable order. */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  if (options.none) return [];
  const wanted = options.only ? new Set(options.only.map((name) => name.trim())) : undefined;
  const all: Tool[] = [createReadTool(), createWriteTool(), createEditTool(), createBashTool()];
  return wanted ? all.filter((tool) => wanted.has(tool.name)) : all;
}
