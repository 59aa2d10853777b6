/**
 * The write-zot-extension skill's frame sequence (weather, as a POSIX sh +
 * jq program in test/fixtures/spec-examples/weather-frames-sh) and its
 * TypeScript scratchpad excerpt (verbatim, run through a `tsx` shim),
 * through dist/zot: the frames the host sends carry the documented fields
 * (hello_ack, command_invoked, tool_call, event, event_intercept,
 * shutdown), /weather berlin prompts the model, the tool answers it, the
 * interceptor's block reason reaches the model as the tool error, notify and
 * clear_notes show and go; /note displays, read_notes answers the model.
 */
import { expect, test } from "bun:test";
import { requestMessages, toolResultsSent, type ModeEnv } from "../modes/helpers.ts";
import { TEST_MS, rowsWith, startChat, waitIdle, useChatEnv } from "../modes/tui-chat.ts";
import { copyExample, frames, tsxShimEnv, waitForCommand } from "./support.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

test("weather (sh + jq): tool, interception block, and the frames the host sends (print mode)", async () => {
  const dir = copyExample(env.base, "weather-frames-sh", "weather");
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_1", name: "weather", arguments: { city: "Berlin" } }] },
    { type: "tool_calls", calls: [{ id: "call_2", name: "bash", arguments: { command: "rm -rf /tmp/foo" } }] },
    { type: "text", text: "done" },
  );
  const result = await env.run(["-p", "weather in Berlin?", "--ext", dir, ...env.providerArgs()]);
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe("done\n");
  expect(toolResultsSent(env.server.requests[1]).get("call_1")).toBe("Berlin: 16°C, fog");
  expect(toolResultsSent(env.server.requests[2]).get("call_2")).toBe('refused: command matches the danger pattern "rm -rf"');

  const got = frames(dir);
  const ack = got[0] ?? {};
  expect(ack).toMatchObject({ type: "hello_ack", protocol_version: 1, provider: "anthropic", cwd: env.cwd, extension_dir: dir, data_dir: dir });
  expect(typeof ack.zot_version).toBe("string");
  expect(typeof ack.model).toBe("string");
  const call = got.find((frame) => frame.type === "tool_call");
  expect(call).toMatchObject({ type: "tool_call", name: "weather", args: { city: "Berlin" } });
  expect(typeof call?.id).toBe("string");
  // tool_call events for both calls, then the interception of each call (the doc's example is bash).
  const events = got.filter((frame) => frame.type === "event");
  expect(events.map((frame) => [frame.event, frame.tool_name])).toEqual([["tool_call", "weather"], ["tool_call", "bash"]]);
  expect(events[1]).toMatchObject({ tool_id: "call_2", tool_args: { command: "rm -rf /tmp/foo" } });
  const intercepts = got.filter((frame) => frame.type === "event_intercept");
  expect(intercepts.map((frame) => frame.tool_name)).toEqual(["weather", "bash"]);
  expect(intercepts[1]).toMatchObject({ event: "tool_call", tool_id: "call_2", tool_name: "bash", tool_args: { command: "rm -rf /tmp/foo" } });
  expect(got.at(-1)).toEqual({ type: "shutdown" });
  // The blocked command never ran.
  expect(JSON.stringify(env.server.requests[2]?.body)).not.toContain("No such file");
});

test("weather (sh + jq): /weather berlin prompts the model; notify shows, clear_notes removes it", async () => {
  const dir = copyExample(env.base, "weather-frames-sh", "weather");
  env.server.enqueue({ type: "text", text: "Berlin: foggy today." });
  const tui = await startChat(env, { args: ["--ext", dir] });
  await waitForCommand(tui, "weather");
  tui.type("/weather berlin");
  tui.press("enter");
  await tui.waitForText("Berlin: foggy today.");
  await waitIdle(tui);
  const user = requestMessages(env.server.requests[0]).filter((message) => message.role === "user").at(-1);
  expect(JSON.stringify(user?.content)).toContain("Show today's weather for Berlin in one line.");
  expect(frames(dir).find((frame) => frame.type === "command_invoked")).toMatchObject({ name: "weather", args: "berlin" });

  tui.type("/weather notify");
  tui.press("enter");
  await tui.waitForText("[weather] refreshed cache", "screen");
  tui.type("/weather clear");
  tui.press("enter");
  await tui.waitFor(() => rowsWith(tui.screen.screen(), "refreshed cache").length === 0, "clear_notes to remove the note");
}, TEST_MS);

test("scratchpad (TypeScript excerpt, exec tsx): /note displays, read_notes answers the model", async () => {
  const dir = copyExample(env.base, "scratchpad");
  const shim = tsxShimEnv(env.base);
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_n", name: "read_notes", arguments: {} }] },
    { type: "text", text: "your notes are empty" },
  );
  const printed = await env.run(["-p", "read my notes", "--ext", dir, ...env.providerArgs()], { env: shim });
  expect(printed.stderr).toBe("");
  expect(printed.stdout).toBe("your notes are empty\n");
  expect(toolResultsSent(env.server.requests[1]).get("call_n")).toBe("(notes go here)");

  const tui = await startChat(env, { args: ["--ext", dir], env: shim });
  await waitForCommand(tui, "note");
  tui.type("/note buy milk");
  tui.press("enter");
  await tui.waitForText("noted: buy milk", "screen");
  // display: nothing reaches the model.
  expect(env.server.requests.length).toBe(2);
}, TEST_MS);
