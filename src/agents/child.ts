/**
 * One swarm child: a `zot swarm-child` process of the same binary (the
 * compiled zot itself; from source, bun + the entry script), in its own
 * process group (tracked by common/process-tree.ts, so it never outlives
 * zot). spawnSwarmChild() starts one (its stderr drained from the start);
 * startChild() runs a task in a given one (a warm child, warm.ts) or a new
 * one. The task goes in as a stdin line; stdout is read line by line
 * (protocol.ts) and each child event is handed to `onEvent`.
 *
 * `result` always resolves with a terminal status, never rejects, as soon as
 * it is known: the child's cleanup and exit go on afterwards (`exited`
 * resolves once it is gone; the supervisor waits for it at close).
 *  - the child's `result` line (completed / failed / cancelled) when it sent one;
 *  - `cancelled` when `signal` aborted, `timed_out` when `timeoutMs` passed:
 *    the child is sent `cancel` and its stdin closed; if it has not exited
 *    CANCEL_GRACE_MS later its group gets SIGTERM, then SIGKILL after
 *    KILL_GRACE_MS;
 *  - `failed` when it exited without a result (crash, kill), broke the
 *    protocol (non-JSON, unknown message, a line over MAX_SWARM_LINE_BYTES),
 *    or could not be spawned. The error names the exit code / signal and the
 *    tail of its stderr (at most STDERR_TAIL_BYTES).
 * A child that sent its result but does not exit is ended the same way;
 * what it writes after its result is ignored.
 */
import type { Subprocess } from "bun";
import { errorMessage } from "../common/errors.ts";
import { ownGroupSpawnOptions } from "../common/platform.ts";
import { signalGroup, trackSpawned } from "../common/process-tree.ts";
import { LineReader } from "../common/line-reader.ts";
import { MAX_SWARM_LINE_BYTES, encodeLine, parseChildLine, type SubagentStatus, type SwarmTask, type SwarmUsage, usageOf } from "./protocol.ts";

export const CANCEL_GRACE_MS = 2_000;
export const KILL_GRACE_MS = 1_000;
export const STDERR_TAIL_BYTES = 2_048;

export interface ChildResult {
  readonly status: SubagentStatus;
  readonly text: string;
  readonly error?: string;
  readonly usage: SwarmUsage;
  readonly sessionId?: string;
  readonly sessionPath?: string;
}

export interface ChildRunOptions {
  readonly task: SwarmTask;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly onEvent: (event: Readonly<Record<string, unknown>>) => void;
  /** Told once the child finished its setup. */
  readonly onStarted?: (sessionId: string, sessionPath: string | undefined) => void;
  /** Default: swarmChildCommand(). */
  readonly command?: readonly string[];
  /** A child spawned ahead (spawnSwarmChild, in task.cwd): used instead of a new one. */
  readonly spawned?: SpawnedChild;
}

/** A running child: its result (as soon as known) and its exit. */
export interface ChildRun {
  readonly result: Promise<ChildResult>;
  readonly exited: Promise<void>;
}

/** argv that starts a swarm child of this very zot. */
export function swarmChildCommand(): string[] {
  const compiled = Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:\\~BUN");
  return compiled ? [process.execPath, "swarm-child"] : [process.execPath, Bun.main, "swarm-child"];
}

type ChildProcess = Subprocess<"pipe", "pipe", "pipe">;

/** A swarm child process, in its own group and tracked; `stderrTail` is the last STDERR_TAIL_BYTES it wrote (once it closed stderr). */
export interface SpawnedChild {
  readonly proc: ChildProcess;
  readonly stderrTail: Promise<string>;
}

/** The child process has not exited yet. */
export function childRunning(proc: ChildProcess): boolean {
  return proc.exitCode === null && proc.signalCode === null;
}

async function readStderrTail(proc: ChildProcess): Promise<string> {
  let tail = "";
  const decoder = new TextDecoder();
  try {
    for await (const chunk of proc.stderr) {
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_BYTES);
    }
  } catch {
    // the pipe broke: keep what we have
  }
  return tail.trim();
}

/** Starts a swarm child in `cwd` (nothing sent yet), or says why it could not. */
export function spawnSwarmChild(command: readonly string[], cwd: string): SpawnedChild | { readonly error: string } {
  let proc: ChildProcess;
  try {
    proc = Bun.spawn([...command], { cwd, stdin: "pipe", stdout: "pipe", stderr: "pipe", ...ownGroupSpawnOptions(), env: process.env });
  } catch (err) {
    return { error: `could not start the subagent: ${errorMessage(err)}` };
  }
  trackSpawned(proc, { ownGroup: true });
  void proc.exited.then(() => signalGroup(proc.pid, "SIGKILL"));
  return { proc, stderrTail: readStderrTail(proc) };
}

/** Writes one line to the child; a child that is gone is decided by its exit. */
export function sendToChild(proc: ChildProcess, line: string): void {
  try {
    proc.stdin.write(line);
    void Promise.resolve(proc.stdin.flush()).catch(() => undefined);
  } catch {
    // the child is gone; its exit decides
  }
}

export function closeChildStdin(proc: ChildProcess): void {
  try {
    void Promise.resolve(proc.stdin.end()).catch(() => undefined);
  } catch {
    // already closed
  }
}

