/**
 * `zot ext test <dir>`: the conformance run. Loads extension.json, spawns the
 * extension as zot does and checks, in order: the hello (first frame, name =
 * the manifest's), registrations up to ready (the host's registration rules),
 * each tool called once with arguments generated from its schema, each
 * command invoked (panels it opens get keys, a burst of typed runes whose
 * order is checked when the panel echoes them (key-order.ts), and a close), each subscribed
 * event sent, one event_intercept per intercepted kind (5 s, the spec's
 * deadline), tool_cancel when advertised (the extension must keep answering),
 * shutdown (shutdown_ack, exit within the spec's 2 s grace) and, in a second
 * process, exit on stdin EOF within 2 s. Every frame is checked against the
 * schemas throughout (session.ts). Waits for replies are bounded by
 * `replyTimeoutMs` (tools, commands, ready); hello by the startup bound.
 * Memory is bounded: frames are handled as they arrive and counted, not
 * kept (session.ts keeps the last 64), and at most MAX_FRAME_PROBLEMS frame
 * problems are listed (the rest are counted). Every process it starts is
 * ended before it returns.
 */
import { PROTOCOL_VERSION, HOST_CAPABILITIES, INTERCEPTABLE_EVENTS, LIFECYCLE_EVENTS, COMMAND_ACTIONS, type InboundFrame, type InboundOf, type InterceptableEvent } from "../frames.ts";
import { loadManifest, type LoadedManifest } from "../manifest.ts";
import { resolveExec } from "../process.ts";
import { checkCommandName, checkToolName, checkToolSchema, MAX_COMMANDS_PER_EXTENSION, MAX_TOOLS_PER_EXTENSION } from "../registration-rules.ts";
import { KEY_BURST, KeyOrderWatch } from "./key-order.ts";
import { ConformanceReport } from "./report.ts";
import { eventPayload, interceptPayload, SAMPLE_SESSION, sampleArguments } from "./samples.ts";
import { ConformanceSession } from "./session.ts";

export const DEFAULT_REPLY_TIMEOUT_MS = 10_000;
export const STARTUP_TIMEOUT_MS = 15_000;
export const INTERCEPT_TIMEOUT_MS = 5_000;
export const SHUTDOWN_GRACE_MS = 2_000;
const PANEL_KEYS = ["down", "up", "end", "home"] as const;
/** Frame problems listed in the report; more are counted in the "frames" summary. */
const MAX_FRAME_PROBLEMS = 20;

export interface ConformanceOptions {
  readonly dir: string;
  readonly replyTimeoutMs?: number;
  readonly zotVersion: string;
}

interface Registered {
  readonly hello?: InboundOf<"hello">;
  readonly tools: InboundOf<"register_tool">[];
  readonly commands: InboundOf<"register_command">[];
  readonly subscribe: InboundOf<"subscribe">[];
  ready: boolean;
  readonly openPanels: Set<string>;
  /** Set while the key-order burst of one panel is being watched. */
  keyOrder?: KeyOrderWatch;
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const report = new ConformanceReport(options.dir);
  let loaded: LoadedManifest;
  try {
    loaded = await loadManifest(options.dir);
  } catch (err) {
    report.fail("manifest", err instanceof Error ? err.message : String(err));
    return report;
  }
  const manifest = loaded.manifest;
  report.name = manifest.name;
  if (loaded.kind !== "process") {
    report.pass("manifest", `${manifest.name}: a ${loaded.kind}-only bundle; zot never spawns it, nothing more to test`);
    return report;
  }
  const exec = resolveExec(manifest.exec!, loaded.dir);
  if (!exec.ok) {
    report.fail("manifest", `${loaded.path}: ${exec.failure.kind === "exec_not_found" || exec.failure.kind === "spawn_failed" ? exec.failure.detail : exec.failure.kind}`);
    return report;
  }
  report.pass("manifest", `${manifest.name} ${manifest.version ?? ""}, exec ${manifest.exec}${manifest.args?.length ? ` ${manifest.args.join(" ")}` : ""}`.replace("  ", " "));
  const replyTimeoutMs = options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
  const context: Context = { report, loaded, execPath: exec.path, replyTimeoutMs, zotVersion: options.zotVersion, frameProblems: new Set() };
  await mainSession(context);
  await eofSession(context);
  summarizeFrames(context);
  return report;
}

