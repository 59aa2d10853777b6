/**
 * Print mode output (`zot -p`): nothing while the agent works; on success the
 * text of the last assistant message that had text (its text blocks joined
 * by "\n", as shown to the user, so extension rewrites and hidden messages
 * are respected) plus a newline, or an extension's `display` text. Failures
 * print nothing on stdout (the runner reports them on stderr). On a terminal
 * the text is sanitized (common/terminal-text.ts); a pipe gets it raw. A
 * provider retry is one `zot: <provider>: retrying in 4 s (retry 1 of 5): 429
 * rate limited` line on stderr as it happens, and so is each subagent's
 * start and stop (`zot: agent <agent_id> started: <description>`,
 * `zot: agent <agent_id> <status>[: <error>]`; docs/agents.md).
 */
import type { AgentEvent } from "../agent/events.ts";
import { forStdout } from "../common/terminal-text.ts";
import { StdoutWriter, type HeadlessOutput } from "./output.ts";
import { queueStderr } from "../common/stderr.ts";

function visibleText(event: Extract<AgentEvent, { type: "assistant_message" }>): string {
  const parts: string[] = [];
  for (const block of event.content) if (block.type === "text") parts.push(block.text);
  return parts.join("\n");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function withNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

export function createPrintOutput(writer: StdoutWriter = new StdoutWriter(), warn: (line: string) => void = queueStderr): HeadlessOutput {
  let finalText: string | undefined;
  let displayed: string | undefined;
  return {
    event(event) {
      if (event.type === "retry") warn(`zot: ${event.message}\n`);
      if (event.type === "subagent_start") warn(`zot: agent ${event.agent_id} started: ${oneLine(event.description)}\n`);
      if (event.type === "subagent_stop") warn(`zot: agent ${event.agent_id} ${event.status}${event.error !== undefined ? `: ${oneLine(event.error)}` : ""}\n`);
      if (event.type !== "assistant_message") return;
      const text = visibleText(event);
      if (text !== "") finalText = text;
    },
    display(_extension, text) {
      displayed = text;
    },
    succeeded() {
      const text = displayed ?? finalText;
      if (text !== undefined && text !== "") writer.write(forStdout(withNewline(text)));
    },
    failed() {},
    flush: () => writer.flush(),
  };
}
