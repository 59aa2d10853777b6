/**
 * Transcript compaction (reference notes §4.10; extensions.md "Session,
 * compaction, and swarm boundaries"). runCompaction summarises every message
 * before the kept tail with one tool-less call of the session's own model
 * (separate summariser system prompt, max 4096 output tokens) and replaces
 * the transcript with [summary user message] + the tail. It never throws: every
 * outcome is a CompactionResult, and every attempt — empty transcript, nothing
 * to compact, refusal, failure, cancellation — reports exactly one
 * onCompactionStart followed by exactly one onCompactionEnd. The summary
 * call's `retry` notices (provider failures retried before its stream
 * started) are emitted as agent events; nothing else of its stream is.
 *
 * The tail is the last `keepRecent` messages (default 4), moved earlier so it
 * never starts on a tool result (or its image mirror): a tool call always stays
 * with its result. Token estimates are UTF-8 bytes of the JSON-serialised text
 * content divided by four (images not counted), never provider usage.
 *
 * Persistence: each message's session-file row index is what
 * AgentPersistence.onMessage returned for it (or initialMessageRows on resume).
 * keptFrom is the row of the first kept message that has one; when no kept
 * message has a row, one past the highest row of the summarised part. When no
 * row is known at all, onCompaction is not called (the file keeps the full
 * history and resume brings it back uncompacted).
 */
import { ZotError, errorMessage } from "../common/errors.ts";
import { ProviderError, addUsage, type Message, type StreamResult } from "../providers/types.ts";
import { estimateTokens, summaryRequestText, SUMMARISER_SYSTEM_PROMPT } from "./compaction-text.ts";
import type { AgentCore } from "./loop.ts";
import { IMAGE_MIRROR_META_KEY, messageText, nowTimestamp } from "./messages.ts";
import type { AgentSession } from "./session.ts";
import { AGENT_ERROR_CODES } from "./types.ts";

export {
  SUMMARISER_SYSTEM_PROMPT,
  SUMMARY_INSTRUCTION,
  estimateTokens,
  serializeConversation,
  summaryRequestText,
} from "./compaction-text.ts";

export const DEFAULT_KEEP_RECENT = 4;
export const DEFAULT_AUTO_COMPACT_THRESHOLD = 0.85;
export const SUMMARY_MAX_TOKENS = 4096;
/** Meta key marking the summary message ("true"); tokens_before carries the estimate before. */
export const COMPACTION_META_KEY = "compaction";
export const TOKENS_BEFORE_META_KEY = "tokens_before";
export const SUMMARY_HEADING = "## Context Summary (compacted)";

export type CompactionStatus = "completed" | "failed" | "cancelled" | "timed_out";

export interface CompactOptions {
  /** Messages kept verbatim at the end (default 4), extended so no tool call is split from its result. */
  readonly keepRecent?: number;
  /** Aborting cancels the attempt; an AbortSignal.timeout() reason reports timed_out. */
  readonly signal?: AbortSignal;
  /** Extra guidance appended to the summary instruction (e.g. `/compact focus on the API`). */
  readonly instructions?: string;
}

export interface CompactionResult {
  readonly status: CompactionStatus;
  readonly compactionId: string;
  readonly messageCountBefore: number;
  readonly messageCountAfter: number;
  readonly tokenEstimateBefore: number;
  readonly tokenEstimateAfter: number;
  /** The summary text (completed only). */
  readonly summary?: string;
  readonly error?: ZotError;
}

export interface CompactionStartInfo {
  readonly compactionId: string;
  readonly messageCount: number;
  readonly tokenEstimate: number;
}

/** Counts describe the resulting in-memory transcript (unchanged unless completed). */
export interface CompactionEndInfo extends CompactionStartInfo {
  readonly status: CompactionStatus;
  readonly error?: ZotError;
}

/** pre_compact / post_compact feed for the extension bridge and UIs. Errors thrown here are ignored. */
export interface CompactionObserver {
  onCompactionStart?(info: CompactionStartInfo): void;
  onCompactionEnd?(info: CompactionEndInfo): void;
}

let compactionCounter = 0;

/** Process-unique, counter-based (never clock-based) attempt id. */
export function nextCompactionId(): string {
  compactionCounter += 1;
  return `compact-${compactionCounter}`;
}

