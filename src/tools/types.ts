/**
 * The contract every tool implements: built-ins (read, write, edit, bash,
 * skill) and extension-served tools alike. A tool never throws for an
 * expected failure; it returns an outcome with isError and, where it knows,
 * a typed status (blocked by policy, cancelled, timed out).
 */
import type { ImageBlock, TextBlock, ToolSpec, Usage } from "../providers/types.ts";

export type ToolResultContent = TextBlock | ImageBlock;

export type ToolStatus = "completed" | "failed" | "blocked" | "cancelled" | "timed_out";

export interface ToolOutcome {
  readonly content: readonly ToolResultContent[];
  readonly isError: boolean;
  /** Typed classification; absent means completed (isError false) or failed (isError true). */
  readonly status?: ToolStatus;
  /** UI-only details (paths, exit codes, diffs); never sent to the model. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Name of the extension that served the call, for extension tools. */
  readonly extension?: string;
  /** Deferred tools to activate from the next request on. */
  readonly activateTools?: readonly string[];
  /** Model usage the tool spent on the user's behalf (a subagent): added to the session's cumulative usage. */
  readonly usage?: Usage;
}

export interface ToolContext {
  /** The user's project directory; relative paths resolve against it. */
  readonly cwd: string;
  readonly signal: AbortSignal;
  /** Streams partial output for UIs (tool_progress); never sent to the model. */
  readonly onProgress: (text: string) => void;
  /** When set, file tools must refuse paths outside this root (symlinks resolved). */
  readonly jailRoot?: string;
  /** The id of the tool call being executed (the model's call id). */
  readonly callId?: string;
}

export interface Tool extends ToolSpec {
  /** Hidden from the model until activated (extension `deferred`). */
  readonly deferred?: boolean;
  /** Waits for user input; rejected by headless modes. */
  readonly interactive?: boolean;
  /** Extension that registered it; undefined for built-ins. */
  readonly extension?: string;
  execute(args: Readonly<Record<string, unknown>>, ctx: ToolContext): Promise<ToolOutcome>;
}

export function textOutcome(text: string, isError = false, extra: Partial<ToolOutcome> = {}): ToolOutcome {
  return { content: [{ type: "text", text }], isError, ...extra };
}

export const BUILTIN_TOOL_NAMES = ["read", "write", "edit", "bash", "skill"] as const;
