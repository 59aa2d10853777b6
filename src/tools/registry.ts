/**
 * The tool registry one agent uses. Tools are held by exact name; the first
 * registration of a name wins (built-ins are registered first, so they always
 * win; between extensions it is first come, first served). Extension tools may
 * not take a reserved built-in name even when that built-in is disabled.
 * Exception: a built-in marked `yieldsToExtension` (zot's `agent`, which the
 * original lacks) is replaced by an extension tool of its name, and comes
 * back when that extension's tools are unregistered.
 * Deferred tools stay hidden from specs() until activated, either through
 * activate() or through the caller's own set of active names.
 */
import type { ToolSpec } from "../providers/types.ts";
import { BUILTIN_TOOL_NAMES, type Tool } from "./types.ts";

const RESERVED_NAMES: ReadonlySet<string> = new Set(BUILTIN_TOOL_NAMES);

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly activated = new Set<string>();
  /** Built-ins an extension tool replaced, by name. */
  private readonly yielded = new Map<string, Tool>();

  constructor(builtins: readonly Tool[] = []) {
    for (const tool of builtins) this.register(tool);
  }

  /** Adds a tool; false when its name is already taken (or reserved for a built-in). */
  register(tool: Tool): boolean {
    const held = this.tools.get(tool.name);
    if (held?.yieldsToExtension === true && held.extension === undefined && tool.extension !== undefined) {
      this.yielded.set(tool.name, held);
      this.tools.delete(tool.name);
    }
    if (this.tools.has(tool.name)) return false;
    if (tool.extension !== undefined && RESERVED_NAMES.has(tool.name)) return false;
    this.tools.set(tool.name, tool);
    return true;
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** Every registered tool, in registration order. */
  all(): Tool[] {
    return [...this.tools.values()];
  }

  /** Removes one tool that is not a built-in (an MCP server's tool that left); false when absent. */
  unregister(name: string): boolean {
    const tool = this.tools.get(name);
    if (tool === undefined || RESERVED_NAMES.has(name)) return false;
    this.activated.delete(name);
    return this.tools.delete(name);
  }

  /** Removes every tool the extension registered; returns their names. */
  unregisterExtension(extName: string): string[] {
    const removed: string[] = [];
    for (const [name, tool] of this.tools) {
      if (tool.extension === extName) {
        this.tools.delete(name);
        this.activated.delete(name);
        removed.push(name);
        const builtin = this.yielded.get(name);
        if (builtin !== undefined) {
          this.yielded.delete(name);
          this.tools.set(name, builtin);
        }
      }
    }
    return removed;
  }

  /**
   * Marks registered deferred tools as active from now on. Unknown names and
   * tools that are not deferred are ignored. Returns the newly activated names.
   */
  activate(names: readonly string[]): string[] {
    const newly: string[] = [];
    for (const name of names) {
      const tool = this.tools.get(name);
      if (!tool?.deferred || this.activated.has(name)) continue;
      this.activated.add(name);
      newly.push(name);
    }
    return newly;
  }

  isActive(name: string, activeDeferred: ReadonlySet<string> = new Set()): boolean {
    const tool = this.tools.get(name);
    if (!tool) return false;
    return !tool.deferred || this.activated.has(name) || activeDeferred.has(name);
  }

  /**
   * What the model is told about, sorted by name: every non-deferred tool plus
   * deferred tools activated here or named in activeDeferred.
   */
  specs(activeDeferred: ReadonlySet<string> = new Set()): ToolSpec[] {
    return [...this.tools.values()]
      .filter((tool) => this.isActive(tool.name, activeDeferred))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((tool) => ({ name: tool.name, description: tool.description, schema: tool.schema }));
  }
}