interface Context {
  readonly report: ConformanceReport;
  readonly loaded: LoadedManifest;
  readonly execPath: string;
  readonly replyTimeoutMs: number;
  readonly zotVersion: string;
  readonly frameProblems: Set<string>;
  /** Frame problems past MAX_FRAME_PROBLEMS (not listed). */
  unlistedProblems?: number;
  /** Frame counts by type of the main run. */
  counts?: ReadonlyMap<string, number>;
}

function summarizeFrames(context: Context): void {
  const counts = [...(context.counts ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]);
  const total = counts.reduce((sum, [, count]) => sum + count, 0);
  const detail = `${total} valid frame(s) in the main run${counts.length > 0 ? `: ${counts.map(([type, count]) => `${type} ${count}`).join(", ")}` : ""}`;
  const unlisted = context.unlistedProblems ?? 0;
  if (unlisted > 0) context.report.fail("frames", `${unlisted} more frame problem(s) not listed (${MAX_FRAME_PROBLEMS} shown); ${detail}`);
  else if (context.frameProblems.size === 0) context.report.pass("frames", detail);
}

function startSession(context: Context, registered: Registered, label: string): ConformanceSession | undefined {
  const { report, loaded } = context;
  const frameProblems = context.frameProblems;
  let started: ConformanceSession | undefined;
  const session = ConformanceSession.start(context.execPath, loaded.manifest.args ?? [], loaded.dir, {
    problem: (detail) => {
      // Both runs see the same frames: each problem once, at most MAX_FRAME_PROBLEMS listed, the rest counted.
      if (frameProblems.has(detail)) return;
      if (frameProblems.size >= MAX_FRAME_PROBLEMS) {
        context.unlistedProblems = (context.unlistedProblems ?? 0) + 1;
        return;
      }
      frameProblems.add(detail);
      report.fail("frames", detail);
    },
    frame: (frame) => {
      collect(context, registered, frame);
      // The harness runs no host tools: every call_tool is answered at once with an error.
      if (frame.type === "call_tool") {
        started?.send({ type: "tool_result", id: frame.id, name: frame.name, content: [{ type: "text", text: "zot ext test runs no host tools" }], is_error: true });
      }
    },
  });
  if (typeof session === "string") {
    report.fail(label, `${loaded.path}: could not start ${context.execPath}: ${session}`);
    return undefined;
  }
  started = session;
  return session;
}

function emptyRegistered(): Registered {
  return { tools: [], commands: [], subscribe: [], ready: false, openPanels: new Set() };
}

function collect(context: Context, registered: Registered, frame: InboundFrame): void {
  const { report } = context;
  switch (frame.type) {
    case "hello":
      if (registered.hello !== undefined) report.fail("frames", "a second hello frame (zot ignores it)");
      else (registered as { hello?: InboundOf<"hello"> }).hello = frame;
      return;
    case "register_tool":
      registered.tools.push(frame);
      return;
    case "register_command":
      registered.commands.push(frame);
      return;
    case "subscribe":
      registered.subscribe.push(frame);
      return;
    case "ready":
      registered.ready = true;
      return;
    case "panel_render":
      registered.openPanels.add(frame.panel_id);
      registered.keyOrder?.observe(frame);
      return;
    case "panel_close":
      registered.openPanels.delete(frame.panel_id);
      return;
    case "call_tool":
      if (!(registered.hello?.capabilities ?? []).includes("call_tool")) {
        report.fail("frames", `call_tool "${frame.name}" without "call_tool" in hello.capabilities (zot refuses it)`);
      }
      return;
    case "notify":
      if (!["info", "success", "warn", "error"].includes(frame.level)) report.warn("frames", `notify level "${frame.level}" is not info, success, warn or error`);
      return;
    default:
      return;
  }
}

