/**
 * Runs one shell argv for the `bash` tool: in its own process group (the
 * spawned process is the group leader, pgid = pid), stdin closed, stdout and
 * stderr either ONE pipe (`onePipeArgv`, Linux: a pipe2 pipe given as both
 * fds, so the output interleaves exactly as written, as the original's
 * shared writer does; the shell runs without a merging wrapper) or two
 * pipes (`argv`: the wrapper merges them itself; the fallback, and --jail,
 * where stderr carries the sandbox's own messages), read chunk by chunk with backpressure (the next chunk is read only
 * after the previous one is captured, spill write included, and, while the
 * shell runs, only once zot's stdout has room: common/stdout.ts), so memory
 * stays bounded whatever the command prints and however slowly zot's own
 * output is read. Chunks go to the TailCapture and the
 * ProgressForwarder. On abort (signal) or after the timeout the whole group
 * gets SIGTERM, then SIGKILL KILL_GRACE_MS later. Background processes that
 * keep the pipe open are not waited for beyond a short drain window. The
 * shell is registered with common/process-tree.ts: its exit status stays
 * Bun's, and its group (and on Linux everything it leaves behind, setsid
 * jobs included) is ended when zot exits. On Windows there is no group:
 * "the group" is the shell's process tree, ended with taskkill /T /F
 * (common/platform.ts), and SIGTERM is as final as SIGKILL.
 */
import { closeSync } from "node:fs";
import { errorMessage } from "../common/errors.ts";
import { cloexecPipe } from "../common/libc.ts";
import { settledOrAborted } from "../common/abortable-wait.ts";
import { ownGroupSpawnOptions } from "../common/platform.ts";
import { signalGroup, trackSpawned } from "../common/process-tree.ts";
import { stdoutRoom } from "../common/stdout.ts";
import { TailCapture, type CapturedOutput } from "./bash-output.ts";
import { ProgressForwarder } from "./bash-progress.ts";

/** Delay between SIGTERM and SIGKILL of the process group. */
export const KILL_GRACE_MS = 3000;
/** How long output is still read after the shell exits (for late writes of its children). */
const DRAIN_AFTER_EXIT_MS = 250;
/** Most bytes of the stderr pipe kept apart (it carries only the sandbox's own messages when jailed). */
const MAX_STDERR_KEPT = 4096;

export interface ShellRun {
  readonly argv: readonly string[];
  /** Run instead of argv, with one pipe as stdout and stderr, where such a pipe can be made. */
  readonly onePipeArgv?: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal: AbortSignal;
  readonly timeoutSeconds: number;
  readonly spillDir: string;
  readonly onProgress: (text: string) => void;
  /** Windows: pass the argv to the program as written (cmd.exe parses its own command line). */
  readonly verbatimArguments?: boolean;
}

export interface ShellEnd {
  readonly exitCode: number;
  readonly signal: string | undefined;
  readonly termination: "timed_out" | "cancelled" | undefined;
  readonly output: CapturedOutput;
  /** The first bytes that arrived on the stderr pipe (not merged by the shell wrapper). */
  readonly stderrHead: string;
  readonly durationMs: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/** Reads a pipe chunk by chunk; the next read waits for onChunk to finish. */
async function pump(stream: ReadableStream<Uint8Array>, onChunk: (bytes: Uint8Array) => Promise<void>, stopped: Promise<void>): Promise<void> {
  const reader = stream.getReader();
  void stopped.then(() => reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      await onChunk(value);
    }
  } catch {
    // Cancelled or the pipe broke: whatever arrived is kept.
  } finally {
    reader.releaseLock();
  }
}

