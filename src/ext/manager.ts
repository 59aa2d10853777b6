/**
 * The extension manager: discovers extensions, spawns and handshakes them all
 * concurrently under one startup-wide deadline (15 s by default, so a cold
 * `go run .` or `npx` start fits; N extensions start in about the time of
 * the slowest, and a silent one is given up on at the deadline), keeps the
 * registry of their commands and tools, routes their runtime frames to the
 * host UI, isolates crashes (pending requests fail at once, their
 * registrations disappear, the failure is reported), and stops them all
 * gracefully (shutdown, 2 s, SIGTERM, SIGKILL). Reload = stop all,
 * re-discover with the same options (remembered --ext paths), respawn.
 *
 * Nothing here waits for startup on anyone's behalf: start() resolves at the
 * end of startup, but each extension joins as soon as it can (join-order.ts:
 * subscriptions once it finished starting, when `joinListeners` hear of it;
 * registrations once it and every extension before it in load order
 * finished). shutdown() during startup stops the extensions still starting
 * at once (one that has not said hello is killed).
 * Project trust: with a `projectGate`, start() asks it about the full
 * discovery before spawning anything; "no" means discoverFor(false).
 */
import { extensionLogPath, type ZotPaths } from "../common/home.ts";
import { ZOT_SEMVER } from "../common/version.ts";
import type { Tool } from "../tools/types.ts";
import {
  type CloseReason, ExtensionConnection, type HostIdentity, describeCloseReason,
} from "./connection.ts";
import { type DiscoveryReport, discoverExtensions, projectEntries } from "./discovery.ts";
import { ExtensionLoadError, ExtensionRequestError } from "./errors.ts";
import { type CommandResponseFrame, HOST_CAPABILITIES, type InboundFrame, type InboundOf } from "./frames.ts";
import { type ExtensionUI, normaliseNoteLevel } from "./host.ts";
import { nextRequestId } from "./ids.ts";
import { HostCallTracker } from "./host-calls.ts";
import { InteractiveCalls } from "./interactive-calls.ts";
import { JoinOrder } from "./join-order.ts";
import { ExtensionLog } from "./log.ts";
import { ExtensionRegistry, type RegisteredCommand, type RegisteredTool, describeRefusal } from "./registry.ts";
import { flushAllLogs } from "../common/log-file.ts";
import { type ToolCallOptions, extensionTool } from "./tool-adapter.ts";
import { ZotError } from "../common/errors.ts";

export const DEFAULT_READY_TIMEOUT_MS = 15_000;
export const SHUTDOWN_GRACE_MS = 2_000;
export const COMMAND_REPLY_TIMEOUT_MS = 30_000;

export interface ExtensionManagerOptions {
  readonly paths: ZotPaths;
  /** The user's project directory. */
  readonly cwd: string;
  readonly provider: string;
  readonly model: string;
  readonly explicit: readonly string[];
  readonly noDiscovery: boolean;
  readonly ui: ExtensionUI;
  /** Startup-wide deadline for hello + ready (default: extensionReadyTimeout()). */
  readonly readyTimeoutMs?: number;
  readonly shutdownGraceMs?: number;
  /** After SIGTERM, how long an extension has before SIGKILL (default 1 s). */
  readonly killGraceMs?: number;
  /** Tool names of the agent's built-ins; extensions cannot take them. */
  readonly builtinTools?: readonly string[];
  /** Whether the project-local extensions of this discovery may start (src/modes/project-trust.ts); absent: they may. */
  readonly projectGate?: (report: DiscoveryReport) => Promise<boolean>;
}

export interface Subscription {
  readonly events: Set<string>;
  readonly intercept: Set<string>;
  onTimeout: "allow" | "deny";
}

export interface ExtensionFailure {
  readonly extension: string;
  readonly message: string;
}

export interface ReloadStats {
  readonly stopped: number;
  readonly loaded: number;
  readonly ready: number;
  readonly errors: readonly ZotError[];
}

export interface InvokedCommand {
  readonly command: RegisteredCommand;
  readonly response: CommandResponseFrame;
}

/** The startup bound: env ZOT_EXT_READY_TIMEOUT_MS, else config.json's ext_ready_timeout_ms, else 15 s. */
export function extensionReadyTimeout(configured?: number): number {
  const fromEnv = Number(process.env.ZOT_EXT_READY_TIMEOUT_MS);
  if (Number.isFinite(fromEnv) && fromEnv > 0) return fromEnv;
  if (configured !== undefined && Number.isFinite(configured) && configured > 0) return configured;
  return DEFAULT_READY_TIMEOUT_MS;
}

