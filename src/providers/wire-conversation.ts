/**
 * The transcript clean-up applied before any request is built, done
 * incrementally. A conversation only grows between the requests of one
 * prompt (each request carries every message so far), so a client keeps one
 * WireConversation: `items(messages)` converts only the messages appended
 * since its previous call when that call's messages are a prefix (same
 * objects, in order) of these, and starts over otherwise (compaction,
 * resume, a side question on the same client). Messages are immutable once
 * in a transcript (their type is readonly), which is what makes the identity
 * check sufficient. The result is a fresh array the caller may change; the
 * items in it are shared with later calls and must not be mutated.
 *
 * Clean-up rule (the same as before any request was cached): a tool result
 * whose call id no earlier assistant message issued is dropped (providers
 * reject them), and a message left with no content is skipped.
 */
import type { ContentBlock, Message } from "./types.ts";

/** `message` without orphan tool results (updating `issued`); undefined when nothing is left. */
function withoutOrphans(message: Message, issued: Set<string>): Message | undefined {
  let content: ContentBlock[] | undefined;
  message.content.forEach((block, index) => {
    if (block.type === "tool_call") issued.add(block.id);
    const orphan = block.type === "tool_result" && !issued.has(block.call_id);
    if (orphan && content === undefined) content = message.content.slice(0, index);
    else if (!orphan && content !== undefined) content.push(block);
  });
  if (content === undefined) return message.content.length === 0 ? undefined : message;
  return content.length === 0 ? undefined : { ...message, content };
}

/** All of `messages` without orphan tool results (a one-off, uncached). */
export function withoutOrphanToolResults(messages: readonly Message[]): Message[] {
  const issued = new Set<string>();
  const out: Message[] = [];
  for (const message of messages) {
    const kept = withoutOrphans(message, issued);
    if (kept !== undefined) out.push(kept);
  }
  return out;
}

export class WireConversation<Item> {
  /** The messages converted so far (our own copy, so a caller's later changes to its array cannot fool the prefix check). */
  #source: Message[] = [];
  #items: Item[] = [];
  #issued = new Set<string>();

  /** `convert` turns one cleaned-up message into its wire items (none, one or several). */
  constructor(private readonly convert: (message: Message) => readonly Item[]) {}

  /** The wire items of `messages`, converting only what was appended since the previous call. */
  items(messages: readonly Message[]): Item[] {
    const source = this.#source;
    let extends_ = source.length <= messages.length;
    for (let i = 0; extends_ && i < source.length; i++) extends_ = source[i] === messages[i];
    if (!extends_) {
      this.#source = [];
      this.#items = [];
      this.#issued = new Set();
    }
    for (let i = this.#source.length; i < messages.length; i++) {
      const message = messages[i] as Message;
      this.#source.push(message);
      const kept = withoutOrphans(message, this.#issued);
      if (kept !== undefined) for (const item of this.convert(kept)) this.#items.push(item);
    }
    return this.#items.slice();
  }
}
