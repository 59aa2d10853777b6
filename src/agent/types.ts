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

/**
 * A tool call to run: the transcript's block without its tag.
 * `argumentsRefused` set: the model's arguments were refused before the call
 * reached the transcript (replaced there by "{}"); the call settles as failed
 * with this text as its error result and never runs.
 */
export type ToolCallRequest = Pick<ToolCallBlock, "id" | "name" | "arguments"> & { readonly argumentsRefused?: string };

/** The terminal record of one tool call, as the choke point produced it. */
export interface ToolCallRecord {
  readonly id: string;
  readonly name: string;
  readonly rawArgs: string;
  readonly origin: ToolCallOrigin;
  /** Arguments the tool saw or would have seen (after hook rewrites); undefined when the argument text was malformed. */
  readonly effectiveArgs: Readonly<Record<string, unknown>> | undefined;
  /** The model-facing outcome (after afterToolResult). */
  readonly outcome: ToolOutcome;
  readonly status: ToolStatus;
  /** Tool.execute was entered. */
  readonly executed: boolean;
}

export type PromptOutcome =
  | { readonly status: "done" }
  | { readonly status: "blocked"; readonly reason: string }
  | { readonly status: "error"; readonly error: ZotError }
  | { readonly status: "aborted" };

/** What a completed compaction asks the session file to record (SessionWriter.appendCompaction). */
export interface CompactionPersistRecord {
  /** The summary user message that now opens the transcript. */
  readonly summaryMessage: Message;
  /** Session-file row index of the first kept message: rows >= keptFrom stay on load. */
  readonly keptFrom: number;
  /** Token estimate of the transcript before compaction. */
  readonly tokensBefore: number;
}

export interface AgentPersistence {
  /**
   * Called for every message as it is appended. Must not throw. Return the
   * message's session-file row index (what SessionWriter.appendMessage
   * returns) so compaction can tell onCompaction where the kept tail starts;
   * returning nothing leaves the row unknown.
   */
  onMessage(message: Message): number | void;
  /** Called after every model call (the compaction summary call included). Must not throw. */
  onUsage(turn: Usage, cumulative: Usage): void;
  /**
   * Called after a completed compaction, when keptFrom is known (see
   * compaction.ts). Write it with SessionWriter.appendCompaction({summary:
   * record.summaryMessage, keptFrom, tokensBefore}). Must not throw.
   */
  onCompaction?(record: CompactionPersistRecord): void;
}

export interface PromptOptions {
  readonly images?: readonly ImageBlock[];
  readonly signal?: AbortSignal;
  /** Recorded right after the prompt's user message, before the first model call (an extension's tool_prompt call + result). */
  readonly afterUserMessage?: readonly Message[];
}

/** Error codes of agent-originated ZotErrors (provider errors keep their own codes). */
export const AGENT_ERROR_CODES = {
  invalidOption: "agent.invalid_option",
  busy: "agent.busy",
  emptyPrompt: "agent.empty_prompt",
  maxSteps: "agent.max_steps",
  modelError: "agent.model_error",
  providerFailure: "agent.provider_failure",
  nothingToCompact: "agent.nothing_to_compact",
  emptySummary: "agent.empty_summary",
  compactionTimedOut: "agent.compaction_timed_out",
} as const;
