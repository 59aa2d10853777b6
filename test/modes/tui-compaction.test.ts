/**
 * Automatic compaction in the chat screen, through dist/zot in a PTY: when a
 * turn's usage puts the context past the threshold, the next prompt is
 * preceded by a compaction (one summary request), and the chat says so in
 * a line, as /compact does, instead of only the gauge dropping.
 */
import { expect, test } from "bun:test";
import type { ModeEnv } from "./helpers.ts";
import { TEST_MS, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

test("a compaction near the window says what it did in the chat", async () => {
  env.server.enqueue(
    { type: "text", text: "first answer" },
    { type: "text", text: "second answer", usage: { input: 190_000, output: 10 } },
    { type: "text", text: "## Goal\nthe summary" },
    { type: "text", text: "third answer" },
  );
  const tui = await startChat(env);
  for (const prompt of ["first question", "second question"]) {
    tui.type(prompt);
    tui.press("enter");
    await tui.waitForText(prompt.replace("question", "answer"), "screen");
    await waitIdle(tui);
  }
  tui.type("third question");
  tui.press("enter");
  await tui.waitForText("third answer", "screen");
  await tui.waitForText(/compacted automatically \(the context was near the model's window\): \d+ → \d+ messages/, "screen");
  // The summary request went out between the second answer and the third.
  expect(env.server.requests).toHaveLength(4);
}, TEST_MS);
