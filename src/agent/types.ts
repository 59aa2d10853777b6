/**
 * Value types shared by the agent loop, its tool choke point and its callers:
 * the tool set the agent consults, the record of one tool call, the outcome of
 * one prompt and the persistence callbacks.
 */
import type { ZotError } from "../common/errors.ts";
import type { ImageBlock, Message, ToolCallBlock, ToolSpec, Usage } from "../providers/types.ts";
import type { Tool, ToolOutcome, ToolStatus } from "../tools/types.ts";
import type { ToolCallOrigin } from "./hooks.ts";

/** The tool set the agent advertises and dispatches to (a ToolRegistry adapts to this). */
export interface AgentTools {
  /** Specs sent to the model, in a stable order (by name, for prompt caching). */
  specs(): readonly ToolSpec[];
  get(name: string): Tool | undefined;
  /** Make deferred tools visible from the next request on. */
  activate(names: readonly string[]): void;
  /**
   * Whether calls of this tool may overlap other calls of the same assistant
   * message. Absent → every tool except write, edit and bash is treated as safe.
   */
  concurrencySafe?(name: string): boolean;
}

/** A tool call to run: the transcript's block without its tag. */
export type ToolCallRequest = Pick<ToolCallBlock, "id" | "name" | "arguments">;

/** The terminal record of one tool call, as the choke point produced it. */
export interface ToolCallRecord {
  readonly id: string;
  readonly name: string;
  readonly rawArgs: string;
  readonly origin: ToolCallOrigin;
  /** Arguments the tool saw (after hook rewrites); undefined when malformed. */
  readonly effectiveArgs: Readonly<Record<string, unknown>> | undefined;
  /** The model-facing outcome (after afterToolResult). */
  readonly outcome: ToolOutcome;
  readonly status: ToolStatus;
  readonly executed: boolean;
}

export type PromptOutcome =
  | { readonly status: "done" }
  | { readonly status: "blocked"; readonly reason: string }
  | { readonly status: "error"; readonly error: ZotError }
  | { readonly status: "aborted" };

export interface AgentPersistence {
  /** Called for every message as it is appended. Must not throw. */
  onMessage(message: Message): void;
  /** Called after every model call. Must not throw. */
  onUsage(turn: Usage, cumulative: Usage): void;
}

export interface PromptOptions {
  readonly images?: readonly ImageBlock[];
  readonly signal?: AbortSignal;
}

/** Error codes of agent-originated ZotErrors (provider errors keep their own codes). */
export const AGENT_ERROR_CODES = {
  invalidOption: "agent.invalid_option",
  busy: "agent.busy",
  emptyPrompt: "agent.empty_prompt",
  maxSteps: "agent.max_steps",
  modelError: "agent.model_error",
  providerFailure: "agent.provider_failure",
} as const;