export class ExtensionManager {
  readonly registry: ExtensionRegistry;
  discovery: DiscoveryReport | undefined;
  loadErrors: ExtensionLoadError[] = [];
  /** Extensions that crashed or were disconnected after loading. */
  readonly failures: ExtensionFailure[] = [];
  readonly subscriptions = new Map<string, Subscription>();
  private readonly live = new Map<string, ExtensionConnection>();
  private stopping = false;
  private sequence = 0;
  /** Tool calls the host is waiting on (call_tool parent chains). */
  readonly hostCalls = new HostCallTracker();
  /** Interactive tool calls waiting for the user (an interactive host ties panels to them). */
  readonly interactiveCalls = new InteractiveCalls();
  /** Told whenever a loaded extension stops (crash, disconnect, shutdown). */
  readonly closeListeners = new Set<(extension: string) => void>();
  /** Told about tools registered after startup (late registrations join a running agent). */
  readonly toolListeners = new Set<(tool: RegisteredTool) => void>();
  /** Told when an extension finished starting (its subscriptions now apply; its registrations may still wait for earlier ones). */
  readonly joinListeners = new Set<(connection: ExtensionConnection) => void>();
  /** Handles `call_tool` / `call_tool_cancel` frames once an agent is attached (bridge). */
  callToolHandler: ((connection: ExtensionConnection, frame: InboundFrame) => void) | undefined;
  private discovering: Promise<DiscoveryReport> | undefined;
  private discoveringWithoutProject: Promise<DiscoveryReport> | undefined;
  /** Answers a pending projectGate "no" (shutdown while the question is open). */
  private unblockGate: (() => void) | undefined;
  /** How long each extension took to finish starting (ready, auto-ready or the deadline), in ms. */
  readonly startupTimes = new Map<string, number>();
  /** The running startup's held frames and join order (join-order.ts). */
  private joining: JoinOrder | undefined;
  private startup: Promise<void> | undefined;
  /** Bumped by shutdown(), so a start() still discovering does not spawn afterwards. */
  private epoch = 0;

  constructor(private readonly options: ExtensionManagerOptions) {
    this.registry = new ExtensionRegistry(undefined, options.builtinTools);
  }

  /** Connections in load order (explicit first, then discovered). */
  connections(): ExtensionConnection[] {
    return [...this.live.values()];
  }

  connection(name: string): ExtensionConnection | undefined {
    return this.live.get(name);
  }

  /** Extensions still starting (spawned, not yet ready, failed or past the deadline), in load order. */
  starting(): ExtensionConnection[] {
    return this.joining?.starting() ?? [];
  }

  /** A host-side warning about one extension, shown by the mode's UI and logged. */
  hostWarning(extension: string, message: string): void {
    this.live.get(extension)?.log.note(`warning: ${message}`);
    this.options.ui.hostWarning?.(extension, message);
  }

  /** Next lifecycle notification sequence number (manager lifetime, strictly increasing). */
  nextSequence(): number {
    this.sequence += 1;
    return this.sequence;
  }

  /**
   * Reads the manifests (no spawning). Memoised until the next reload, so a
   * caller can start skill discovery from the report while start() spawns.
   */
  discover(): Promise<DiscoveryReport> {
    this.discovering ??= discoverExtensions({
      cwd: this.options.cwd,
      paths: this.options.paths,
      explicit: this.options.explicit,
      noDiscovery: this.options.noDiscovery,
    });
    return this.discovering;
  }

  /** discover() when the project is allowed, else the discovery without the project scope (memoised alike). */
  discoverFor(projectAllowed: boolean): Promise<DiscoveryReport> {
    if (projectAllowed) return this.discover();
    const { cwd, paths, explicit, noDiscovery } = this.options;
    this.discoveringWithoutProject ??= discoverExtensions({ cwd, paths, explicit, noDiscovery, skipProject: true });
    return this.discoveringWithoutProject;
  }

  /** Discovers, spawns and handshakes every extension; resolves once all are ready or the deadline passed. */
  start(): Promise<void> {
    this.stopping = false;
    const startup = this.startAll();
    this.startup = startup;
    return startup;
  }