/** Spawns and runs to the end; a spawn failure is the error text. */
export async function runShell(run: ShellRun): Promise<ShellEnd | { readonly spawnError: string }> {
  const started = performance.now();
  const onePipe = run.onePipeArgv === undefined ? undefined : cloexecPipe();
  let proc: Bun.Subprocess<"ignore", "pipe" | number, "pipe" | number>;
  try {
    proc = Bun.spawn(onePipe === undefined ? [...run.argv] : [...run.onePipeArgv!], {
      cwd: run.cwd, env: run.env, stdin: "ignore",
      stdout: onePipe?.write ?? "pipe", stderr: onePipe?.write ?? "pipe",
      ...ownGroupSpawnOptions(),
      ...(run.verbatimArguments ? { windowsVerbatimArguments: true } : {}),
    });
  } catch (err) {
    if (onePipe !== undefined) closeQuietly(onePipe.read);
    return { spawnError: errorMessage(err) };
  } finally {
    // The child has its copies (or none); EOF comes once it and its descendants close theirs.
    if (onePipe !== undefined) closeQuietly(onePipe.write);
  }
  const pgid = proc.pid;
  trackSpawned(proc, { ownGroup: true });

  let termination: ShellEnd["termination"];
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const terminate = (reason: "timed_out" | "cancelled"): void => {
    if (termination) return;
    termination = reason;
    signalGroup(pgid, "SIGTERM");
    killTimer = setTimeout(() => signalGroup(pgid, "SIGKILL"), KILL_GRACE_MS);
  };
  const onAbort = (): void => terminate("cancelled");
  run.signal.addEventListener("abort", onAbort, { once: true });
  const timeoutTimer = run.timeoutSeconds > 0 ? setTimeout(() => terminate("timed_out"), run.timeoutSeconds * 1000) : undefined;

  let stopReading: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stopReading = resolve));
  let shellRunning = true;
  const shellEnded = new AbortController();
  void Promise.race([proc.exited, stopped]).then(() => {
    shellRunning = false;
    shellEnded.abort();
  });

  const capture = new TailCapture({ spillDir: run.spillDir });
  const progress = new ProgressForwarder(run.onProgress);
  // Both pipes feed one capture, one chunk at a time.
  let captureTurn: Promise<void> = Promise.resolve();
  const take = async (bytes: Uint8Array): Promise<void> => {
    progress.push(bytes);
    captureTurn = captureTurn.then(() => capture.append(bytes));
    await captureTurn;
    // While zot's stdout is behind (tool_progress in --json / RPC), the running command waits on its full pipe;
    // once the shell has exited the rest is read at once, so the drain window loses nothing.
    const room = shellRunning ? stdoutRoom() : undefined;
    if (room !== undefined) await settledOrAborted(room, shellEnded.signal);
  };
  let stderrHead = "";
  const takeStderr = (bytes: Uint8Array): Promise<void> => {
    if (stderrHead.length < MAX_STDERR_KEPT) stderrHead += new TextDecoder().decode(bytes.subarray(0, MAX_STDERR_KEPT));
    return take(bytes);
  };

  const drained = onePipe !== undefined
    ? pump(Bun.file(onePipe.read).stream(), take, stopped).finally(() => closeQuietly(onePipe.read))
    : Promise.all([pump(proc.stdout as ReadableStream<Uint8Array>, take, stopped), pump(proc.stderr as ReadableStream<Uint8Array>, takeStderr, stopped)]);

  await proc.exited;
  // After the shell exits, give the pipe a moment (or, when killing, until SIGKILL has landed) to drain.
  const drainWindow = termination ? KILL_GRACE_MS + 500 : DRAIN_AFTER_EXIT_MS;
  await Promise.race([drained, sleep(drainWindow)]);
  stopReading();
  await drained;

  if (timeoutTimer) clearTimeout(timeoutTimer);
  run.signal.removeEventListener("abort", onAbort);
  if (killTimer && !signalGroup(pgid, 0)) clearTimeout(killTimer);
  else killTimer?.unref?.();

  await captureTurn;
  progress.flush();
  const output = await capture.finish();
  return {
    exitCode: proc.exitCode ?? -1,
    signal: proc.signalCode === null ? undefined : String(proc.signalCode),
    termination,
    output,
    stderrHead,
    durationMs: Math.round(performance.now() - started),
  };
}