function helloAck(context: Context): Parameters<ConformanceSession["send"]>[0] {
  return {
    type: "hello_ack",
    protocol_version: PROTOCOL_VERSION,
    zot_version: context.zotVersion,
    provider: "zot-ext-test",
    model: "zot-ext-test",
    cwd: context.loaded.dir,
    extension_dir: context.loaded.dir,
    data_dir: context.loaded.dir,
    capabilities: [...HOST_CAPABILITIES],
  };
}

/** Hello and registrations; false when the session cannot go on. */
async function handshake(context: Context, session: ConformanceSession, registered: Registered, strict: boolean): Promise<boolean> {
  const { report, loaded } = context;
  const said = await session.waitFor(() => registered.hello !== undefined || session.exited, STARTUP_TIMEOUT_MS);
  if (!said || registered.hello === undefined) {
    if (strict) report.fail("hello", session.exited ? `exited before hello (${session.describeExit()})` : `no hello within ${STARTUP_TIMEOUT_MS} ms (zot's startup bound): zot kills it`);
    return false;
  }
  const hello = registered.hello;
  if (strict) {
    if (hello.name !== loaded.manifest.name) {
      report.fail("hello", `hello name "${hello.name}" does not match extension.json name "${loaded.manifest.name}": zot refuses to load it`);
    } else {
      report.pass("hello", `name "${hello.name}"${hello.version ? ` ${hello.version}` : ""}, capabilities: ${hello.capabilities.join(", ") || "(none)"}`);
    }
  }
  session.send(helloAck(context));
  await session.waitFor(() => registered.ready || session.exited, context.replyTimeoutMs);
  if (!strict) return !session.exited;
  if (registered.ready) report.pass("ready", "ready after its registrations");
  else if (session.exited) {
    report.fail("ready", `exited during registration (${session.describeExit()})`);
    return false;
  } else report.warn("ready", `no ready frame within ${context.replyTimeoutMs} ms: zot treats it as ready after 250 ms of quiet; send ready after the last registration`);
  checkRegistrations(context, registered);
  return true;
}

function checkRegistrations(context: Context, registered: Registered): void {
  const { report } = context;
  const problems: string[] = [];
  const toolNames = new Set<string>();
  registered.tools.forEach((tool, i) => {
    const reason = checkToolName(tool.name) ?? (checkToolSchema(tool.schema).ok ? undefined : (checkToolSchema(tool.schema) as { reason: string }).reason);
    if (reason !== undefined) problems.push(`tool "${tool.name}" is rejected by zot: ${reason}`);
    if (toolNames.has(tool.name)) problems.push(`tool "${tool.name}" registered twice (the first wins)`);
    if (i === MAX_TOOLS_PER_EXTENSION) problems.push(`more than ${MAX_TOOLS_PER_EXTENSION} tools: the rest are rejected`);
    toolNames.add(tool.name);
  });
  const commandNames = new Set<string>();
  registered.commands.forEach((command, i) => {
    const reason = checkCommandName(command.name);
    if (reason !== undefined) problems.push(`command "${command.name}" is rejected by zot: ${reason}`);
    if (commandNames.has(command.name.toLowerCase())) problems.push(`command "${command.name}" registered twice (names are case-insensitive; the first wins)`);
    if (i === MAX_COMMANDS_PER_EXTENSION) problems.push(`more than ${MAX_COMMANDS_PER_EXTENSION} commands: the rest are rejected`);
    commandNames.add(command.name.toLowerCase());
  });
  for (const problem of problems) report.fail("registration", problem);
  for (const subscribe of registered.subscribe) {
    for (const event of subscribe.events) if (!(LIFECYCLE_EVENTS as readonly string[]).includes(event)) report.warn("registration", `subscribes to unknown event "${event}" (never sent)`);
    for (const event of subscribe.intercept) if (!(INTERCEPTABLE_EVENTS as readonly string[]).includes(event)) report.warn("registration", `intercepts "${event}", which is not interceptable (never sent)`);
  }
  if (problems.length === 0) {
    report.pass("registration", `${registered.tools.length} tool(s), ${registered.commands.length} command(s), ${subscribedEvents(registered).length} event(s), ${interceptedEvents(registered).length} intercept(s)`);
  }
}