  private async startAll(): Promise<void> {
    const epoch = this.epoch;
    const full = await this.discover();
    if (epoch !== this.epoch) return;
    const gate = this.options.projectGate;
    const gated = gate !== undefined && projectEntries(full, this.options.cwd).length > 0;
    // shutdown() does not wait for an unanswered question (the trust dialog): it answers "no".
    const allowed = gated ? await Promise.race([gate(full), new Promise<boolean>((resolve) => (this.unblockGate = () => resolve(false)))]) : true;
    this.unblockGate = undefined;
    const report = allowed ? full : await this.discoverFor(false);
    if (epoch !== this.epoch) return;
    this.discovery = report;
    for (const shadowed of report.shadowed) {
      const log = new ExtensionLog(extensionLogPath(this.options.paths, shadowed.loaded.manifest.name));
      log.note(`${shadowed.loaded.dir} not loaded: the name "${shadowed.loaded.manifest.name}" is already taken by ${shadowed.heldBy}`);
    }
    const boundMs = this.options.readyTimeoutMs ?? extensionReadyTimeout();
    const deadline = Date.now() + boundMs;
    const identity: HostIdentity = {
      zotVersion: ZOT_SEMVER,
      provider: this.options.provider,
      model: this.options.model,
      cwd: this.options.cwd,
      capabilities: HOST_CAPABILITIES,
    };
    // Insert in load order before any awaits so connections() keeps that order.
    const starting = report.load.map((found) => {
      const log = new ExtensionLog(extensionLogPath(this.options.paths, found.loaded.manifest.name));
      const connection = new ExtensionConnection(found.loaded, found.source, log, identity, this);
      this.live.set(connection.name, connection);
      this.subscriptions.set(connection.name, { events: new Set(), intercept: new Set(), onTimeout: found.loaded.manifest.on_timeout ?? "allow" });
      return connection;
    });
    const joining = new JoinOrder(starting, {
      isLive: (connection) => this.live.get(connection.name) === connection && !connection.closed,
      applySubscription: (connection, frame) => this.applySubscription(connection.name, frame),
      applyRegistration: (connection, frame) => this.applyRegistration(connection, frame),
      joined: (connection) => {
        for (const listener of this.joinListeners) listener(connection);
      },
    });
    this.joining = joining;
    try {
      await Promise.all(starting.map((connection) => this.startOne(connection, deadline, boundMs).finally(() => joining.finish(connection))));
    } finally {
      if (this.joining === joining) this.joining = undefined;
    }
  }