export function summaryMessage(summary: string, tokensBefore: number): Message {
  return {
    role: "user",
    content: [{ type: "text", text: `${SUMMARY_HEADING}\n\n${summary}` }],
    time: nowTimestamp(),
    meta: { [COMPACTION_META_KEY]: "true", [TOKENS_BEFORE_META_KEY]: String(tokensBefore) },
  };
}

function isImageMirror(message: Message): boolean {
  return message.meta?.[IMAGE_MIRROR_META_KEY] === "true";
}

/**
 * Index of the first kept message: the last `keepRecent`, moved earlier while
 * the tail would start on a tool message or an image mirror, so every tool
 * result stays with the assistant message that called it. 0 → nothing to compact.
 */
export function tailStart(messages: readonly Message[], keepRecent: number): number {
  let start = Math.max(0, messages.length - keepRecent);
  while (start > 0 && start < messages.length) {
    const first = messages[start];
    if (first === undefined || (first.role !== "tool" && !isImageMirror(first))) break;
    start -= 1;
  }
  return start;
}

/** The session-file row the load should keep from (see module comment); undefined when unknown. */
export function keptFromRow(rows: readonly (number | null)[], start: number): number | undefined {
  for (let index = start; index < rows.length; index++) {
    const row = rows[index];
    if (row !== null && row !== undefined) return row;
  }
  let highest: number | undefined;
  for (let index = 0; index < start; index++) {
    const row = rows[index];
    if (row !== null && row !== undefined && (highest === undefined || row > highest)) highest = row;
  }
  return highest === undefined ? undefined : highest + 1;
}

function isTimeoutReason(reason: unknown): boolean {
  return reason instanceof Error && reason.name === "TimeoutError";
}

/** Context use of one model call: everything the provider read as input. */
export function contextTokens(usage: { input_tokens: number; cache_read_tokens: number; cache_write_tokens: number }): number {
  return usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
}

/** True when the last model call filled at least threshold × the model's context window. */
export function shouldAutoCompact(core: AgentCore): boolean {
  const threshold = core.autoCompactThreshold;
  const used = core.lastContextTokens;
  if (threshold === undefined || used === undefined || core.model.contextWindow <= 0) return false;
  return used >= threshold * core.model.contextWindow;
}

/** HTTP 413 from the provider (status carried in the error context, as ProviderError does). */
export function isPayloadTooLarge(error: ZotError): boolean {
  return error.context.status === 413;
}

function notify(run: () => void): void {
  try {
    run();
  } catch {
    // Observers must not break the agent.
  }
}

type Attempt =
  | { readonly status: "completed"; readonly summary: string }
  | { readonly status: "failed" | "cancelled" | "timed_out"; readonly error?: ZotError };

