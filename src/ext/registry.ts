/**
 * The live index of what extensions registered. Every registration is first
 * checked against registration-rules.ts (names, descriptions, schemas, the
 * per-extension caps and the cap on all extensions' tool definitions
 * together); a registration that fails is rejected, the rest of that
 * extension's registrations are unaffected. Command names are matched
 * case-insensitively and keep their registered spelling; tools share one
 * namespace with the built-ins. First come first served, built-ins always
 * win. A command whose name another extension already holds is shadowed
 * but stays reachable as `<extension>:<command>` (qualifiedCommands; the
 * holder answers to `<its extension>:<command>` too); one that a built-in
 * holds is not kept. Every refusal (rejected or shadowed) is recorded for the extension's
 * log and doctor; at most MAX_REFUSALS_KEPT per extension and kind are kept,
 * the rest only counted. A tool's `deferred` flag travels with it; which
 * deferred tools are active is the agent tool registry's business
 * (src/tools/registry.ts).
 */
import type { InboundOf } from "./frames.ts";
import {
  MAX_COMMAND_DESCRIPTION_CHARS, MAX_COMMANDS_PER_EXTENSION, MAX_TOOL_DESCRIPTION_CHARS, MAX_TOOLS_PER_EXTENSION,
  MAX_TOTAL_TOOL_DEFINITION_BYTES, checkCommandName, checkDescription, checkToolName, checkToolSchema, definitionBytes,
} from "./registration-rules.ts";
import { formatCount, oneLine } from "./drop-log.ts";

/** Refusal records kept per extension and kind (shadowed / rejected); later ones are counted. */
export const MAX_REFUSALS_KEPT = 20;

/**
 * Names an extension command cannot take: every built-in the chat screen runs in its place (names and
 * aliases, test/modes/interactive checks them against its catalog) and the original's /jump, /telegram, /tg.
 * Not here: /agents, which yields to an extension's command of that name.
 */
export const BUILTIN_SLASH_COMMANDS = [
  "help", "login", "logout", "model", "sessions", "session", "jump", "compact", "study", "btw", "jail",
  "unjail", "skills", "theme", "reload-ext", "yolo", "telegram", "tg", "clear", "exit", "quit", "settings",
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
  /** A command kept under `<extension>:<name>` (the name is held by another extension). */
  readonly qualified?: string;
}

/** A shadowed command, reachable as `/<invokeAs>`. */
export interface QualifiedCommand {
  readonly invokeAs: string;
  readonly command: RegisteredCommand;
}

export interface RejectedRegistration {
  readonly extension: string;
  readonly kind: "command" | "tool";
  /** The registered name, made one line and clipped. */
  readonly name: string;
  readonly reason: string;
}

export type RegistrationResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly shadowed: ShadowedRegistration; readonly rejected?: undefined }
  | { readonly ok: false; readonly rejected: RejectedRegistration; readonly shadowed?: undefined };

/** The log line for a refused registration. */
export function describeRefusal(result: Exclude<RegistrationResult, { ok: true }>): string {
  if (result.shadowed) {
    const { kind, name, heldBy, qualified } = result.shadowed;
    const reachable = qualified === undefined ? "" : `; reachable as /${qualified}`;
    return `${kind === "command" ? `command /${name}` : `tool "${name}"`} not registered: already taken by ${heldBy}${reachable}`;
  }
  const { kind, name, reason } = result.rejected;
  return `${kind} ${JSON.stringify(name)} rejected: ${reason}`;
}

/** Records of one kind, bounded per extension. */
class RefusalLog<T extends { readonly extension: string }> {
  readonly kept: T[] = [];
  private readonly counts = new Map<string, number>();

  add(entry: T): void {
    const count = (this.counts.get(entry.extension) ?? 0) + 1;
    this.counts.set(entry.extension, count);
    if (count <= MAX_REFUSALS_KEPT) this.kept.push(entry);
  }

  /** Every refusal counted, kept or not. */
  get total(): number {
    let total = 0;
    for (const count of this.counts.values()) total += count;
    return total;
  }

  /** Refusals of `extension` beyond the kept ones. */
  omitted(extension: string): number {
    return Math.max(0, (this.counts.get(extension) ?? 0) - MAX_REFUSALS_KEPT);
  }

