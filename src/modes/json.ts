/**
 * JSON mode output (`zot --json`, schema in docs/json.md): one line per
 * agent event via toJsonEventLine, written as it happens (UI-only events,
 * such as thinking_delta, are not written), except that a step's
 * tool_result lines keep the calls' order (call-order.ts) and, while an
 * extension intercepts assistant messages, streamed text waits for the
 * delivered message (held-text.ts). The agent ends
 * every prompt with one `done` or `error` (max steps: `done` then `error`,
 * as the original); this output adds a
 * terminal line only where no prompt produced one: `done` after an
 * extension command's display/noop, `error` when the run failed before or
 * outside the agent (setup, command errors, interruption). An extension's
 * display text is an `ext_display` line. On a terminal, C1 and DEL
 * characters are written as \u escapes (common/terminal-text.ts; the same
 * JSON value), so no line can drive the terminal.
 */
import { goJsonStringify, isUiOnlyEvent, toJsonEventLine, type AgentEvent } from "../agent/events.ts";
import { jsonForStdout } from "../common/terminal-text.ts";
import { CallOrder } from "./call-order.ts";
import { HeldText } from "./held-text.ts";
import { StdoutWriter, type HeadlessOutput } from "./output.ts";

/** `holdText()`: an extension may still hide or replace the assistant's text (held-text.ts). */
export function createJsonOutput(writer: StdoutWriter = new StdoutWriter(), holdText: () => boolean = () => false): HeadlessOutput {
  /** The last line written was a terminal event (done / error). */
  let terminal = false;
  // A step's tool results in call order, as the original wrote them (call-order.ts).
  const order = new CallOrder((event) => {
    writer.write(jsonForStdout(toJsonEventLine(event)));
    terminal = event.type === "done" || event.type === "error";
  });
  // Streamed text an extension may still hide or replace waits for the delivered message (held-text.ts).
  const held = new HeldText(holdText, (event) => {
    if (!isUiOnlyEvent(event)) order.event(event);
  });
  const emit = (event: AgentEvent): void => held.event(event);
  return {
    event: emit,
    display(extension, text) {
      writer.write(jsonForStdout(`${goJsonStringify({ type: "ext_display", extension, text })}\n`));
      terminal = false;
    },
    succeeded() {
      if (!terminal) emit({ type: "done" });
    },
    failed(message) {
      if (!terminal) emit({ type: "error", message });
    },
    flush: () => writer.flush(),
  };
}
