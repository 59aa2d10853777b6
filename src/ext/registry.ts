/**
 * The live index of what extensions registered. Command names are matched
 * case-insensitively and keep their registered spelling; tools share one
 * namespace with the built-ins. First come first served, built-ins always
 * win; every refused registration is recorded (for the extension's log and
 * doctor). A tool's `deferred` flag travels with it; which deferred tools
 * are active is the agent tool registry's business (src/tools/registry.ts).
 */
import type { InboundOf } from "./frames.ts";

export const BUILTIN_SLASH_COMMANDS = [
  "help", "login", "logout", "model", "sessions", "session", "jump", "compact", "study", "btw", "jail",
  "unjail", "skills", "reload-ext", "yolo", "telegram", "tg", "clear", "exit", "settings",
] as const;

export const BUILTIN_TOOLS = ["read", "write", "edit", "bash", "skill"] as const;

export interface RegisteredCommand {
  readonly name: string;
  readonly description: string;
  readonly extension: string;
}

export interface RegisteredTool {
  readonly name: string;
  readonly description: string;
  readonly schema: Readonly<Record<string, unknown>>;
  readonly deferred: boolean;
  readonly interactive: boolean;
  readonly extension: string;
}

export interface ShadowedRegistration {
  readonly extension: string;
  readonly kind: "command" | "tool";
  readonly name: string;
  /** "built-in" or the extension that holds the name. */
  readonly heldBy: string;
}

export type RegistrationResult = { readonly ok: true } | { readonly ok: false; readonly shadowed: ShadowedRegistration };

const DEFAULT_TOOL_SCHEMA: Readonly<Record<string, unknown>> = { type: "object", properties: {} };

export class ExtensionRegistry {
  private readonly commandsByKey = new Map<string, RegisteredCommand>();
  private readonly toolsByName = new Map<string, RegisteredTool>();
  readonly shadowed: ShadowedRegistration[] = [];
  private readonly builtinCommands: ReadonlySet<string>;
  private readonly builtinTools: ReadonlySet<string>;

  constructor(builtinCommands: readonly string[] = BUILTIN_SLASH_COMMANDS, builtinTools: readonly string[] = BUILTIN_TOOLS) {
    this.builtinCommands = new Set(builtinCommands.map((name) => name.toLowerCase()));
    this.builtinTools = new Set(builtinTools);
  }

  registerCommand(extension: string, frame: InboundOf<"register_command">): RegistrationResult {
    const key = frame.name.toLowerCase();
    const heldBy = this.builtinCommands.has(key) ? "built-in" : this.commandsByKey.get(key)?.extension;
    if (heldBy !== undefined) return this.refuse({ extension, kind: "command", name: frame.name, heldBy });
    this.commandsByKey.set(key, { name: frame.name, description: frame.description, extension });
    return { ok: true };
  }

  registerTool(extension: string, frame: InboundOf<"register_tool">): RegistrationResult {
    const heldBy = this.builtinTools.has(frame.name) ? "built-in" : this.toolsByName.get(frame.name)?.extension;
    if (heldBy !== undefined) return this.refuse({ extension, kind: "tool", name: frame.name, heldBy });
    this.toolsByName.set(frame.name, {
      name: frame.name,
      description: frame.description,
      schema: frame.schema ?? DEFAULT_TOOL_SCHEMA,
      deferred: frame.deferred === true,
      interactive: frame.interactive === true,
      extension,
    });
    return { ok: true };
  }

  /** Drops everything an extension registered (crash, disconnect, reload). */
  unregisterExtension(extension: string): void {
    for (const [key, command] of this.commandsByKey) if (command.extension === extension) this.commandsByKey.delete(key);
    for (const [name, tool] of this.toolsByName) {
      if (tool.extension === extension) this.toolsByName.delete(name);
    }
  }

  clear(): void {
    this.commandsByKey.clear();
    this.toolsByName.clear();
    this.shadowed.length = 0;
  }

  command(name: string): RegisteredCommand | undefined {
    return this.commandsByKey.get(name.toLowerCase());
  }

  commands(): RegisteredCommand[] {
    return [...this.commandsByKey.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  tool(name: string): RegisteredTool | undefined {
    return this.toolsByName.get(name);
  }

  /** Every registered tool, deferred ones included. */
  tools(): RegisteredTool[] {
    return [...this.toolsByName.values()];
  }

  private refuse(shadowed: ShadowedRegistration): RegistrationResult {
    this.shadowed.push(shadowed);
    return { ok: false, shadowed };
  }
}
