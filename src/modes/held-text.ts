/**
 * Streamed assistant text in `--json` and RPC output while an extension
 * intercepts `assistant_message` (extensions.md: the interceptor hides or
 * rewrites the user-visible text; the Go SDK's "before the user sees it").
 * Writing the model's `text_delta` events as they stream would show a
 * client the text the guard is about to hide or replace, so HeldText sits
 * in front of those writers: when `hold()` is true at a message's first
 * `text_delta`, that message's stream events are held until the agent
 * delivers it. Then they are written in their order, with the text deltas
 * replaced by one `text_delta` carrying the delivered text (the text blocks
 * of `assistant_message`, joined as the deltas would be) at the place of
 * the first one, followed by the `assistant_message`. A hidden message
 * (`assistant_hidden`), or a stream that ends without a message (a failed
 * model call: `turn_end`, or anything else that is not a stream event),
 * releases the held non-text events and drops the held text. Without an
 * interceptor everything passes at once, as before.
 */
import type { AgentEvent } from "../agent/events.ts";
import type { ExtensionManager } from "../ext/index.ts";

/** True while a live extension intercepts `assistant_message` (it may still hide or replace the text). */
export function interceptsAssistantMessages(manager: ExtensionManager | undefined): boolean {
  if (manager === undefined) return false;
  return manager.connections().some((connection) => !connection.closed && manager.subscriptions.get(connection.name)?.intercept.has("assistant_message") === true);
}

const STREAM_EVENTS: ReadonlySet<AgentEvent["type"]> = new Set([
  "text_delta",
  "thinking_delta",
  "tool_use_start",
  "tool_use_args",
  "tool_use_end",
  "usage",
]);

export class HeldText {
  /** Held events of the current message; undefined while nothing is held. */
  #held: AgentEvent[] | undefined;

  constructor(
    private readonly hold: () => boolean,
    private readonly write: (event: AgentEvent) => void,
  ) {}

  event(event: AgentEvent): void {
    if (this.#held === undefined) {
      if (event.type === "text_delta" && this.hold()) this.#held = [event];
      else this.write(event);
      return;
    }
    if (STREAM_EVENTS.has(event.type)) {
      this.#held.push(event);
      return;
    }
    const held = this.#held;
    this.#held = undefined;
    const delivered = event.type === "assistant_message" ? deliveredText(event) : "";
    let textWritten = false;
    for (const item of held) {
      if (item.type !== "text_delta") this.write(item);
      else if (!textWritten) {
        textWritten = true;
        if (delivered !== "") this.write({ type: "text_delta", delta: delivered });
      }
    }
    this.write(event);
  }
}

function deliveredText(event: Extract<AgentEvent, { type: "assistant_message" }>): string {
  let text = "";
  for (const block of event.content) if (block.type === "text") text += block.text;
  return text;
}
