/**
 * The conformance steps that call into the extension: each registered tool
 * called once with arguments generated from its schema (its reply checked),
 * each command invoked (a panel it opens gets keys, a typed burst whose order
 * is checked when the panel echoes it (key-order.ts), then a close), each
 * subscribed event sent, one event_intercept per intercepted kind (the
 * spec's 5 s deadline), and tool_cancel when the extension advertised it (it
 * must keep answering). Results go to the context's report.
 */
import { COMMAND_ACTIONS, type InboundOf, type InterceptableEvent, INTERCEPTABLE_EVENTS, LIFECYCLE_EVENTS } from "../frames.ts";
import { type Context, INTERCEPT_TIMEOUT_MS, type Registered } from "./context.ts";
import { KEY_BURST, KeyOrderWatch } from "./key-order.ts";
import { eventPayload, interceptPayload, SAMPLE_SESSION, sampleArguments } from "./samples.ts";
import type { ConformanceSession } from "./session.ts";

const PANEL_KEYS = ["down", "up", "end", "home"] as const;

export function subscribedEvents(registered: Registered): string[] {
  return [...new Set(registered.subscribe.flatMap((frame) => frame.events))].filter((event) => (LIFECYCLE_EVENTS as readonly string[]).includes(event));
}

export function interceptedEvents(registered: Registered): InterceptableEvent[] {
  return [...new Set(registered.subscribe.flatMap((frame) => frame.intercept))].filter((event): event is InterceptableEvent => (INTERCEPTABLE_EVENTS as readonly string[]).includes(event));
}

function checkContent(blocks: readonly { type: string; text?: string; mime_type?: string; data?: string }[]): string | undefined {
  for (const [i, block] of blocks.entries()) {
    if (block.type === "text" && typeof block.text !== "string") return `content[${i}] is a text block without "text"`;
    if (block.type === "image" && (typeof block.mime_type !== "string" || typeof block.data !== "string")) return `content[${i}] is an image block without "mime_type" and "data"`;
    if (block.type !== "text" && block.type !== "image") return `content[${i}] has type "${block.type}": only text and image blocks exist`;
  }
  return undefined;
}

let nextId = 0;
function requestId(kind: string): string {
  return `zot-ext-test-${kind}-${++nextId}`;
}

export async function callTool(context: Context, session: ConformanceSession, registered: Registered, tool: InboundOf<"register_tool">, check: string): Promise<boolean> {
  const { report } = context;
  const args = sampleArguments(tool.schema);
  const reply = await session.request({ type: "tool_call", id: requestId("tool"), name: tool.name, args }, "tool_result", context.replyTimeoutMs, `tool_call "${tool.name}"`);
  if (reply.kind === "timeout") {
    report.fail(check, `tool "${tool.name}" never answered within ${context.replyTimeoutMs} ms (args ${JSON.stringify(args)}; zot times out at 60 s)`);
    return false;
  }
  if (reply.kind === "exited") {
    report.fail(check, `exited while tool "${tool.name}" ran (${session.describeExit()})`);
    return false;
  }
  const result = reply.frame as InboundOf<"tool_result">;
  const problem = checkContent(result.content);
  const deferred = new Set(registered.tools.filter((t) => t.deferred === true).map((t) => t.name));
  const unknownActivations = result.activate_tools.filter((name) => !deferred.has(name));
  if (problem !== undefined) report.fail(check, `tool "${tool.name}": ${problem}`);
  else if (result.is_error === true) report.warn(check, `tool "${tool.name}" answered is_error for generated args ${JSON.stringify(args)}`);
  else report.pass(check, `tool "${tool.name}" answered (${result.content.length} block(s)) for args ${JSON.stringify(args)}`);
  if (unknownActivations.length > 0) report.warn(check, `tool "${tool.name}" activates ${unknownActivations.join(", ")}, not registered deferred tools (ignored)`);
  return true;
}

const ACTION_FIELD: Partial<Record<string, "prompt" | "insert" | "display" | "open_panel" | "tool_name">> = {
  prompt: "prompt", insert: "insert", display: "display", open_panel: "open_panel", tool_prompt: "tool_name",
};

export async function invokeCommand(context: Context, session: ConformanceSession, registered: Registered, command: InboundOf<"register_command">): Promise<void> {
  const { report } = context;
  const check = `command /${command.name}`;
  const reply = await session.request({ type: "command_invoked", id: requestId("command"), name: command.name, args: "" }, "command_response", context.replyTimeoutMs, `command_invoked "${command.name}"`);
  if (reply.kind !== "reply") {
    report.fail(check, reply.kind === "timeout" ? `no command_response within ${context.replyTimeoutMs} ms (zot times out at 30 s)` : `exited while /${command.name} ran (${session.describeExit()})`);
    return;
  }
  const response = reply.frame as InboundOf<"command_response">;
  if (!(COMMAND_ACTIONS as readonly string[]).includes(response.action)) {
    report.fail(check, `action "${response.action}" is not one of ${COMMAND_ACTIONS.join(", ")}`);
    return;
  }
  const field = ACTION_FIELD[response.action];
  if (field !== undefined && response[field] === undefined) {
    report.fail(check, `action "${response.action}" without "${field}"`);
    return;
  }
  if (response.action === "tool_prompt" && (typeof response.tool_args !== "object" || response.tool_args === null || Array.isArray(response.tool_args))) {
    report.fail(check, `action "tool_prompt" needs "tool_args" as a JSON object`);
    return;
  }
  if (response.error) report.warn(check, `answered with error "${response.error}"`);
  else report.pass(check, `answered action "${response.action}"`);
  if (response.action === "open_panel" && response.open_panel !== undefined) await exercisePanel(context, session, registered, response.open_panel.id, check);
}