  private async startOne(connection: ExtensionConnection, deadline: number, boundMs: number): Promise<void> {
    const began = Date.now();
    try {
      await connection.start(deadline, boundMs);
    } catch (err) {
      this.live.delete(connection.name);
      this.subscriptions.delete(connection.name);
      if (err instanceof ExtensionLoadError) {
        connection.log.note(err.message);
        // Stopped while starting (zot is exiting or reloading): not a load error.
        if (!this.stopping) this.loadErrors.push(err);
        return;
      }
      throw err;
    }
    let timer: Timer | undefined;
    await Promise.race([
      connection.whenReady(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      }),
    ]);
    clearTimeout(timer);
    connection.markReadyTimeout();
    this.startupTimes.set(connection.name, Date.now() - began);
  }

  onFrame(connection: ExtensionConnection, frame: InboundFrame): void {
    const name = connection.name;
    const ui = this.options.ui;
    switch (frame.type) {
      case "register_command":
      case "register_tool":
        if (!this.joining?.hold(name, frame)) this.applyRegistration(connection, frame);
        return;
      case "subscribe":
        // Events and interception start once the extension finished starting.
        if (!this.joining?.hold(name, frame)) this.applySubscription(name, frame);
        return;
      case "notify":
        ui.notify(name, normaliseNoteLevel(frame.level), frame.message);
        return;
      case "clear_notes":
        ui.clearNotes(name);
        return;
      case "submit":
        if (frame.text.trim()) ui.submit(name, frame.text);
        return;
      case "panel_render":
        ui.panelRender(name, frame);
        return;
      case "panel_close":
        ui.panelClose(name, frame.panel_id);
        return;
      case "call_tool":
      case "call_tool_cancel":
        if (this.callToolHandler) this.callToolHandler(connection, frame);
        else if (frame.type === "call_tool") {
          connection.send({
            type: "tool_result", id: frame.id, name: frame.name, is_error: true,
            content: [{ type: "text", text: "call_tool is not available: no agent is running" }],
          });
        }
        return;
      default:
        connection.log.note(`frame "${frame.type}" ignored`);
    }
  }

  private applySubscription(name: string, frame: InboundOf<"subscribe">): void {
    const subscription = this.subscriptions.get(name);
    if (!subscription) return;
    for (const event of frame.events) subscription.events.add(event);
    for (const event of frame.intercept) subscription.intercept.add(event);
    if (frame.on_timeout) subscription.onTimeout = frame.on_timeout;
  }

  /** Validates and records one registration; a refusal is logged (rate-limited) and the extension carries on. */
  private applyRegistration(connection: ExtensionConnection, frame: InboundFrame): void {
    if (frame.type !== "register_command" && frame.type !== "register_tool") return;
    const result = frame.type === "register_command"
      ? this.registry.registerCommand(connection.name, frame)
      : this.registry.registerTool(connection.name, frame);
    if (!result.ok) {
      connection.log.limited("refused registrations").note(describeRefusal(result));
      return;
    }
    const registered = frame.type === "register_tool" ? this.registry.tool(frame.name) : undefined;
    if (registered) for (const listener of this.toolListeners) listener(registered);
  }

  onClosed(connection: ExtensionConnection, reason: CloseReason): void {
    if (this.live.get(connection.name) !== connection) return;
    this.registry.unregisterExtension(connection.name);
    for (const listener of this.closeListeners) listener(connection.name);
    if (reason.kind === "shutdown" || reason.kind === "load_failed" || this.stopping) return;
    const message = `${describeCloseReason(reason)}; its commands and tools are unavailable (log: ${connection.log.path})`;
    this.failures.push({ extension: connection.name, message });
    this.options.ui.extensionFailed(connection.name, message);
  }

  /** Runs a registered slash command. Rejects with ZotError when unknown or when the extension fails. */
  async invokeCommand(name: string, args: string, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<InvokedCommand> {
    const command = this.registry.command(name);
    if (!command) throw new ZotError("ext.command.unknown", `unknown command /${name}`, { command: name });
    const connection = this.live.get(command.extension);
    if (!connection) throw new ZotError("ext.command.gone", `extension ${command.extension} is not running`, { extension: command.extension });
    const trimmed = args.trim();
    const id = nextRequestId("cmd");
    try {
      const response = (await connection.request(
        // `args` is always sent ("" when nothing follows the name), as extensions.md shows it and `zot ext test` sends it.
        { type: "command_invoked", id, name: command.name, args: trimmed },
        "command_response",
        { timeoutMs: options.timeoutMs ?? COMMAND_REPLY_TIMEOUT_MS, signal: options.signal },
      )) as CommandResponseFrame;
      return { command, response };
    } catch (err) {
      if (err instanceof ExtensionRequestError) {
        throw new ZotError("ext.command.failed", `extension /${command.name}: ${err.message}`, { extension: command.extension, command: command.name });
      }
      throw err;
    }
  }

  /** Agent tools for every registered extension tool (deferred ones carry `deferred`). */
  tools(defaults: Pick<ToolCallOptions, "allowInteractive" | "timeoutMs"> = {}): Tool[] {
    return this.registry.tools().map((tool) => this.toolFor(tool, defaults));
  }

  /** The agent Tool that calls one registered extension tool. */
  toolFor(tool: RegisteredTool, defaults: Pick<ToolCallOptions, "allowInteractive" | "timeoutMs"> = {}): Tool {
    return extensionTool(tool, (extension) => this.live.get(extension), { ...defaults, tracker: this.hostCalls, interactive: this.interactiveCalls });
  }

  /** Graceful stop of every extension within one shared grace period. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    this.epoch += 1;
    this.unblockGate?.();
    const deadline = Date.now() + (this.options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS);
    const connections = [...this.live.values()];
    await Promise.all(
      connections.map((connection) => {
        // Nothing to say to an extension that has not said hello yet.
        if (!connection.handshaken) {
          connection.kill();
          return connection.exited();
        }
        return connection.shutdown(deadline, this.options.killGraceMs);
      }),
    );
    await this.startup?.catch(() => undefined);
    this.live.clear();
    // Rate-limit summaries and queued lines reach the disk before zot exits.
    await Promise.all(connections.map((connection) => connection.log.flush()));
    await flushAllLogs();
  }

  /** Stops everything, re-reads manifests (same explicit paths and --no-ext), respawns. */
  async reload(): Promise<ReloadStats> {
    const stopped = this.live.size;
    await this.shutdown();
    this.registry.clear();
    this.subscriptions.clear();
    this.loadErrors = [];
    this.failures.length = 0;
    this.startupTimes.clear();
    this.discovering = undefined;
    this.discoveringWithoutProject = undefined;
    await this.start();
    const connections = this.connections();
    return {
      stopped,
      loaded: connections.length,
      ready: connections.filter((c) => c.readyState === "ready" || c.readyState === "auto").length,
      errors: [...(this.discovery?.manifestErrors ?? []), ...this.loadErrors],
    };
  }
}
