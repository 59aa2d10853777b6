/**
 * One live extension: its subprocess, the hello handshake, registration until
 * `ready` (or auto-ready: AUTO_READY_IDLE_MS without a frame once it sent a
 * frame after hello; AUTO_READY_FIRST_FRAME_MS while it has sent none, so
 * an extension slow to start registering is not readied before its
 * registrations and subscriptions arrive), correlated requests (through
 * per-extension flow control with deadlines from dispatch: request.ts,
 * request-flow.ts), and teardown. Inbound frames are decoded by frames.ts;
 * invalid ones (and replies nobody waits for) are dropped while the
 * extension keeps running, counted in `drops` and logged at a bounded rate.
 * Its stderr is copied into its log until the pipe ends; both pipes are
 * read one chunk per event-loop turn, so a flooding extension cannot starve
 * anything else. Anything that is not a handshake frame or a correlated
 * reply goes to the owner via `onFrame`. When the extension exits, breaks
 * its pipe, overflows its queue or sends an oversized line, every request
 * fails at once (those still waiting in the host, unsent, and those in
 * flight) and the owner learns why through `onClosed`; closing before hello
 * fails start() at once. While zot's stdout is behind (common/stdout.ts),
 * the extension's stdout is not read on (until shutdown).
 */
import { stdoutRoom } from "../common/stdout.ts";
import { settledOrAborted } from "../common/abortable-wait.ts";
import { yieldToEventLoop } from "../common/yield.ts";
import type { LoadedManifest } from "./manifest.ts";
import { ExtensionLoadError, ExtensionRequestError, type LoadFailure, type RequestFailure } from "./errors.ts";
import {
  type InboundFrame, type OutboundFrame, PROTOCOL_VERSION,
  decodeInboundFrame, describeFrameProblem, type FrameProblem,
} from "./frames.ts";
import { type CloseReason, describeCloseReason } from "./close-reason.ts";
import { LineReader, MAX_FRAME_BYTES } from "../common/line-reader.ts";
import { DroppedFrames } from "./drop-log.ts";
import type { ExtensionLog } from "./log.ts";
import { OutboundQueue } from "./outbound-queue.ts";
import { type PendingRequest, type RequestChannel, type RequestOptions, sendRequest } from "./request.ts";
import { RequestFlow } from "./request-flow.ts";
import { type ExtensionSubprocess, resolveExec, signalProcessTree, spawnExtension } from "./process.ts";

export { type CloseReason, describeCloseReason } from "./close-reason.ts";

export const AUTO_READY_IDLE_MS = 250;
/** Auto-ready wait after hello_ack while the extension has sent no frame since hello (the original zot's 3 s ready wait). */
export const AUTO_READY_FIRST_FRAME_MS = 3_000;
/** Shortest wait for the last stderr lines after the process exited at shutdown. */
const STDERR_DRAIN_FLOOR_MS = 100;

export type ExtensionSource = "explicit" | "project" | "global";

export interface HostIdentity {
  readonly zotVersion: string;
  readonly provider: string;
  readonly model: string;
  /** The user's project directory. */
  readonly cwd: string;
  readonly capabilities: readonly string[];
}

export type ReadyState = "pending" | "ready" | "auto" | "timeout";

export interface ConnectionOwner {
  onFrame(connection: ExtensionConnection, frame: InboundFrame): void;
  onClosed(connection: ExtensionConnection, reason: CloseReason): void;
}

export class ExtensionConnection {
  readonly name: string;
  readonly dir: string;
  capabilities: ReadonlySet<string> = new Set();
  helloVersion: string | undefined;
  readyState: ReadyState = "pending";
  closedReason: CloseReason | undefined;
  private proc: ExtensionSubprocess | undefined;
  private queue: OutboundQueue | undefined;
  private flow: RequestFlow | undefined;
  private readonly pending = new Map<string, PendingRequest>();
  private helloSeen = false;
  private helloWaiter: { resolve(): void; reject(failure: LoadFailure): void } | undefined;
  private readyWaiters: (() => void)[] = [];
  private idleTimer: Timer | undefined;
  /** Aborted once the connection is stopping or closed: read loops stop waiting on zot's stdout. */
  private readonly stopping = new AbortController();
  private stderrCopied: Promise<void> | undefined;
  /** Every frame dropped from this extension: count, last reasons, bounded log lines. */
  readonly drops: DroppedFrames;

