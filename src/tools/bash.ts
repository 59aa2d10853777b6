/**
 * The `bash` tool: runs `/bin/sh -c <command>` in ctx.cwd, in its own process
 * group, stdin closed, stdout and stderr merged into one ordered stream that is
 * forwarded to ctx.onProgress as it arrives. On abort (ctx.signal) or after
 * the optional timeout the whole group gets SIGTERM, then SIGKILL 3 s later.
 * The result keeps the output's tail (see bash-output.ts) and ends with
 * `[exit N]` and the duration; a non-zero exit, timeout ("timed_out") or
 * abort ("cancelled") is an error outcome. Background processes that keep the
 * output pipe open are not waited for beyond a short drain window. While
 * zot's stdout is behind, the command's output is not read (backpressure:
 * the command blocks on its full pipe; see pump).
 */
import * as v from "valibot";
import { errorMessage } from "../common/errors.ts";
import { trackSpawned } from "../common/process-tree.ts";
import { stdoutRoom } from "../common/stdout.ts";
import { TailCapture, type CapturedOutput } from "./bash-output.ts";
import { formatBytes, guarded, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, parseToolArgs } from "./shared.ts";
import { textOutcome, type Tool, type ToolContext, type ToolOutcome, type ToolStatus } from "./types.ts";

/** Delay between SIGTERM and SIGKILL of the process group. */
export const KILL_GRACE_MS = 3000;
/** How long output is still read after the shell exits (for late writes of its children). */
const DRAIN_AFTER_EXIT_MS = 250;

/** Merges stderr into stdout inside the shell, so syntax errors of the command are captured too. */
const MERGING_WRAPPER = 'exec 2>&1; exec /bin/sh -c "$1"';

const BashArgs = v.object({
  command: v.pipe(
    v.string("expected a string"),
    v.check((command) => command.trim().length > 0, "must not be empty"),
  ),
  timeout: v.nullish(v.pipe(v.number("expected a number of seconds"), v.minValue(0, "must be ≥ 0 seconds"))),
});

