/**
 * A subagent takes its parent's project-trust decision as it is when the
 * child starts, not as it was at setup: on the chat screen (dist/zot in a
 * real PTY) the trust dialog is answered after setup with [o] (this run
 * only, nothing recorded, so the child cannot find it in the store); a
 * subagent started afterwards starts the project's extension too.
 */
import { expect, test } from "bun:test";
import type { ModeEnv } from "../modes/helpers.ts";
import { TEST_MS, startChat, useChatEnv, waitIdle } from "../modes/tui-chat.ts";
import { projectMarker, starts } from "../trust/helpers.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

type Body = { messages?: { role: string; content: unknown }[] };

test("[o] answered after setup: a subagent started later runs the project's extension as well", async () => {
  const { marker } = projectMarker(env);
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_a", name: "agent", arguments: { description: "look", prompt: "child task" } }] },
    { type: "text", text: "parent done" },
  );
  env.server.enqueueFor((body) => JSON.stringify((body as Body).messages?.[0]).includes("child task"), { type: "text", text: "child done" });
  const tui = await startChat(env, { columns: 110, rows: 30 });
  await tui.waitForText("run this project's extensions?", "screen");
  tui.type("o");
  await tui.waitFor(() => starts(marker) === 1, "the project extension to start in the parent");
  tui.type("go");
  tui.press("enter");
  await tui.waitForText("parent done");
  await waitIdle(tui);
  // The child started it too: it got the parent's "yes", not the "undecided" of setup time.
  expect(starts(marker)).toBe(2);
}, TEST_MS);
