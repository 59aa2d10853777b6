/**
 * Subagents on the chat screen end to end (dist/zot in a real PTY, subagents
 * on by default): while a subagent runs, the live region has a line for it (its
 * agent id, description, elapsed time and the tool it runs now), gone once
 * it stopped; `/agents` lists it with its status and Enter shows its
 * details (ids, status, prompt) in a viewer. An extension's own `/agents`
 * command (written for the original, which has no /agents) keeps working.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ModeEnv } from "./helpers.ts";
import { TEST_MS, rowsWith, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

function firstUserText(body: unknown): string {
  const first = (body as { messages?: { role: string; content: unknown }[] }).messages?.[0];
  if (first === undefined) return "";
  return typeof first.content === "string" ? first.content : JSON.stringify(first.content);
}

test("a running subagent has a live line (name, elapsed, current tool); /agents lists it and shows its details", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_w", name: "agent", arguments: { description: "flag watcher", prompt: "wait for the flag" } }] },
    { type: "text", text: "The parent is done." },
  );
  env.server.enqueueFor(
    (body) => firstUserText(body).includes("wait for the flag"),
    { type: "tool_calls", calls: [{ id: "call_b", name: "bash", arguments: { command: "while [ ! -e go.flag ]; do sleep 0.05; done; echo flag-seen" } }] },
    { type: "text", text: "child saw it" },
  );
  const tui = await startChat(env);
  tui.type("watch it");
  tui.press("enter");

  // The child runs bash and waits for go.flag: its live line names it, the description, the elapsed time and the tool.
  const live = /agent agent_[0-9a-f]{12} · flag watcher · \d+s · bash/;
  await tui.waitFor(() => rowsWith(tui.screen.screen(), live).length === 1, "the subagent's live line with its tool");
  // The elapsed time moves on while it runs.
  const seconds = () => Number(/· (\d+)s ·/.exec(rowsWith(tui.screen.screen(), live)[0] ?? "")?.[1] ?? -1);
  const first = seconds();
  await tui.waitFor(() => seconds() > first, "the elapsed time to advance");

  writeFileSync(join(env.cwd, "go.flag"), "");
  await tui.waitForText("The parent is done.");
  await waitIdle(tui);
  expect(rowsWith(tui.screen.screen(), /agent agent_[0-9a-f]{12} · flag watcher/)).toEqual([]);

  tui.type("/agents");
  tui.press("enter");
  await tui.waitFor(() => rowsWith(tui.screen.screen(), /agent_[0-9a-f]{12}.*completed after \d+s · flag watcher/).length === 1, "/agents listing the run");
  tui.press("enter");
  await tui.waitForText("agent_run_id: run_", "screen");
  const rows = tui.screen.screen();
  expect(rowsWith(rows, "status: completed")).toHaveLength(1);
  expect(rowsWith(rows, "wait for the flag").length).toBeGreaterThanOrEqual(1);
  tui.press("escape");
  await tui.waitFor(() => rowsWith(tui.screen.screen(), "agent_run_id: run_").length === 0, "the viewer to close");
}, TEST_MS);

test('/agents with "agents": false and no runs says subagents are off', async () => {
  writeFileSync(join(env.home, "config.json"), JSON.stringify({ agents: false }));
  const tui = await startChat(env);
  tui.type("/agents");
  tui.press("enter");
  await tui.waitForText('they are off: "agents": false', "screen");
}, TEST_MS);

const AGENTS_EXTENSION = `
import { createInterface } from "node:readline";
const send = (frame: object) => process.stdout.write(JSON.stringify(frame) + "\\n");
send({ type: "hello", name: "ext-agents", version: "1.0.0", capabilities: ["commands"] });
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  const frame = JSON.parse(line);
  if (frame.type === "hello_ack") {
    send({ type: "register_command", name: "agents", description: "the extension's own agents list" });
    send({ type: "ready" });
  } else if (frame.type === "command_invoked") {
    send({ type: "command_response", id: frame.id, action: "display", display: "agents from the extension" });
  } else if (frame.type === "shutdown") {
    send({ type: "shutdown_ack" });
    lines.close();
  }
});
`;

test("an extension's own /agents command wins over the built-in", async () => {
  const dir = join(env.base, "ext-agents");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "index.ts"), AGENTS_EXTENSION);
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: "ext-agents", exec: "bun", args: ["index.ts"], language: "typescript" }));
  const tui = await startChat(env, { args: ["--ext", dir] });
  // The popup filters as you type: retype until the extension registered its command; then it is the one offered.
  const offered = () => rowsWith(tui.screen.screen(), "the extension's own agents list").length > 0;
  for (let attempt = 0; attempt < 30 && !offered(); attempt++) {
    tui.press("ctrl+u");
    tui.type("/agents");
    await tui.waitFor(offered, "the popup to offer the extension's /agents", 1_000).catch(() => false);
  }
  expect(offered()).toBe(true);
  expect(rowsWith(tui.screen.screen(), "list running and recent subagents")).toEqual([]);
  tui.press("enter");
  await tui.waitForText("agents from the extension");
  expect(rowsWith(tui.screen.all(), "agent_run_id")).toEqual([]);
}, TEST_MS);
