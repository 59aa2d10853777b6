/**
 * WireConversation (src/providers/wire-conversation.ts): a growing
 * conversation is converted once per message, and every request's wire form
 * is what a one-off conversion gives (orphan tool results dropped, a changed
 * history starts over); through a real client, the cache breakpoint of one
 * request never leaks into the next.
 */
import { describe, expect, test } from "bun:test";
import { createClient } from "../../src/providers/index.ts";
import type { Message } from "../../src/providers/types.ts";
import { WireConversation, withoutOrphanToolResults } from "../../src/providers/wire-conversation.ts";
import { request, testModel, useModelServer, userText } from "./helpers.ts";

const server = useModelServer();

const call = (id: string): Message => ({ role: "assistant", content: [{ type: "tool_call", id, name: "read", arguments: '{"path":"a"}' }], time: "t" });
const result = (id: string): Message => ({ role: "tool", content: [{ type: "tool_result", call_id: id, content: [{ type: "text", text: "r" }], is_error: false }], time: "t" });

function counting(): { conversation: WireConversation<string>; converted: Message[] } {
  const converted: Message[] = [];
  const conversation = new WireConversation<string>((message) => {
    converted.push(message);
    return message.content.map((block) => `${message.role}:${block.type}`);
  });
  return { conversation, converted };
}

describe("WireConversation", () => {
  test("converts each appended message once and matches a one-off conversion", () => {
    const { conversation, converted } = counting();
    const messages: Message[] = [userText("go")];
    for (let i = 1; i <= 20; i++) {
      messages.push(call(`c${i}`), result(`c${i}`));
      const items = conversation.items(messages.slice());
      expect(items).toEqual(withoutOrphanToolResults(messages).flatMap((m) => m.content.map((b) => `${m.role}:${b.type}`)));
    }
    expect(converted.length).toBe(41);
  });

  test("drops orphan tool results, and starts over when the history is not a prefix", () => {
    const { conversation, converted } = counting();
    const history = [userText("go"), result("nobody"), call("c1"), result("c1")];
    expect(conversation.items(history)).toEqual(["user:text", "assistant:tool_call", "tool:tool_result"]);
    const compacted = [userText("summary"), call("c2"), result("c2")];
    expect(conversation.items(compacted)).toEqual(["user:text", "assistant:tool_call", "tool:tool_result"]);
    expect(converted.length).toBe(3 + 3);
    // A caller changing its own array afterwards cannot make a stale prefix look current.
    const mutable = [userText("a")];
    conversation.items(mutable);
    mutable[0] = userText("b");
    expect(conversation.items(mutable)).toEqual(["user:text"]);
    expect(converted.at(-1)?.content[0]).toEqual({ type: "text", text: "b" });
  });
});

describe("a client's successive requests", () => {
  test("anthropic: only the last user message of each request carries the cache breakpoint", async () => {
    const client = createClient({ provider: "anthropic", apiKey: "k", baseUrl: server().anthropicBaseUrl, retry: { baseDelayMs: 1 } });
    const messages: Message[] = [userText("first")];
    for (let i = 1; i <= 3; i++) {
      server().enqueue({ type: "text", text: "ok" });
      await client.stream(request(testModel(), messages.slice()), () => {});
      const body = server().requests.at(-1)?.body as { messages: { content: Record<string, unknown>[] }[] };
      const marked = body.messages.flatMap((m, at) => m.content.filter((block) => block.cache_control !== undefined).map(() => at));
      expect(marked).toEqual([body.messages.length - 1]);
      messages.push(call(`c${i}`), result(`c${i}`));
    }
  });
});