/** `0.0s`, `X.Ys` under a minute, `XmYs` under an hour, else `XhYm`. */
export function formatDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)}m${whole % 60}s`;
  return `${Math.floor(whole / 3600)}h${Math.floor((whole % 3600) / 60)}m`;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function truncationNote(output: CapturedOutput): string | undefined {
  if (!output.linesTruncated && !output.bytesTruncated) return undefined;
  const where = output.fullOutputPath
    ? `full output: ${output.fullOutputPath}`
    : `full output could not be saved${output.saveError ? `: ${output.saveError}` : ""}`;
  const limit = output.bytesTruncated ? `${MAX_OUTPUT_BYTES / 1024} KiB` : `${MAX_OUTPUT_LINES} lines`;
  return (
    `[output truncated to the last ${limit}: showing the last ${output.shownLines} of ${output.totalLines} lines ` +
    `(${formatBytes(output.shownBytes)} of ${formatBytes(output.totalBytes)}); ${where}]`
  );
}

interface RunEnd {
  readonly exitCode: number;
  readonly signal: string | undefined;
  readonly termination: "timed_out" | "cancelled" | undefined;
}

function statusLine(end: RunEnd, timeoutSeconds: number): string {
  if (end.termination === "timed_out") return `[timed out after ${timeoutSeconds}s; process group killed]`;
  if (end.termination === "cancelled") return "[cancelled; process group killed]";
  if (end.signal) return `[exit ${end.exitCode} (killed by ${end.signal})]`;
  return `[exit ${end.exitCode}]`;
}

/** Reads a pipe chunk by chunk, handing each to onChunk in order. */
/**
 * Reads `stream` into `onChunk` until it ends or `stopped`. While the shell
 * runs (until `exited`) and zot's stdout is behind (tool_progress in --json
 * and RPC), the next read waits (common/stdout.ts): the pipe fills and the
 * command blocks, so its output never piles up in memory. After the shell
 * exits the rest is read at once, so the drain window loses nothing.
 */
async function pump(stream: ReadableStream<Uint8Array>, onChunk: (bytes: Uint8Array) => void, stopped: Promise<void>, exited: Promise<unknown>): Promise<void> {
  const reader = stream.getReader();
  const stop = stopped.then(() => reader.cancel().catch(() => undefined));
  let running = true;
  const unpaced = Promise.race([stopped, exited]).then(() => {
    running = false;
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onChunk(value);
      const room = running ? stdoutRoom() : undefined;
      if (room !== undefined) await Promise.race([room, unpaced]);
    }
  } catch {
    // Cancelled or the pipe broke: whatever arrived is kept.
  } finally {
    void stop;
    reader.releaseLock();
  }
}

async function executeBash(rawArgs: Readonly<Record<string, unknown>>, ctx: ToolContext): Promise<ToolOutcome> {
  const parsed = parseToolArgs("bash", BashArgs, rawArgs);
  if (!parsed.ok) return parsed.outcome;
  const { command } = parsed.value;
  const timeoutSeconds = parsed.value.timeout ?? 0;
  if (ctx.signal.aborted) return textOutcome(`$ ${command}\n\n[cancelled before start]`, true, { status: "cancelled" });

  const started = performance.now();
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    proc = Bun.spawn(["/bin/sh", "-c", MERGING_WRAPPER, "zot-bash", command], {
      cwd: ctx.cwd,
      env: process.env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
  } catch (err) {
    return textOutcome(`bash: could not start /bin/sh in ${ctx.cwd}: ${errorMessage(err)}`, true);
  }
  const pid = proc.pid;
  // Its exit status is Bun's; its group (and, on Linux, everything it leaves behind) ends with zot.
  trackSpawned(proc, { ownGroup: true });

  let termination: RunEnd["termination"];
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const terminate = (reason: "timed_out" | "cancelled"): void => {
    if (termination) return;
    termination = reason;
    killGroup(pid, "SIGTERM");
    killTimer = setTimeout(() => killGroup(pid, "SIGKILL"), KILL_GRACE_MS);
  };
  const onAbort = (): void => terminate("cancelled");
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  const timeoutTimer = timeoutSeconds > 0 ? setTimeout(() => terminate("timed_out"), timeoutSeconds * 1000) : undefined;

  const capture = new TailCapture();
  let captureChain: Promise<void> = Promise.resolve();
  const decoder = new TextDecoder("utf-8");
  const onChunk = (bytes: Uint8Array): void => {
    captureChain = captureChain.then(() => capture.append(bytes));
    try {
      const text = decoder.decode(bytes, { stream: true });
      if (text) ctx.onProgress(text);
    } catch {
      // A failing progress listener must not break the command.
    }
  };

  let stopReading: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stopReading = resolve));
  const drained = Promise.all([pump(proc.stdout, onChunk, stopped, proc.exited), pump(proc.stderr, onChunk, stopped, proc.exited)]);

  await proc.exited;
  // After the shell exits, give the pipe a moment (or, when killing, until SIGKILL has landed) to drain.
  const drainWindow = termination ? KILL_GRACE_MS + 500 : DRAIN_AFTER_EXIT_MS;
  await Promise.race([drained, sleep(drainWindow)]);
  stopReading();
  await drained;

  if (timeoutTimer) clearTimeout(timeoutTimer);
  ctx.signal.removeEventListener("abort", onAbort);
  if (killTimer && !groupAlive(pid)) clearTimeout(killTimer);
  else killTimer?.unref?.();

  await captureChain;
  const output = await capture.finish();
  const durationMs = Math.round(performance.now() - started);
  const signal = proc.signalCode === null ? undefined : String(proc.signalCode);
  const end: RunEnd = { exitCode: proc.exitCode ?? -1, signal, termination };

  const parts = [`$ ${command}\n\n`];
  const note = truncationNote(output);
  if (note) parts.push(`${note}\n`);
  if (output.text.length > 0) parts.push(output.text.endsWith("\n") ? output.text : `${output.text}\n`);
  else parts.push("(no output)\n");
  const fullNote = output.fullOutputPath ? ` (full output: ${output.fullOutputPath})` : "";
  parts.push(`${statusLine(end, timeoutSeconds)}${fullNote}  Took ${formatDuration(durationMs)}`);

  const status: ToolStatus | undefined = termination ?? (end.exitCode === 0 ? undefined : "failed");
  return textOutcome(parts.join(""), end.exitCode !== 0 || termination !== undefined, {
    ...(status ? { status } : {}),
    details: {
      command,
      exit_code: end.exitCode,
      signal,
      full_output_path: output.fullOutputPath,
      lines_truncated: output.linesTruncated,
      bytes_truncated: output.bytesTruncated,
      duration_ms: durationMs,
      timed_out: termination === "timed_out",
      cancelled: termination === "cancelled",
    },
  });
}

export function createBashTool(): Tool {
  return {
    name: "bash",
    description:
      "Run a shell command with /bin/sh -c in the working directory. stdout and stderr are merged; stdin is closed. " +
      `Output longer than ${MAX_OUTPUT_LINES} lines or ${MAX_OUTPUT_BYTES / 1024} KiB keeps only the END; the full ` +
      "output is saved to a file named in the result. Set timeout (seconds) for commands that may hang. " +
      "Background processes must redirect their output (e.g. `cmd > log 2>&1 &`).",
    schema: {
      type: "object",
      properties: {
        command: { type: "string", description: "The shell command to run." },
        timeout: { type: "number", minimum: 0, description: "Kill the command after this many seconds (0 or absent: no timeout)." },
      },
      required: ["command"],
    },
    execute: guarded("bash", executeBash),
  };
}
