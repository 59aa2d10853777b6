/**
 * One extension process under `zot ext test`: spawned exactly as zot spawns
 * it (process.ts: exec resolution, cwd = the extension directory, own
 * process group), stdout split into frames (4 MiB per line, as the host) and
 * every frame checked against the inbound valibot schemas (frames.ts). The
 * session routes replies (tool_result, command_response,
 * event_intercept_response) to the request that is waiting for that id and
 * reports every protocol violation it sees through `problem`: frames that
 * fail their schema, frames before hello, an answer to an id nothing is
 * waiting for (or a second answer), an answer of the wrong type. Waits are
 * bounded; nothing here throws for what the extension does. `stop()` ends
 * the process group (SIGTERM, then SIGKILL) and is safe to call twice.
 * Memory is bounded however much the extension sends: the session keeps a
 * count per frame type and the last RECENT_FRAMES frames, never all of them
 * (hooks.frame sees each frame once as it arrives).
 */
import { decodeInboundFrame, describeFrameProblem, type InboundFrame, type OutboundFrame } from "../frames.ts";
import { LineReader, MAX_FRAME_BYTES } from "../../common/line-reader.ts";
import { type ExtensionSubprocess, signalProcessTree, spawnExtension } from "../process.ts";

const STDERR_TAIL_BYTES = 4096;
/** How many of the latest non-reply frames the session keeps. */
export const RECENT_FRAMES = 64;

export type Reply = { readonly kind: "reply"; readonly frame: InboundFrame } | { readonly kind: "timeout" } | { readonly kind: "exited" };

interface Pending {
  readonly replyType: InboundFrame["type"];
  readonly label: string;
  resolve(reply: Reply): void;
}

export interface SessionHooks {
  /** A protocol violation (fails the run). */
  problem(detail: string): void;
  /** Every valid frame that is not a routed reply, in order. */
  frame(frame: InboundFrame): void;
}

export class ConformanceSession {
  /** The last RECENT_FRAMES valid frames that were not routed replies, oldest first. */
  readonly recent: InboundFrame[] = [];
  /** Valid frames received, by type (routed replies included). */
  readonly counts = new Map<InboundFrame["type"], number>();
  /** Every non-empty stdout line, valid or not. */
  framesReceived = 0;
  private readonly pending = new Map<string, Pending>();
  /** Ids whose wait ended (timeout): a late reply is allowed, as the host ignores it. */
  private readonly abandoned = new Set<string>();
  private readonly answered = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private stderrTail = "";
  private helloSeen = false;
  exitCode: number | null = null;
  exitSignal: string | null = null;
  exited = false;
  readonly done: Promise<void>;

  private constructor(
    private readonly proc: ExtensionSubprocess,
    private readonly hooks: SessionHooks,
  ) {
    this.done = Promise.all([this.pumpStdout(), this.pumpStderr(), proc.exited]).then(() => {
      this.exited = true;
      this.exitCode = proc.exitCode;
      this.exitSignal = proc.signalCode === null ? null : String(proc.signalCode);
      for (const [, waiting] of this.pending) waiting.resolve({ kind: "exited" });
      this.pending.clear();
      this.notify();
    });
  }

  static start(execPath: string, args: readonly string[], dir: string, hooks: SessionHooks): ConformanceSession | string {
    const spawned = spawnExtension(execPath, args, dir);
    if (!spawned.ok) return "detail" in spawned.failure ? spawned.failure.detail : spawned.failure.kind;
    return new ConformanceSession(spawned.proc, hooks);
  }

  get pid(): number {
    return this.proc.pid;
  }

  stderr(): string {
    return this.stderrTail;
  }

  describeExit(): string {
    return this.exitSignal !== null ? `killed by ${this.exitSignal}` : `exit code ${this.exitCode}`;
  }

  /** How many valid frames of `type` arrived so far. */
  count(type: InboundFrame["type"]): number {
    return this.counts.get(type) ?? 0;
  }

  send(frame: OutboundFrame): boolean {
    return this.sendAll([frame]);
  }

  /** Sends the frames in one write (a burst, as a fast typist's keys arrive). */
  sendAll(frames: readonly OutboundFrame[]): boolean {
    if (this.exited) return false;
    try {
      this.proc.stdin.write(frames.map((frame) => `${JSON.stringify(frame)}\n`).join(""));
      void this.proc.stdin.flush();
      return true;
    } catch {
      return false;
    }
  }