/** runChild's result alone (the exit goes on in the background). */
export function runChild(options: ChildRunOptions): Promise<ChildResult> {
  return startChild(options).result;
}

export function startChild(options: ChildRunOptions): ChildRun {
  const spawned = options.spawned ?? spawnSwarmChild(options.command ?? swarmChildCommand(), options.task.cwd);
  if ("error" in spawned) return { result: Promise.resolve({ status: "failed", text: "", error: spawned.error, usage: usageOf(undefined) }), exited: Promise.resolve() };
  const { proc } = spawned;

  let result: ChildResult | undefined;
  let protocolError: string | undefined;
  let ending: SubagentStatus | undefined;
  let sessionId: string | undefined;
  let sessionPath: string | undefined;
  const timers: ReturnType<typeof setTimeout>[] = [];
  let settle: (result: ChildResult) => void = () => {};
  const settled = new Promise<ChildResult>((resolve) => (settle = resolve));

  const send = (line: string): void => sendToChild(proc, line);
  const closeStdin = (): void => closeChildStdin(proc);
  /** Escalates until the child's group is gone. */
  const endChild = (): void => {
    timers.push(
      setTimeout(() => {
        if (!childRunning(proc)) return;
        signalGroup(proc.pid, "SIGTERM");
        signalGroup(proc.pid, "SIGCONT");
        timers.push(setTimeout(() => childRunning(proc) && signalGroup(proc.pid, "SIGKILL"), KILL_GRACE_MS));
      }, CANCEL_GRACE_MS),
    );
  };
  const stop = (status: SubagentStatus): void => {
    if (ending !== undefined || result !== undefined) return;
    ending = status;
    send(encodeLine({ type: "cancel" }));
    closeStdin();
    endChild();
  };
  const session = (): Pick<ChildResult, "sessionId" | "sessionPath"> => ({
    ...(sessionId !== undefined ? { sessionId } : {}),
    ...(sessionPath !== undefined ? { sessionPath } : {}),
  });
  /** The outcome once the child answered (also what an exit after the answer yields). */
  const answered = (answer: ChildResult): ChildResult => {
    if (ending !== undefined && answer.status !== "completed") {
      const error = ending === "timed_out" ? `the subagent did not finish within ${options.timeoutMs} ms` : "cancelled";
      return { status: ending, text: answer.text, error, usage: answer.usage, ...session() };
    }
    return { ...answer, ...session() };
  };

  const onAbort = (): void => stop("cancelled");
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener("abort", onAbort, { once: true });
  timers.push(setTimeout(() => stop("timed_out"), options.timeoutMs));

  send(encodeLine({ type: "task", ...options.task }));

  const reader = new LineReader(
    {
      line: (text) => {
        if (protocolError !== undefined || result !== undefined || text.trim() === "") return;
        const parsed = parseChildLine(text);
        if (!parsed.ok) {
          protocolError = `subagent broke the protocol: ${parsed.error}`;
          signalGroup(proc.pid, "SIGKILL");
          return;
        }
        const message = parsed.message;
        if (message.type === "started") {
          sessionId = message.session_id;
          sessionPath = message.session_path;
          options.onStarted?.(sessionId, sessionPath);
        } else if (message.type === "event") {
          options.onEvent(message.event);
        } else {
          result = { status: message.status, text: message.text, usage: message.usage, ...(message.error !== undefined ? { error: message.error } : {}) };
          // The answer is all the parent needs: the child's cleanup and exit go on without it.
          settle(answered(result));
          closeStdin();
          endChild();
        }
      },
      overflow: (bytes) => {
        if (result !== undefined) return;
        protocolError = `subagent sent a line over ${MAX_SWARM_LINE_BYTES} bytes (${bytes} so far)`;
        signalGroup(proc.pid, "SIGKILL");
      },
    },
    MAX_SWARM_LINE_BYTES,
  );
  const finish = async (): Promise<void> => {
    try {
      for await (const chunk of proc.stdout) reader.push(chunk);
    } catch {
      // a broken pipe ends the reading; the exit decides
    }
    const code = await proc.exited;
    for (const timer of timers) clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
    const tail = await spawned.stderrTail;
    if (protocolError !== undefined) return settle({ status: "failed", text: "", error: protocolError, usage: usageOf(undefined), ...session() });
    if (result !== undefined) return settle(answered(result));
    if (ending !== undefined) {
      const error = ending === "timed_out" ? `the subagent did not finish within ${options.timeoutMs} ms` : "cancelled";
      return settle({ status: ending, text: "", error, usage: usageOf(undefined), ...session() });
    }
    const how = proc.signalCode !== null ? `was killed by ${proc.signalCode}` : `exited with code ${code}`;
    settle({ status: "failed", text: "", error: `the subagent ${how} before it answered${tail === "" ? "" : `: ${tail}`}`, usage: usageOf(undefined), ...session() });
  };
  // Never rejects: an unexpected error is the run's failure (a result already settled stays).
  const exited = finish().catch((err: unknown) => {
    signalGroup(proc.pid, "SIGKILL");
    settle({ status: "failed", text: "", error: `subagent: ${errorMessage(err)}`, usage: usageOf(undefined), ...session() });
  });
  return { result: settled, exited };
}
