/**
 * The TypeScript SDK in the interactive mode: dist/zot in a real PTY with
 * the probe extension (fixtures/sdk-probe, under Bun). Covered: a command's
 * display, a throwing command (an error line; the extension keeps serving),
 * a panel typed into fast (one write) whose async key handler takes a random
 * 0-4 ms per key: the letters are handled, recorded and rendered in order;
 * an interactive tool whose panel the user dismisses: the handler's
 * AbortSignal fires (tool_cancel) and its panel's onClose runs.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { WAIT_MS, type TuiPty } from "../../support/tui-pty.ts";
import { toolResultsSent, type ModeEnv } from "../../modes/helpers.ts";
import { TEST_MS, startChat, waitIdle, useChatEnv } from "../../modes/tui-chat.ts";
import { probeExtension, readRecord } from "./probe.ts";

let env: ModeEnv;
let record: string;
useChatEnv((created) => {
  env = created;
  record = join(env.base, "probe.jsonl");
});

async function start(): Promise<TuiPty> {
  const ext = probeExtension(env.base, "bun");
  const tui = await startChat(env, { args: ["--ext", ext], env: { PROBE_RECORD: record } });
  // Registered once the slash popup lists the command (typed again until it does).
  const onScreen = (text: string): boolean => tui.screen.screen().some((row) => row.includes(text));
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    tui.type("/typi");
    const found = await tui.waitFor(() => (onScreen("a typing panel (sdk)") ? "yes" : onScreen("no matches") ? "no" : undefined), "the slash popup");
    tui.press("ctrl+u");
    await tui.waitFor(() => !onScreen("a typing panel (sdk)") && !onScreen("no matches"), "the popup to close");
    if (found === "yes") return tui;
    if (performance.now() > deadline) throw new Error(`the probe's commands never appeared\n${tui.dump()}`);
    await Bun.sleep(50);
  }
}

test("a command, a throwing command, and a panel typed into fast: keys handled in order by an async handler", async () => {
  const tui = await start();
  tui.type("/probe-throw");
  tui.press("enter");
  await tui.waitForText("/probe-throw failed: boom in command", "screen");
  tui.type("/probe still alive");
  tui.press("enter");
  await tui.waitForText("probe got: still alive", "screen");

  tui.type("/typing");
  tui.press("enter");
  await tui.waitForText("╭─ Typing", "screen");
  const text = "thequickbrownfoxjumpsoverthelazydog0123456789";
  tui.type(text); // one write: every key arrives in one read
  await tui.waitForText(`│ typed: ${text}`, "screen");
  const keys = readRecord(record).filter((entry) => entry.key === "rune");
  expect(keys.map((entry) => entry.text).join("")).toBe(text);
  expect(keys.at(-1)?.typed).toBe(text);
  tui.press("escape");
  await tui.waitFor(() => readRecord(record).some((entry) => entry.closed === "typing") || undefined, "the panel's onClose");
}, TEST_MS);

test("an interactive tool's panel dismissed: the handler's signal aborts (tool_cancel), the model sees the call cancelled", async () => {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "ask1", name: "probe_ask", arguments: { question: "Ship it?" } }] },
    { type: "text", text: "ok, not shipping" },
  );
  const tui = await start();
  tui.type("ask me");
  tui.press("enter");
  await tui.waitForText("╭─ Question", "screen");
  await tui.waitForText("Ship it?", "screen");
  tui.press("escape");
  await tui.waitFor(() => readRecord(record).some((entry) => entry.aborted) || undefined, "the tool handler's AbortSignal");
  await waitIdle(tui);
  await tui.waitForText("ok, not shipping", "screen");
  const entries = readRecord(record);
  expect(entries.some((entry) => typeof entry.closed === "string" && entry.closed.startsWith("ask-"))).toBe(true);
  expect(String(entries.find((entry) => entry.aborted)?.reason)).toContain("cancelled by the host");
  expect(toolResultsSent(env.server.requests[1]).get("ask1")).toContain("cancelled");
}, TEST_MS);