  closeStdin(): void {
    try {
      void this.proc.stdin.end();
    } catch {
      // already closed
    }
  }

  /** Sends a request and waits (at most `timeoutMs`) for the reply of `replyType` with its id. */
  request(frame: OutboundFrame & { readonly id: string }, replyType: InboundFrame["type"], timeoutMs: number, label: string): Promise<Reply> {
    if (this.exited) return Promise.resolve({ kind: "exited" });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(frame.id);
        this.abandoned.add(frame.id);
        resolve({ kind: "timeout" });
      }, timeoutMs);
      this.pending.set(frame.id, {
        replyType,
        label,
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
      });
      if (!this.send(frame)) {
        this.pending.delete(frame.id);
        clearTimeout(timer);
        resolve({ kind: "exited" });
      }
    });
  }

  /** Resolves true when `predicate` holds (checked on every frame and on exit), false after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
    if (predicate()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = (): void => {
        if (!predicate()) return;
        finish(true);
      };
      const finish = (value: boolean): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
        resolve(value);
      };
      const timer = setTimeout(() => finish(predicate()), timeoutMs);
      this.listeners.add(check);
    });
  }

  /** Waits until no frame arrived for `quietMs` (at most `maxMs`). */
  async settle(quietMs: number, maxMs: number): Promise<void> {
    const deadline = Date.now() + maxMs;
    let seen = -1;
    while (!this.exited && seen !== this.framesReceived && Date.now() < deadline) {
      seen = this.framesReceived;
      await Bun.sleep(quietMs);
    }
  }

  async stop(): Promise<void> {
    if (!this.exited) {
      signalProcessTree(this.proc, "SIGTERM");
      const timer = setTimeout(() => signalProcessTree(this.proc, "SIGKILL"), 500);
      await this.done;
      clearTimeout(timer);
    }
    await this.done;
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private onLine(line: string): void {
    if (line.trim() === "") return;
    this.framesReceived++;
    const index = this.framesReceived;
    const decoded = decodeInboundFrame(line);
    if (!decoded.ok) {
      const preview = line.length > 160 ? `${line.slice(0, 160)}…` : line;
      this.hooks.problem(`frame #${index} fails its schema: ${describeFrameProblem(decoded.problem)} (${preview})`);
      this.notify();
      return;
    }
    const frame = decoded.frame;
    this.counts.set(frame.type, this.count(frame.type) + 1);
    if (!this.helloSeen && frame.type !== "hello") {
      this.hooks.problem(`frame #${index} ("${frame.type}") came before hello: hello must be the first frame`);
    }
    if (frame.type === "hello") this.helloSeen = true;
    if ((frame.type === "tool_result" || frame.type === "command_response" || frame.type === "event_intercept_response") && this.route(frame, index)) {
      this.notify();
      return;
    }
    this.recent.push(frame);
    if (this.recent.length > RECENT_FRAMES) this.recent.shift();
    this.hooks.frame(frame);
    this.notify();
  }

  /** True when the reply was consumed (routed or reported). */
  private route(frame: InboundFrame & { readonly id: string }, index: number): boolean {
    const waiting = this.pending.get(frame.id);
    if (waiting === undefined) {
      if (this.abandoned.has(frame.id)) return true;
      const again = this.answered.has(frame.id) ? "a second answer to" : "an answer to unknown";
      this.hooks.problem(`frame #${index}: ${frame.type} is ${again} id "${frame.id}" (no request with that id is waiting)`);
      return true;
    }
    if (waiting.replyType !== frame.type) {
      this.hooks.problem(`frame #${index}: ${frame.type} answers ${waiting.label} (id "${frame.id}"), which expects ${waiting.replyType}`);
      return true;
    }
    this.pending.delete(frame.id);
    this.answered.add(frame.id);
    waiting.resolve({ kind: "reply", frame });
    return true;
  }

  private async pumpStdout(): Promise<void> {
    const reader = new LineReader({
      line: (text) => this.onLine(text),
      overflow: (bytes) => this.hooks.problem(`a stdout line passed the ${MAX_FRAME_BYTES}-byte frame limit (${bytes} bytes): zot disconnects the extension`),
    });
    try {
      for await (const chunk of this.proc.stdout) reader.push(chunk);
      reader.end();
    } catch {
      // stream ended
    }
  }

  private async pumpStderr(): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of this.proc.stderr) {
        this.stderrTail = (this.stderrTail + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_BYTES);
      }
    } catch {
      // stream ended
    }
  }
}