  extensions(): string[] {
    return [...this.counts.keys()];
  }

  clear(): void {
    this.kept.length = 0;
    this.counts.clear();
  }
}

export class ExtensionRegistry {
  private readonly commandsByKey = new Map<string, RegisteredCommand>();
  /** Shadowed commands by lower-cased `<extension>:<name>`. */
  private readonly qualifiedByKey = new Map<string, QualifiedCommand>();
  private readonly toolsByName = new Map<string, RegisteredTool>();
  private readonly definitionSizes = new Map<string, number>();
  private readonly toolCounts = new Map<string, number>();
  private readonly commandCounts = new Map<string, number>();
  private totalDefinitionBytes = 0;
  private readonly shadowedLog = new RefusalLog<ShadowedRegistration>();
  private readonly rejectedLog = new RefusalLog<RejectedRegistration>();
  private readonly builtinCommands: ReadonlySet<string>;
  private readonly builtinTools: ReadonlySet<string>;

  constructor(builtinCommands: readonly string[] = BUILTIN_SLASH_COMMANDS, builtinTools: readonly string[] = BUILTIN_TOOLS) {
    this.builtinCommands = new Set(builtinCommands.map((name) => name.toLowerCase()));
    this.builtinTools = new Set(builtinTools);
  }

  /** Shadowed registrations (name already taken), at most MAX_REFUSALS_KEPT per extension. */
  get shadowed(): readonly ShadowedRegistration[] {
    return this.shadowedLog.kept;
  }

  /** Rejected registrations (failed validation or a cap), at most MAX_REFUSALS_KEPT per extension. */
  get rejected(): readonly RejectedRegistration[] {
    return this.rejectedLog.kept;
  }

  /** Every rejected registration, including those not kept. */
  get rejectedTotal(): number {
    return this.rejectedLog.total;
  }

  /** How many refusals of `extension` were counted but not kept. */
  omittedRefusals(extension: string): { readonly shadowed: number; readonly rejected: number } {
    return { shadowed: this.shadowedLog.omitted(extension), rejected: this.rejectedLog.omitted(extension) };
  }

  /** Extensions with any refusal. */
  refusedExtensions(): string[] {
    return [...new Set([...this.shadowedLog.extensions(), ...this.rejectedLog.extensions()])];
  }

  registerCommand(extension: string, frame: InboundOf<"register_command">): RegistrationResult {
    const reason = checkCommandName(frame.name) ?? checkDescription(frame.description, MAX_COMMAND_DESCRIPTION_CHARS);
    if (reason) return this.reject({ extension, kind: "command", name: frame.name, reason });
    const key = frame.name.toLowerCase();
    const heldBy = this.builtinCommands.has(key) ? "built-in" : this.commandsByKey.get(key)?.extension;
    const full = (this.commandCounts.get(extension) ?? 0) >= MAX_COMMANDS_PER_EXTENSION;
    if (heldBy !== undefined) {
      const qualified = `${extension}:${frame.name}`;
      const keep = !full && heldBy !== "built-in" && heldBy !== extension && !this.qualifiedByKey.has(qualified.toLowerCase());
      if (keep) {
        this.qualifiedByKey.set(qualified.toLowerCase(), { invokeAs: qualified, command: { name: frame.name, description: frame.description, extension } });
        this.commandCounts.set(extension, (this.commandCounts.get(extension) ?? 0) + 1);
      }
      return this.shadow({ extension, kind: "command", name: frame.name, heldBy, ...(keep ? { qualified } : {}) });
    }
    if (full) {
      return this.reject({ extension, kind: "command", name: frame.name, reason: `the extension already has ${MAX_COMMANDS_PER_EXTENSION} commands (the limit)` });
    }
    this.commandsByKey.set(key, { name: frame.name, description: frame.description, extension });
    this.commandCounts.set(extension, (this.commandCounts.get(extension) ?? 0) + 1);
    return { ok: true };
  }