async function exercisePanel(context: Context, session: ConformanceSession, registered: Registered, panelId: string, check: string): Promise<void> {
  registered.openPanels.add(panelId);
  for (const key of PANEL_KEYS) session.send({ type: "panel_key", panel_id: panelId, key });
  session.send({ type: "panel_key", panel_id: panelId, key: "rune", text: "?" });
  await session.settle(200, context.replyTimeoutMs);
  if (!session.exited) await checkKeyOrder(context, session, registered, panelId);
  session.send({ type: "panel_close", panel_id: panelId });
  registered.openPanels.delete(panelId);
  await session.settle(200, context.replyTimeoutMs);
  if (session.exited) context.report.fail(check, `exited while its panel "${panelId}" got keys (${session.describeExit()})`);
  else context.report.pass(check, `panel "${panelId}" took ${PANEL_KEYS.length + 1 + KEY_BURST.length} keys and a close`);
}

async function checkKeyOrder(context: Context, session: ConformanceSession, registered: Registered, panelId: string): Promise<void> {
  const check = `panel ${panelId} key order`;
  if (!registered.openPanels.has(panelId)) return context.report.skip(check, "the extension closed the panel before the typed burst");
  const watch = new KeyOrderWatch(panelId);
  registered.keyOrder = watch;
  session.sendAll([...KEY_BURST].map((text) => ({ type: "panel_key", panel_id: panelId, key: "rune", text })));
  await session.settle(300, context.replyTimeoutMs);
  registered.keyOrder = undefined;
  const verdict = watch.verdict();
  context.report[verdict.status](check, verdict.detail);
}

export async function sendEvents(context: Context, session: ConformanceSession, registered: Registered): Promise<void> {
  const events = subscribedEvents(registered);
  if (events.length === 0) return context.report.skip("events", "subscribes to no events");
  let sequence = 0;
  for (const event of events) {
    session.send({ type: "event", event, session_id: SAMPLE_SESSION, cwd: context.loaded.dir, sequence: ++sequence, ...eventPayload(event) });
  }
  await session.settle(200, context.replyTimeoutMs);
  if (session.exited) context.report.fail("events", `exited after events ${events.join(", ")} (${session.describeExit()})`);
  else context.report.pass("events", `took ${events.join(", ")}`);
}

export async function sendIntercepts(context: Context, session: ConformanceSession, registered: Registered): Promise<void> {
  const { report } = context;
  const kinds = interceptedEvents(registered);
  if (kinds.length === 0) return report.skip("intercept", "intercepts nothing");
  for (const event of kinds) {
    const check = `intercept ${event}`;
    const reply = await session.request({ type: "event_intercept", id: requestId("intercept"), event, ...interceptPayload(event, context.loaded.dir) }, "event_intercept_response", INTERCEPT_TIMEOUT_MS, `event_intercept "${event}"`);
    if (reply.kind !== "reply") {
      report.fail(check, reply.kind === "timeout" ? `no event_intercept_response within ${INTERCEPT_TIMEOUT_MS} ms (zot treats it as allow)` : `exited (${session.describeExit()})`);
      continue;
    }
    const response = reply.frame as InboundOf<"event_intercept_response">;
    const args = response.modified_args;
    if (event === "tool_call" && args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) report.fail(check, `modified_args must be a JSON object`);
    else if (event === "before_agent_start" && response.system_prompt !== undefined && typeof response.system_prompt !== "string") report.fail(check, "system_prompt must be a string");
    else if (event === "tool_result" && response.content !== undefined && checkContent(response.content) !== undefined) report.fail(check, checkContent(response.content)!);
    else report.pass(check, response.block === true ? `blocked (${response.reason ?? "no reason"})` : "answered");
  }
}

export async function checkCancellation(context: Context, session: ConformanceSession, registered: Registered): Promise<void> {
  const { report } = context;
  if (!(registered.hello?.capabilities ?? []).includes("tool_cancel")) return report.skip("cancellation", 'does not advertise "tool_cancel"');
  const target = registered.tools.find((tool) => tool.interactive === true) ?? registered.tools[0];
  if (target === undefined) return report.skip("cancellation", "advertises tool_cancel but registers no tools");
  const id = requestId("cancelled");
  const panelsBefore = new Set(registered.openPanels);
  void session.request({ type: "tool_call", id, name: target.name, args: sampleArguments(target.schema) }, "tool_result", context.replyTimeoutMs, `cancelled tool_call "${target.name}"`);
  await session.settle(100, 1000);
  session.send({ type: "tool_cancel", id });
  session.send({ type: "tool_cancel", id: requestId("never-sent") });
  await session.settle(300, context.replyTimeoutMs);
  const leftOpen = [...registered.openPanels].filter((panel) => !panelsBefore.has(panel));
  if (leftOpen.length > 0) report.warn("cancellation", `panel(s) ${leftOpen.join(", ")} still open after tool_cancel: close them`);
  const probe = registered.tools.find((tool) => tool.interactive !== true);
  if (probe === undefined) {
    if (session.exited) report.fail("cancellation", `exited after tool_cancel (${session.describeExit()})`);
    else report.pass("cancellation", `took tool_cancel for "${target.name}" and for an unknown id`);
    return;
  }
  if (await callTool(context, session, registered, probe, "cancellation")) {
    const last = report.checks.at(-1);
    if (last?.status === "pass") report.checks.splice(-1, 1, { ...last, detail: `still answers after tool_cancel for "${target.name}" and for an unknown id` });
  }
}

