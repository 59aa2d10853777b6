/**
 * Tool call / tool result pairing repair, run on every loaded transcript (and
 * usable on any transcript, e.g. a compacted tail). Providers reject a
 * transcript where a tool call has no result or a result has no call, and a
 * crash or abort can leave either behind. Two passes:
 *  1. Orphans: a tool_result survives only if it answers a tool_call of the
 *     governing assistant message (the nearest assistant message before it
 *     with only tool messages in between) and that call was not already
 *     answered. Messages left with no content are dropped.
 *  2. Stubs: every call of an assistant message not answered by the tool
 *     messages right after it gets an error result ABORTED_TOOL_RESULT_TEXT,
 *     merged into the first following tool message, or inserted as a new tool
 *     message right after the assistant message.
 * Never mutates its input.
 */
import type { ContentBlock, Message, ToolResultBlock } from "../providers/types.ts";

export const ABORTED_TOOL_RESULT_TEXT = "tool call was aborted; no result recorded.";

/** A transcript message and its on-disk message row index (null: not on disk). */
export interface TranscriptEntry {
  readonly message: Message;
  readonly row: number | null;
}

export interface PairingRepair {
  readonly entries: readonly TranscriptEntry[];
  /** Call ids that received a stub result. */
  readonly stubbedCalls: readonly string[];
  /** Call ids of the tool results that were dropped. */
  readonly droppedResults: readonly string[];
}

function toolCallIds(message: Message): string[] {
  const ids: string[] = [];
  for (const block of message.content) if (block.type === "tool_call") ids.push(block.id);
  return ids;
}

function withContent(message: Message, content: readonly ContentBlock[]): Message {
  return { ...message, content };
}

function stubResult(callId: string): ToolResultBlock {
  return {
    type: "tool_result",
    call_id: callId,
    content: [{ type: "text", text: ABORTED_TOOL_RESULT_TEXT }],
    is_error: true,
  };
}

function dropOrphans(entries: readonly TranscriptEntry[], dropped: string[]): TranscriptEntry[] {
  const kept: TranscriptEntry[] = [];
  let openCalls: ReadonlySet<string> = new Set();
  let answered = new Set<string>();
  for (const entry of entries) {
    const { message } = entry;
    if (message.role === "assistant") {
      openCalls = new Set(toolCallIds(message));
      answered = new Set();
    } else if (message.role === "user") {
      openCalls = new Set();
    }
    if (message.role !== "tool") {
      kept.push(entry);
      continue;
    }
    const content = message.content.filter((block) => {
      if (block.type !== "tool_result") return true;
      if (openCalls.has(block.call_id) && !answered.has(block.call_id)) {
        answered.add(block.call_id);
        return true;
      }
      dropped.push(block.call_id);
      return false;
    });
    if (content.length === 0) continue;
    kept.push(content.length === message.content.length ? entry : { ...entry, message: withContent(message, content) });
  }
  return kept;
}

function addStubs(entries: readonly TranscriptEntry[], stubbed: string[]): TranscriptEntry[] {
  const out = [...entries];
  for (let i = 0; i < out.length; i++) {
    const assistant = out[i];
    if (!assistant || assistant.message.role !== "assistant") continue;
    const calls = toolCallIds(assistant.message);
    if (calls.length === 0) continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < out.length && out[j]?.message.role === "tool"; j++) {
      for (const block of out[j]?.message.content ?? []) if (block.type === "tool_result") answered.add(block.call_id);
    }
    const missing = calls.filter((id) => !answered.has(id));
    if (missing.length === 0) continue;
    stubbed.push(...missing);
    const stubs = missing.map(stubResult);
    const next = out[i + 1];
    if (next && next.message.role === "tool") {
      out[i + 1] = { ...next, message: withContent(next.message, [...next.message.content, ...stubs]) };
    } else {
      out.splice(i + 1, 0, { message: { role: "tool", content: stubs, time: assistant.message.time }, row: null });
    }
  }
  return out;
}

export function repairToolPairing(entries: readonly TranscriptEntry[]): PairingRepair {
  const droppedResults: string[] = [];
  const stubbedCalls: string[] = [];
  const withoutOrphans = dropOrphans(entries, droppedResults);
  return { entries: addStubs(withoutOrphans, stubbedCalls), stubbedCalls, droppedResults };
}

/** repairToolPairing for a plain message list. */
export function repairMessages(messages: readonly Message[]): Message[] {
  return repairToolPairing(messages.map((message) => ({ message, row: null }))).entries.map((entry) => entry.message);
}
