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
 * The steps that call into the extension are in exercise.ts. Memory is bounded: frames are handled as they arrive and counted, not
 * kept (session.ts keeps the last 64), and at most MAX_FRAME_PROBLEMS frame
 * problems are listed (the rest are counted). Every process it starts is
 * ended before it returns.
 */
import { PROTOCOL_VERSION, HOST_CAPABILITIES, INTERCEPTABLE_EVENTS, LIFECYCLE_EVENTS, type InboundFrame, type InboundOf } from "../frames.ts";
import { loadManifest, type LoadedManifest } from "../manifest.ts";
import { resolveExec } from "../process.ts";
import { BUILTIN_SLASH_COMMANDS } from "../registry.ts";
import { BUILTIN_TOOL_NAMES } from "../../tools/types.ts";
import { checkCommandName, checkToolName, checkToolSchema, MAX_COMMANDS_PER_EXTENSION, MAX_TOOLS_PER_EXTENSION } from "../registration-rules.ts";
import { ConformanceReport } from "./report.ts";
import { ConformanceSession } from "./session.ts";
import { type Context, DEFAULT_REPLY_TIMEOUT_MS, type Registered, SHUTDOWN_GRACE_MS, STARTUP_TIMEOUT_MS } from "./context.ts";
import { callTool, checkCancellation, interceptedEvents, invokeCommand, sendEvents, sendIntercepts, subscribedEvents } from "./exercise.ts";

export { DEFAULT_REPLY_TIMEOUT_MS, INTERCEPT_TIMEOUT_MS, SHUTDOWN_GRACE_MS, STARTUP_TIMEOUT_MS } from "./context.ts";

/** Frame problems listed in the report; more are counted in the "frames" summary. */
const MAX_FRAME_PROBLEMS = 20;

export interface ConformanceOptions {
  readonly dir: string;
  readonly replyTimeoutMs?: number;
  readonly zotVersion: string;
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

/** The names reserved for zot's own tools: an extension tool of the same name is never registered (tools/registry.ts). */
const BUILT_IN_TOOLS: ReadonlySet<string> = new Set<string>(BUILTIN_TOOL_NAMES);
/** zot's own slash commands: an extension command of the same name (any case) is never registered (registry.ts). */
const BUILT_IN_COMMANDS: ReadonlySet<string> = new Set<string>(BUILTIN_SLASH_COMMANDS);

/**
 * The registrations zot would route to the extension: valid ones, the first
 * of each tool name and of each command name (case-insensitive), no tool
 * or command named like one of zot's own. The rest are shadowed, as in a real run
 * (extensions.md: "the first registration remains active").
 */
function routedRegistrations(registered: Registered): { readonly tools: Registered["tools"]; readonly commands: Registered["commands"] } {
  const toolNames = new Set<string>();
  const tools = registered.tools.filter((tool) => {
    const routed = !toolNames.has(tool.name) && !BUILT_IN_TOOLS.has(tool.name) && checkToolName(tool.name) === undefined && checkToolSchema(tool.schema).ok;
    toolNames.add(tool.name);
    return routed;
  });
  const commandNames = new Set<string>();
  const commands = registered.commands.filter((command) => {
    const key = command.name.toLowerCase();
    const routed = !commandNames.has(key) && !BUILT_IN_COMMANDS.has(key) && checkCommandName(command.name) === undefined;
    commandNames.add(key);
    return routed;
  });
  return { tools, commands };
}

function checkRegistrations(context: Context, registered: Registered): void {
  const { report } = context;
  const problems: string[] = [];
  /** Legal (the first registration wins) but almost always a mistake: reported, not failed. */
  const shadowed: string[] = [];
  const toolNames = new Set<string>();
  registered.tools.forEach((tool, i) => {
    const reason = checkToolName(tool.name) ?? (checkToolSchema(tool.schema).ok ? undefined : (checkToolSchema(tool.schema) as { reason: string }).reason);
    if (reason !== undefined) problems.push(`tool "${tool.name}" is rejected by zot: ${reason}`);
    if (toolNames.has(tool.name)) shadowed.push(`tool "${tool.name}" registered twice: the first wins, the later one is never called`);
    else if (BUILT_IN_TOOLS.has(tool.name)) shadowed.push(`tool "${tool.name}" is one of zot's own tools, which wins: it is never called`);
    if (i === MAX_TOOLS_PER_EXTENSION) problems.push(`more than ${MAX_TOOLS_PER_EXTENSION} tools: the rest are rejected`);
    toolNames.add(tool.name);
  });
  const commandNames = new Set<string>();
  registered.commands.forEach((command, i) => {
    const reason = checkCommandName(command.name);
    if (reason !== undefined) problems.push(`command "${command.name}" is rejected by zot: ${reason}`);
    if (commandNames.has(command.name.toLowerCase())) shadowed.push(`command "${command.name}" registered twice (names are case-insensitive): the first wins, this one is never invoked`);
    else if (BUILT_IN_COMMANDS.has(command.name.toLowerCase())) shadowed.push(`command "/${command.name}" is one of zot's own slash commands, which wins: it is never invoked`);
    if (i === MAX_COMMANDS_PER_EXTENSION) problems.push(`more than ${MAX_COMMANDS_PER_EXTENSION} commands: the rest are rejected`);
    commandNames.add(command.name.toLowerCase());
  });
  for (const problem of problems) report.fail("registration", problem);
  for (const note of shadowed) report.warn("registration", note);
  for (const subscribe of registered.subscribe) {
    for (const event of subscribe.events) if (!(LIFECYCLE_EVENTS as readonly string[]).includes(event)) report.warn("registration", `subscribes to unknown event "${event}" (never sent)`);
    for (const event of subscribe.intercept) if (!(INTERCEPTABLE_EVENTS as readonly string[]).includes(event)) report.warn("registration", `intercepts "${event}", which is not interceptable (never sent)`);
  }
  if (problems.length === 0) {
    report.pass("registration", `${registered.tools.length} tool(s), ${registered.commands.length} command(s), ${subscribedEvents(registered).length} event(s), ${interceptedEvents(registered).length} intercept(s)`);
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
    // Tools zot would reject or shadow are reported by the registration check, never called (nor commands).
    const { tools, commands } = routedRegistrations(registered);
    if (tools.length === 0) context.report.skip("tools", "registers no tools");
    for (const tool of tools) {
      if (session.exited) break;
      if (tool.interactive === true) context.report.skip(`tool ${tool.name}`, "interactive: waits for the user (exercised by the cancellation check when tool_cancel is advertised)");
      else await callTool(context, session, registered, tool, `tool ${tool.name}`);
    }
    if (commands.length === 0) context.report.skip("commands", "registers no commands");
    for (const command of commands) if (!session.exited) await invokeCommand(context, session, registered, command);
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