  constructor(
    readonly loaded: LoadedManifest,
    readonly source: ExtensionSource,
    readonly log: ExtensionLog,
    private readonly identity: HostIdentity,
    private readonly owner: ConnectionOwner,
  ) {
    this.name = loaded.manifest.name;
    this.dir = loaded.dir;
    this.drops = new DroppedFrames(log.limited("dropped frames"));
  }

  get exec(): string {
    return this.loaded.manifest.exec ?? "";
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  /** True once the extension said hello. */
  get handshaken(): boolean {
    return this.helloSeen;
  }

  /**
   * Spawns the process and completes the hello handshake before `deadline`
   * (epoch ms; `boundMs` is the startup bound it came from, for the error).
   * Rejects with an ExtensionLoadError; the process is then gone.
   */
  async start(deadline: number, boundMs?: number): Promise<void> {
    const manifest = this.loaded.manifest;
    this.log.startMarker(this.name, manifest.version);
    const resolved = resolveExec(this.exec, this.dir);
    if (!resolved.ok) throw this.loadError(resolved.failure);
    const spawned = spawnExtension(resolved.path, manifest.args ?? [], this.dir);
    if (!spawned.ok) throw this.loadError(spawned.failure);
    const proc = spawned.proc;
    this.proc = proc;
    this.stderrCopied = this.log.pipeFrom(proc.stderr);
    const queue = new OutboundQueue(proc.stdin, {
      onFailure: (failure) => this.close({ kind: "queue", failure }),
      onProgress: () => this.flow?.pump(),
    });
    this.queue = queue;
    this.flow = new RequestFlow({ hasRoom: () => queue.hasRoom() });
    const hello = new Promise<void>((resolve, reject) => {
      this.helloWaiter = { resolve, reject };
    });
    void this.readLoop(proc);
    const remainingMs = Math.max(0, deadline - Date.now());
    let timer: Timer | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject({ kind: "hello_timeout", timeoutMs: boundMs ?? remainingMs } satisfies LoadFailure), remainingMs);
    });
    try {
      await Promise.race([hello, timeout]);
    } catch (failure) {
      const error = this.loadError(failure as LoadFailure);
      this.close({ kind: "load_failed", error });
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolves once ready, auto-ready, or closed. */
  whenReady(): Promise<void> {
    if (this.readyState !== "pending" || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** Marks a still-pending extension as past the startup deadline. */
  markReadyTimeout(): void {
    if (this.readyState !== "pending" || this.closed) return;
    this.log.note("timed out waiting for ready frame; proceeding");
    this.setReady("timeout");
  }

  /** Queues a one-way frame. False when the extension is gone or its queue overflowed. */
  send(frame: OutboundFrame, onWritten?: (ok: boolean) => void): boolean {
    if (this.closed || !this.queue) {
      onWritten?.(false);
      return false;
    }
    return this.queue.enqueue(frame, onWritten);
  }

  /**
   * Sends a correlated request and waits for the reply frame of type `expect`
   * with the same id. The request first passes the extension's flow control
   * (request.ts, request-flow.ts): it may wait in the host, unsent, and its
   * reply deadline starts only when it is dispatched.
   */
  request(frame: OutboundFrame & { readonly id: string }, expect: InboundFrame["type"], options: RequestOptions = {}): Promise<InboundFrame> {
    if (this.closed || !this.flow || !this.queue) {
      return Promise.reject(new ExtensionRequestError(this.name, this.closedReason ? this.disconnectedFailure() : { kind: "not_delivered" }));
    }
    const channel: RequestChannel = {
      extension: this.name,
      flow: this.flow,
      queue: this.queue,
      pending: this.pending,
      unwritten: () => (this.closed ? this.disconnectedFailure() : { kind: "not_delivered" }),
    };
    return sendRequest(channel, frame, expect, options);
  }

  private disconnectedFailure(): RequestFailure {
    return { kind: "disconnected", detail: this.closedReason ? describeCloseReason(this.closedReason) : "not connected" };
  }

  /** Graceful stop: drain, `shutdown`, close stdin, wait until `deadline`, then SIGTERM, then SIGKILL. */
  async shutdown(deadline: number, killGraceMs = 1_000): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.stopping.abort();
    if (!this.closed && this.queue) {
      await this.queue.drain(Math.max(0, deadline - Date.now()));
      this.send({ type: "shutdown" });
      await this.queue.drain(Math.max(0, deadline - Date.now()));
      this.endStdin();
    }
    if (!(await this.waitForExit(Math.max(0, deadline - Date.now())))) {
      this.log.note("did not exit after shutdown; sending SIGTERM");
      signalProcessTree(proc, "SIGTERM");
      if (!(await this.waitForExit(killGraceMs))) {
        this.log.note("did not exit after SIGTERM; sending SIGKILL");
        signalProcessTree(proc, "SIGKILL");
        await proc.exited;
      }
    }
    this.close({ kind: "shutdown" });
    await this.stderrDrained(Math.max(STDERR_DRAIN_FLOOR_MS, deadline - Date.now()));
  }

  /** Waits (at most `ms`) until the child's stderr reached the log: a grandchild may hold the pipe open. */
  private async stderrDrained(ms: number): Promise<void> {
    let timer: Timer | undefined;
    await Promise.race([this.stderrCopied, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /** Immediate teardown (no shutdown frame): SIGKILL the process group. */
  kill(): void {
    if (this.proc) signalProcessTree(this.proc, "SIGKILL");
    if (!this.closed) this.close({ kind: "shutdown" });
  }

  /** Resolves once the process has exited (immediately if it never started). */
  exited(): Promise<unknown> {
    return this.proc ? this.proc.exited : Promise.resolve();
  }

  private async waitForExit(ms: number): Promise<boolean> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return true;
    let timer: Timer | undefined;
    const result = await Promise.race([
      proc.exited.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      }),
    ]);
    clearTimeout(timer);
    return result;
  }

  private endStdin(): void {
    try {
      void this.proc?.stdin.end();
    } catch {
      // pipe already closed
    }
  }

  private async readLoop(proc: ExtensionSubprocess): Promise<void> {
    const reader = new LineReader({
      line: (text) => this.onLine(text),
      overflow: (bytes) => {
        this.log.note(`frame exceeds ${MAX_FRAME_BYTES} bytes (${bytes}+ bytes without a newline); disconnecting`);
        this.close({ kind: "frame_too_large", bytes });
      },
    });
    try {
      for await (const chunk of proc.stdout) {
        reader.push(chunk);
        if (reader.overflowed || this.closed) break;
        // While zot's stdout is behind (RPC ext_notify…), the extension's output waits in its pipe.
        const room = stdoutRoom();
        if (room !== undefined) await settledOrAborted(room, this.stopping.signal);
        // A flooding extension must not starve timers and other I/O.
        else await yieldToEventLoop();
      }
      if (!reader.overflowed) reader.end();
    } catch (err) {
      this.log.note(`stdout read failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (this.closed) return;
    await proc.exited;
    const signal = proc.signalCode === null ? null : String(proc.signalCode);
    const reason: CloseReason = { kind: "exited", exitCode: proc.exitCode, signal };
    if (!this.helloSeen) {
      // Its last stderr line usually says why (a missing module): let the copy catch up first, briefly.
      await Promise.race([this.stderrCopied, Bun.sleep(STDERR_DRAIN_FLOOR_MS)]);
      const stderr = this.log.lastStderrLine();
      this.helloWaiter?.reject({ kind: "exited_before_hello", exitCode: proc.exitCode, signal, ...(stderr !== undefined ? { stderr } : {}) });
      return;
    }
    this.close(reason);
  }

  private onLine(line: string): void {
    if (this.closed || line.length === 0) return;
    const decoded = decodeInboundFrame(line);
    if (!this.helloSeen) {
      this.onFirstFrame(decoded, line);
      return;
    }
    if (!decoded.ok) {
      this.drops.record(describeFrameProblem(decoded.problem));
      this.failMalformedReply(decoded.problem);
      return;
    }
    this.dispatch(decoded.frame);
  }

  /** A reply its schema rejects still names its request: that request fails now instead of at its deadline. */
  private failMalformedReply(problem: FrameProblem): void {
    if (problem.kind !== "invalid" || problem.id === undefined) return;
    const pending = this.pending.get(problem.id);
    if (pending === undefined || pending.expect !== problem.frameType) return;
    this.flow?.replied();
    pending.reject(new ExtensionRequestError(this.name, { kind: "invalid_reply", detail: `${problem.frameType}: ${problem.detail}` }));
  }

  private onFirstFrame(decoded: ReturnType<typeof decodeInboundFrame>, line: string): void {
    if (!decoded.ok || decoded.frame.type !== "hello") {
      const got = decoded.ok ? `"${decoded.frame.type}"` : describeFrameProblem(decoded.problem);
      const preview = line.length > 200 ? `${line.slice(0, 200)}…` : line;
      this.helloWaiter?.reject({ kind: "bad_hello", detail: `first frame must be hello (got ${got}): ${preview}` });
      return;
    }
    const hello = decoded.frame;
    if (hello.name !== this.name) {
      this.helloWaiter?.reject({ kind: "name_mismatch", helloName: hello.name });
      return;
    }
    this.helloSeen = true;
    this.helloVersion = hello.version;
    this.capabilities = new Set(hello.capabilities);
    this.send({
      type: "hello_ack",
      protocol_version: PROTOCOL_VERSION,
      zot_version: this.identity.zotVersion,
      provider: this.identity.provider,
      model: this.identity.model,
      cwd: this.identity.cwd,
      extension_dir: this.dir,
      data_dir: this.dir,
      capabilities: this.identity.capabilities,
    });
    this.armIdleTimer(AUTO_READY_FIRST_FRAME_MS);
    this.helloWaiter?.resolve();
  }

  private dispatch(frame: InboundFrame): void {
    if (this.readyState === "pending") this.armIdleTimer(AUTO_READY_IDLE_MS);
    switch (frame.type) {
      case "hello":
        this.drops.record("duplicate hello frame ignored");
        return;
      case "ready":
        if (this.readyState === "pending") this.setReady("ready");
        return;
      case "shutdown_ack":
        return;
      case "command_response":
      case "tool_result":
      case "event_intercept_response": {
        const pending = this.pending.get(frame.id);
        if (!pending || pending.expect !== frame.type) {
          this.drops.record(`${frame.type} for unknown or expired id "${frame.id}" ignored`);
          return;
        }
        this.flow?.replied();
        pending.resolve(frame);
        return;
      }
      default:
        this.owner.onFrame(this, frame);
    }
  }

  private armIdleTimer(idleMs: number): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.readyState !== "pending" || this.closed) return;
      this.log.note(`no ready frame; auto-readying after ${idleMs} ms idle`);
      this.setReady("auto");
    }, idleMs);
  }

  private setReady(state: Exclude<ReadyState, "pending">): void {
    clearTimeout(this.idleTimer);
    this.readyState = state;
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const waiter of waiters) waiter();
  }

  private close(reason: CloseReason): void {
    if (this.closedReason) return;
    this.closedReason = reason;
    this.stopping.abort();
    clearTimeout(this.idleTimer);
    this.drops.finish();
    // Closed before hello (zot stopping): start() fails now instead of at the deadline.
    if (!this.helloSeen) this.helloWaiter?.reject({ kind: "disconnected", detail: describeCloseReason(reason) });
    if (reason.kind !== "shutdown" && reason.kind !== "load_failed") this.log.note(`disconnected: ${describeCloseReason(reason)}`);
    this.queue?.close();
    const detail = describeCloseReason(reason);
    // Requests still waiting in the host fail at once, unsent; then the ones in flight.
    this.flow?.close({ kind: "disconnected", detail });
    for (const pending of [...this.pending.values()]) pending.reject(new ExtensionRequestError(this.name, { kind: "disconnected", detail }));
    this.pending.clear();
    if (this.proc && reason.kind !== "shutdown") signalProcessTree(this.proc, "SIGKILL");
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const waiter of waiters) waiter();
    this.owner.onClosed(this, reason);
  }

  private loadError(failure: LoadFailure): ExtensionLoadError {
    return new ExtensionLoadError(
      { name: this.name, dir: this.dir, exec: this.exec, language: this.loaded.manifest.language, logPath: this.log.path },
      failure,
    );
  }
}