/** Runs the attempt body between the two observer callbacks and builds the result. */
async function observed(core: AgentCore, body: (compactionId: string, tokensBefore: number) => Promise<Attempt>): Promise<CompactionResult> {
  const compactionId = nextCompactionId();
  const messageCountBefore = core.messages.length;
  const tokenEstimateBefore = estimateTokens(core.messages);
  const observer = core.compactionObserver;
  notify(() => observer?.onCompactionStart?.({ compactionId, messageCount: messageCountBefore, tokenEstimate: tokenEstimateBefore }));
  let attempt: Attempt;
  try {
    attempt = await body(compactionId, tokenEstimateBefore);
  } catch (err) {
    attempt = { status: "failed", error: asZotError(core, err) };
  }
  const messageCountAfter = core.messages.length;
  const tokenEstimateAfter = estimateTokens(core.messages);
  const error = attempt.status === "completed" ? undefined : attempt.error;
  notify(() =>
    observer?.onCompactionEnd?.({
      compactionId,
      messageCount: messageCountAfter,
      tokenEstimate: tokenEstimateAfter,
      status: attempt.status,
      ...(error !== undefined ? { error } : {}),
    }),
  );
  return {
    status: attempt.status,
    compactionId,
    messageCountBefore,
    messageCountAfter,
    tokenEstimateBefore,
    tokenEstimateAfter,
    ...(attempt.status === "completed" ? { summary: attempt.summary } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}

function asZotError(core: AgentCore, err: unknown): ZotError {
  if (err instanceof ZotError) return err;
  return new ZotError(AGENT_ERROR_CODES.providerFailure, errorMessage(err), { provider: core.client.name }, { cause: err });
}

function stopped(signal: AbortSignal, error?: ZotError): Attempt {
  return isTimeoutReason(signal.reason) ? { status: "timed_out", error: error ?? timeoutError() } : { status: "cancelled" };
}

function timeoutError(): ZotError {
  return new ZotError(AGENT_ERROR_CODES.compactionTimedOut, "compaction timed out");
}

/** A refused attempt (e.g. busy): both callbacks, transcript untouched, status failed. */
export function refuseCompaction(core: AgentCore, error: ZotError): Promise<CompactionResult> {
  return observed(core, async () => ({ status: "failed", error }));
}

/** One compaction attempt on the core's transcript. Never throws. */
export function runCompaction(core: AgentCore, options: CompactOptions = {}): Promise<CompactionResult> {
  return observed(core, async (_compactionId, tokensBefore) => {
    const keepRecent = options.keepRecent ?? DEFAULT_KEEP_RECENT;
    if (!Number.isSafeInteger(keepRecent) || keepRecent < 0) {
      return {
        status: "failed",
        error: new ZotError(AGENT_ERROR_CODES.invalidOption, `keepRecent must be a non-negative integer, got ${String(keepRecent)}`, {
          field: "keepRecent",
        }),
      };
    }
    const messages = core.messages.slice();
    if (messages.length === 0) {
      return { status: "failed", error: new ZotError(AGENT_ERROR_CODES.nothingToCompact, "nothing to compact: the conversation is empty") };
    }
    const start = tailStart(messages, keepRecent);
    if (start === 0) {
      return {
        status: "failed",
        error: new ZotError(AGENT_ERROR_CODES.nothingToCompact, "nothing to compact: every message is part of the kept recent tail", {
          messages: messages.length,
        }),
      };
    }
    const signal = options.signal ?? new AbortController().signal;
    if (signal.aborted) return stopped(signal);

    let result: StreamResult;
    try {
      result = await core.client.stream(
        {
          model: core.model,
          system: SUMMARISER_SYSTEM_PROMPT,
          messages: [{ role: "user", content: [{ type: "text", text: summaryRequestText(messages.slice(0, start), options.instructions) }], time: nowTimestamp() }],
          tools: [],
          maxTokens: core.model.maxOutput > 0 ? Math.min(SUMMARY_MAX_TOKENS, core.model.maxOutput) : SUMMARY_MAX_TOKENS,
          signal,
        },
        (event) => {
          if (event.type === "retry") core.emit(event);
        },
      );
    } catch (err) {
      const error = asZotError(core, err);
      if (signal.aborted) return stopped(signal, error);
      if (err instanceof ProviderError && err.kind === "stalled") return { status: "timed_out", error };
      return { status: "failed", error };
    }
    addUsage(core.cumulative, result.usage);
    core.persistence?.onUsage(result.usage, core.cumulative);
    if (signal.aborted || result.stop === "aborted") return stopped(signal);
    if (result.stop === "error") {
      return {
        status: "failed",
        error: new ZotError(AGENT_ERROR_CODES.modelError, "the summary response ended with an error", {
          provider: core.client.name,
          model: core.model.id,
        }),
      };
    }
    const summary = messageText(result.message).trim();
    if (summary === "") {
      return { status: "failed", error: new ZotError(AGENT_ERROR_CODES.emptySummary, "compaction failed: the model returned an empty summary") };
    }

    // The transcript may have grown meanwhile only through pendingAppends (flushed later), so the split still holds.
    const summaryMsg = summaryMessage(summary, tokensBefore);
    const keptFrom = keptFromRow(core.messageRows, start);
    const tail = core.messages.slice(start);
    const tailRows = core.messageRows.slice(start);
    core.messages.splice(0, core.messages.length, summaryMsg, ...tail);
    core.messageRows.splice(0, core.messageRows.length, null, ...tailRows);
    core.lastContextTokens = undefined;
    const onCompaction = core.persistence?.onCompaction;
    if (onCompaction !== undefined && keptFrom !== undefined) {
      notify(() => onCompaction.call(core.persistence, { summaryMessage: summaryMsg, keptFrom, tokensBefore }));
    }
    return { status: "completed", summary };
  });
}

/** Compacts a session's transcript (same as session.compact(options)). Never throws. */
export function compact(session: AgentSession, options: CompactOptions = {}): Promise<CompactionResult> {
  return session.compact(options);
}
