/**
 * A resumed conversation (-c, --resume, --session) replayed into the chat
 * model, so scrollback shows it as it would have looked live: user
 * prompts, assistant markdown, tool cards with their results. Only the last
 * REPLAY_MAX_MESSAGES messages are replayed (a huge session would otherwise
 * fill scrollback and delay the first paint); a line first says how many
 * earlier messages are not shown. Messages become the same agent events the
 * loop emits, so nothing here renders by itself. Thinking is not replayed.
 */
import { parseArgsForDisplay, type AgentEvent } from "../../agent/events.ts";
import type { Message } from "../../providers/types.ts";
import type { Chat } from "./chat.ts";

export const REPLAY_MAX_MESSAGES = 200;

function textOf(message: Message): string {
  return message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}

function assistantEvents(message: Message, step: number): AgentEvent[] {
  const events: AgentEvent[] = [{ type: "turn_start", step }, { type: "assistant_start" }];
  const text = textOf(message);
  if (text !== "") events.push({ type: "text_delta", delta: text });
  events.push({ type: "assistant_message", content: message.content, time: message.time });
  const calls = message.content.flatMap((block) => (block.type === "tool_call" ? [block] : []));
  // The saved time is not when the tool ran: the replayed cards show no elapsed time.
  for (const call of calls) events.push({ type: "tool_call", id: call.id, name: call.name, args: parseArgsForDisplay(call.arguments) });
  events.push({ type: "turn_end", stop: calls.length > 0 ? "tool_use" : "end" });
  return events;
}

/** The texts a cancelled call's result carries (the session keeps no status): bash's note, the choke point's, a stub for a lost result. */
const CANCELLED_RESULT = /cancelled; process group killed|\[cancelled before start\]|^tool call was aborted|^aborted: /m;

function toolEvents(message: Message): AgentEvent[] {
  return message.content.flatMap((block): AgentEvent[] => {
    if (block.type !== "tool_result") return [];
    const text = block.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
    // Shown as it was live: a cancelled call's card says cancelled, not error.
    const cancelled = block.is_error && CANCELLED_RESULT.test(text);
    return [{ type: "tool_result", id: block.call_id, is_error: block.is_error, content: block.content, ...(cancelled ? { status: "cancelled" as const } : {}) }];
  });
}

/** Replays the messages into the chat; returns how many were left out. */
export function replayConversation(chat: Chat, messages: readonly Message[], limit = REPLAY_MAX_MESSAGES): number {
  let start = Math.max(0, messages.length - limit);
  // Start on a user message when one is near, so a tool result is not shown without its call.
  while (start > 0 && start < messages.length && messages[start]?.role !== "user") start++;
  if (start >= messages.length) start = Math.max(0, messages.length - limit);
  if (start > 0) chat.info(`… ${start} earlier message(s) of this session not shown`);
  let step = 0;
  for (const message of messages.slice(start)) {
    if (message.role === "user") {
      const text = textOf(message);
      if (text !== "") chat.user(text);
      continue;
    }
    const events = message.role === "assistant" ? assistantEvents(message, ++step) : message.role === "tool" ? toolEvents(message) : [];
    for (const event of events) chat.event(event);
  }
  chat.settle();
  return start;
}