function subscribedEvents(registered: Registered): string[] {
  return [...new Set(registered.subscribe.flatMap((frame) => frame.events))].filter((event) => (LIFECYCLE_EVENTS as readonly string[]).includes(event));
}

function interceptedEvents(registered: Registered): InterceptableEvent[] {
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

async function callTool(context: Context, session: ConformanceSession, registered: Registered, tool: InboundOf<"register_tool">, check: string): Promise<boolean> {
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

async function invokeCommand(context: Context, session: ConformanceSession, registered: Registered, command: InboundOf<"register_command">): Promise<void> {
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

async function sendEvents(context: Context, session: ConformanceSession, registered: Registered): Promise<void> {
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

async function sendIntercepts(context: Context, session: ConformanceSession, registered: Registered): Promise<void> {
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

async function checkCancellation(context: Context, session: ConformanceSession, registered: Registered): Promise<void> {
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

async function checkShutdown(context: Context, session: ConformanceSession): Promise<void> {
  const { report } = context;
  if (session.exited) return report.fail("shutdown", `had already exited (${session.describeExit()})`);
  const started = Date.now();
  const acksBefore = session.count("shutdown_ack");
  session.send({ type: "shutdown" });
  const exited = await session.waitFor(() => session.exited, SHUTDOWN_GRACE_MS);
  const acked = session.count("shutdown_ack") > acksBefore;
  if (!exited) report.fail("shutdown", `still running ${SHUTDOWN_GRACE_MS} ms after shutdown${acked ? " (it sent shutdown_ack)" : " and sent no shutdown_ack"}: zot SIGTERMs it`);
  else if (!acked) report.fail("shutdown", `exited without sending shutdown_ack (${session.describeExit()})`);
  else report.pass("shutdown", `shutdown_ack, exited in ${Date.now() - started} ms (${session.describeExit()})`);
}

async function mainSession(context: Context): Promise<void> {
  const registered = emptyRegistered();
  const session = startSession(context, registered, "hello");
  if (session === undefined) return;
  try {
    if (!(await handshake(context, session, registered, true))) return;
    // Tools zot would reject (name, schema) are reported by the registration check, never called.
    const tools = registered.tools.filter((tool) => checkToolName(tool.name) === undefined && checkToolSchema(tool.schema).ok);
    if (tools.length === 0) context.report.skip("tools", "registers no tools");
    for (const tool of tools) {
      if (session.exited) break;
      if (tool.interactive === true) context.report.skip(`tool ${tool.name}`, "interactive: waits for the user (exercised by the cancellation check when tool_cancel is advertised)");
      else await callTool(context, session, registered, tool, `tool ${tool.name}`);
    }
    if (registered.commands.length === 0) context.report.skip("commands", "registers no commands");
    for (const command of registered.commands) if (!session.exited) await invokeCommand(context, session, registered, command);
    await sendEvents(context, session, registered);
    await sendIntercepts(context, session, registered);
    await checkCancellation(context, session, registered);
    await checkShutdown(context, session);
  } finally {
    await session.stop();
    context.counts = session.counts;
    context.report.stderrTail = session.stderr();
  }
}

async function eofSession(context: Context): Promise<void> {
  const registered = emptyRegistered();
  const session = startSession(context, registered, "eof");
  if (session === undefined) return;
  try {
    if (!(await handshake(context, session, registered, false))) {
      context.report.fail("eof", session.exited ? `second run exited before it was ready (${session.describeExit()})` : "second run did not say hello");
      return;
    }
    const started = Date.now();
    session.closeStdin();
    const exited = await session.waitFor(() => session.exited, SHUTDOWN_GRACE_MS);
    if (exited) context.report.pass("eof", `exited ${Date.now() - started} ms after stdin closed (${session.describeExit()})`);
    else context.report.fail("eof", `still running ${SHUTDOWN_GRACE_MS} ms after stdin closed: an extension must exit on EOF`);
  } finally {
    await session.stop();
  }
}
