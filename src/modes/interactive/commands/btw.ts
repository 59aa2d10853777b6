/**
 * `/btw <question>`: a side question about the conversation, answered in an
 * overlay while the main conversation goes on untouched. The model gets a
 * frozen copy of what it would get now: the system prompt in effect and the
 * transcript so far (cut back to its last consistent point when a tool call
 * is still waiting for its result), plus the question; the answer streams
 * into a viewer (Esc closes it and stops the answer). Nothing is recorded:
 * not in the transcript, not in the session file, not in the session's
 * token and cost totals (the viewer's title shows what the side question
 * cost); extensions see no events; tools never run (a model that asks for
 * one is told in the viewer).
 */
import { errorMessage } from "../../../common/errors.ts";
import type { Message } from "../../../providers/types.ts";
import type { BuiltinCommand, CommandHost } from "../command-types.ts";
import { ReadingView } from "../reading-view.ts";

/** The transcript without a trailing assistant message whose tool calls have no results yet. */
export function consistentTranscript(messages: readonly Message[]): Message[] {
  const copy = messages.slice();
  const last = copy.at(-1);
  if (last?.role === "assistant" && last.content.some((block) => block.type === "tool_call")) copy.pop();
  return copy;
}

function usesTools(messages: readonly Message[]): boolean {
  return messages.some((message) => message.content.some((block) => block.type === "tool_call" || block.type === "tool_result"));
}

async function btwCommand(host: CommandHost, question: string): Promise<void> {
  if (question === "") {
    host.chat.error("usage: /btw <question> (a side question about the conversation; nothing is recorded)");
    return;
  }
  const { agent, tools } = host.runtime;
  const messages = consistentTranscript(agent.messages);
  messages.push({ role: "user", content: [{ type: "text", text: question }], time: new Date().toISOString() });
  const system = agent.effectiveSystemPrompt ?? agent.systemPrompt;
  const controller = new AbortController();
  const title = `btw: ${question.replace(/\s+/g, " ").slice(0, 60)}`;
  const view = new ReadingView({ theme: host.theme, title: `${title} (answering…)`, text: "", atEnd: true, onClose: () => controller.abort() });
  host.openOverlay(view);
  let answer = "";
  try {
    const result = await agent.client.stream(
      // Tool definitions go along when the transcript has tool blocks (providers refuse those without them).
      { model: agent.model, system, messages, tools: usesTools(messages) ? tools.specs() : [], signal: controller.signal },
      (event) => {
        if (event.type !== "text_delta") return;
        answer += event.delta;
        view.setText(answer);
        host.frame();
      },
    );
    const asked = result.message.content.flatMap((block) => (block.type === "tool_call" ? [block.name] : []));
    if (asked.length > 0) answer += `${answer === "" ? "" : "\n\n"}(the model wanted to use ${asked.join(", ")}; /btw answers without tools)`;
    if (answer.trim() === "") answer = result.stop === "aborted" ? "(stopped)" : "(no answer)";
    view.setText(answer);
    view.setTitle(`${title} · $${result.usage.cost_usd.toFixed(4)}${result.stop === "aborted" ? " · stopped" : ""}`);
  } catch (err) {
    view.setText(`${answer}${answer === "" ? "" : "\n\n"}error: ${errorMessage(err)}`);
    view.setTitle(`${title} (failed)`);
  }
  host.frame();
}

export const BTW_COMMAND: BuiltinCommand = {
  name: "btw",
  usage: "/btw <question>",
  description: "side question about the conversation (nothing recorded)",
  immediate: true,
  run: (host, args) => btwCommand(host, args.trim()),
};