  registerTool(extension: string, frame: InboundOf<"register_tool">): RegistrationResult {
    const refuse = (reason: string): RegistrationResult => this.reject({ extension, kind: "tool", name: frame.name, reason });
    const invalid = checkToolName(frame.name) ?? checkDescription(frame.description, MAX_TOOL_DESCRIPTION_CHARS);
    if (invalid) return refuse(invalid);
    const schema = checkToolSchema(frame.schema);
    if (!schema.ok) return refuse(schema.reason);
    const heldBy = this.builtinTools.has(frame.name) ? "built-in" : this.toolsByName.get(frame.name)?.extension;
    if (heldBy !== undefined) return this.shadow({ extension, kind: "tool", name: frame.name, heldBy });
    if ((this.toolCounts.get(extension) ?? 0) >= MAX_TOOLS_PER_EXTENSION) {
      return refuse(`the extension already has ${MAX_TOOLS_PER_EXTENSION} tools (the limit)`);
    }
    const bytes = definitionBytes(frame.name, frame.description, schema.value);
    if (this.totalDefinitionBytes + bytes > MAX_TOTAL_TOOL_DEFINITION_BYTES) {
      return refuse(
        `its definition (${formatCount(bytes)} bytes) would bring all extension tool definitions to ` +
          `${formatCount(this.totalDefinitionBytes + bytes)} bytes, over the limit of ${formatCount(MAX_TOTAL_TOOL_DEFINITION_BYTES)}`,
      );
    }
    this.toolsByName.set(frame.name, {
      name: frame.name,
      description: frame.description,
      schema: schema.value,
      deferred: frame.deferred === true,
      interactive: frame.interactive === true,
      extension,
    });
    this.definitionSizes.set(frame.name, bytes);
    this.totalDefinitionBytes += bytes;
    this.toolCounts.set(extension, (this.toolCounts.get(extension) ?? 0) + 1);
    return { ok: true };
  }

  /** Serialized bytes of every registered extension tool definition. */
  get toolDefinitionBytes(): number {
    return this.totalDefinitionBytes;
  }

  /** Drops everything an extension registered (crash, disconnect, reload). */
  unregisterExtension(extension: string): void {
    this.toolCounts.delete(extension);
    this.commandCounts.delete(extension);
    for (const [key, command] of this.commandsByKey) if (command.extension === extension) this.commandsByKey.delete(key);
    for (const [key, entry] of this.qualifiedByKey) if (entry.command.extension === extension) this.qualifiedByKey.delete(key);
    for (const [name, tool] of this.toolsByName) {
      if (tool.extension !== extension) continue;
      this.toolsByName.delete(name);
      this.totalDefinitionBytes -= this.definitionSizes.get(name) ?? 0;
      this.definitionSizes.delete(name);
    }
  }

  clear(): void {
    this.commandsByKey.clear();
    this.qualifiedByKey.clear();
    this.toolsByName.clear();
    this.definitionSizes.clear();
    this.toolCounts.clear();
    this.commandCounts.clear();
    this.totalDefinitionBytes = 0;
    this.shadowedLog.clear();
    this.rejectedLog.clear();
  }

  /** The command `/name` runs: a held name, a shadowed `<extension>:<name>`, or the holder's own `<extension>:<name>`. */
  command(name: string): RegisteredCommand | undefined {
    const key = name.toLowerCase();
    const held = this.commandsByKey.get(key);
    if (held !== undefined) return held;
    const shadowed = this.qualifiedByKey.get(key);
    if (shadowed !== undefined) return shadowed.command;
    const colon = key.lastIndexOf(":");
    if (colon <= 0) return undefined;
    const holder = this.commandsByKey.get(key.slice(colon + 1));
    return holder !== undefined && holder.extension.toLowerCase() === key.slice(0, colon) ? holder : undefined;
  }

  /** The shadowed commands (their name held by another extension), by `invokeAs`. */
  qualifiedCommands(): QualifiedCommand[] {
    return [...this.qualifiedByKey.values()].sort((a, b) => a.invokeAs.localeCompare(b.invokeAs));
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

  private shadow(shadowed: ShadowedRegistration): RegistrationResult {
    this.shadowedLog.add(shadowed);
    return { ok: false, shadowed };
  }

  private reject(rejected: RejectedRegistration): RegistrationResult {
    const entry = { ...rejected, name: oneLine(rejected.name, 80) };
    this.rejectedLog.add(entry);
    return { ok: false, rejected: entry };
  }
}
