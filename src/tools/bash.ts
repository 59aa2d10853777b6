/**
 * The `bash` tool: runs `/bin/sh -c <command>` in ctx.cwd (on Windows Git
 * Bash, else `cmd.exe /d /s /c`: common/platform.ts shellInvocation; bash-run.ts:
 * own process group, stdin closed, stdout and stderr merged in order,
 * bounded memory, live output to ctx.onProgress, SIGTERM then SIGKILL on
 * abort or timeout). Under --jail (ctx.jailRoot) the command runs inside an
 * OS sandbox (sandbox.ts); without one it is refused, status "blocked".
 *
 * The result text has the original zot's layout, byte for byte:
 *   `$ <command>\n` + (`\n<output>` ending in `\n`, when there is output)
 *   + note lines `... [<note>]\n` + `\n[exit N]`
 *   + (` (full output: <path>)` when truncated) + `  Took <duration>`.
 * Unlike the original, which keeps the head, the result keeps the TAIL of a
 * long output (the last 2000 lines / 50 KiB, where errors and summaries
 * are); the notes keep the original's `... [truncated at 2000 lines` and
 * `... [truncated at 51200 bytes` prefixes and say what is shown. The full
 * output file holds the head, up to MAX_SPILL_BYTES (a note says when it
 * stopped there). A timeout, cancel or signal death adds a note; the exit
 * code is then the shell's, or -1 when it died by a signal. A non-zero exit,
 * timeout ("timed_out") or abort ("cancelled") is an error outcome.
 */
import * as v from "valibot";
import { shellFor, shellInvocation } from "../common/platform.ts";
import { canonicalJailRoot, canonicalPath, isWithin } from "./paths.ts";
import { runShell, type ShellEnd } from "./bash-run.ts";
import { defaultSpillDir, MAX_SPILL_BYTES, scheduleSpillSweep } from "./bash-spill.ts";
import type { SandboxPlan } from "./sandbox.ts";
import { formatBytes, guarded, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, parseToolArgs } from "./shared.ts";
import { textOutcome, type Tool, type ToolContext, type ToolOutcome, type ToolStatus } from "./types.ts";

export { KILL_GRACE_MS } from "./bash-run.ts";

const BashArgs = v.object({
  command: v.pipe(
    v.string("expected a string"),
    v.check((command) => command.trim().length > 0, "must not be empty"),
  ),
  timeout: v.nullish(v.pipe(v.number("expected a number of seconds"), v.minValue(0, "must be ≥ 0 seconds"))),
});

export interface BashToolOptions {
  /** Directory of the full-output files (default $ZOT_HOME/tmp). */
  readonly spillDir?: string;
}

/** `0.0s`, `X.Ys` under a minute, `XmYs` under an hour, else `XhYm`. */
export function formatDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)}m${whole % 60}s`;
  return `${Math.floor(whole / 3600)}h${Math.floor((whole % 3600) / 60)}m`;
}

/** The `... [...]` lines between the output and `[exit N]`. */
function noteLines(end: ShellEnd, timeoutSeconds: number): string[] {
  const { output } = end;
  const notes: string[] = [];
  if (output.linesTruncated) {
    notes.push(`truncated at ${MAX_OUTPUT_LINES} lines: showing the last ${output.shownLines} of ${output.totalLines} lines`);
  }
  if (output.bytesTruncated) {
    notes.push(`truncated at ${MAX_OUTPUT_BYTES} bytes: showing the last ${output.shownBytes} of ${output.totalBytes} bytes`);
  }
  const truncated = output.linesTruncated || output.bytesTruncated;
  if (truncated && output.fullOutputPath === undefined) notes.push(`full output not saved: ${output.saveError ?? "unknown error"}`);
  else if (truncated && output.saveError !== undefined) {
    notes.push(`full output incomplete: ${output.saveError}; the file holds the first ${output.savedBytes} bytes`);
  } else if (output.spillCapped) {
    notes.push(`full output capped at ${formatBytes(MAX_SPILL_BYTES)}: the file holds the first ${output.savedBytes} of ${output.totalBytes} bytes`);
  }
  if (end.termination === "timed_out") notes.push(`timed out after ${timeoutSeconds}s; process group killed`);
  else if (end.termination === "cancelled") notes.push("cancelled; process group killed");
  else if (end.signal) notes.push(`killed by ${end.signal}`);
  return notes.map((note) => `... [${note}]\n`);
}

function formatBashResult(command: string, end: ShellEnd, timeoutSeconds: number): string {
  const text = end.output.text;
  const body = text.length === 0 ? "" : `\n${text}${text.endsWith("\n") ? "" : "\n"}`;
  const full = end.output.fullOutputPath ? ` (full output: ${end.output.fullOutputPath})` : "";
  const notes = noteLines(end, timeoutSeconds).join("");
  return `$ ${command}\n${body}${notes}\n[exit ${end.exitCode}]${full}  Took ${formatDuration(end.durationMs)}`;
}

function blocked(text: string, command: string): ToolOutcome {
  return textOutcome(text, true, { status: "blocked", details: { command, jailed: true } });
}

/** The sandbox for a jailed command, or the refusal. */
async function jailPlan(ctx: ToolContext, jailRoot: string, argv: string[], spillDir: string): Promise<SandboxPlan> {
  const root = await canonicalJailRoot(jailRoot);
  const cwd = await canonicalPath(ctx.cwd);
  if (!isWithin(root, cwd)) return { ok: false, message: `bash is refused under --jail: the working directory ${cwd} is outside the sandbox root ${root}.` };
  // Loaded at the first jailed command (its own chunk): a run without --jail never loads the sandboxes.
  const { confine } = await import("./sandbox.ts");
  return confine({ jailRoot: root, cwd, argv, env: process.env, privateDir: spillDir });
}

async function executeBash(rawArgs: Readonly<Record<string, unknown>>, ctx: ToolContext, options: BashToolOptions): Promise<ToolOutcome> {
  const parsed = parseToolArgs("bash", BashArgs, rawArgs);
  if (!parsed.ok) return parsed.outcome;
  const { command } = parsed.value;
  const timeoutSeconds = parsed.value.timeout ?? 0;
  if (ctx.signal.aborted) return textOutcome(`$ ${command}\n\n[cancelled before start]`, true, { status: "cancelled" });
  const spillDir = options.spillDir ?? defaultSpillDir();
  // Stale spill files are swept by a run's first command, not when the tools are built: a run without bash never lists $TMPDIR.
  scheduleSpillSweep(options.spillDir);

  // POSIX: /bin/sh -c <command> with one pipe as stdout and stderr; where no such pipe can be made (and under
  // --jail), /bin/sh -c 'exec 2>&1; exec /bin/sh -c "$1"' zot-bash <command> (stderr merged inside the shell).
  const { argv: shellArgv, shell, onePipeArgv } = shellInvocation(command);
  const plan = ctx.jailRoot === undefined ? undefined : await jailPlan(ctx, ctx.jailRoot, shellArgv, spillDir);
  if (plan !== undefined && !plan.ok) return blocked(plan.message, command);

  let end: Awaited<ReturnType<typeof runShell>>;
  try {
    end = await runShell({
      argv: plan?.argv ?? shellArgv,
      ...(plan === undefined && onePipeArgv !== undefined ? { onePipeArgv } : {}),
      cwd: ctx.cwd,
      env: plan?.env ?? process.env,
      signal: ctx.signal,
      timeoutSeconds,
      spillDir,
      onProgress: ctx.onProgress,
      verbatimArguments: plan === undefined && shell.verbatim,
    });
  } finally {
    await plan?.cleanup().catch(() => undefined);
  }
  if ("spawnError" in end) {
    const what = plan === undefined ? shell.argv[0] : plan.argv[0];
    return textOutcome(`bash: could not start ${what} in ${ctx.cwd}: ${end.spawnError}`, true);
  }
  const setupFailure = plan !== undefined && end.exitCode !== 0 ? plan.setupFailure(end.stderrHead) : undefined;
  if (setupFailure !== undefined) return blocked(setupFailure, command);

  const { output, termination } = end;
  const status: ToolStatus | undefined = termination ?? (end.exitCode === 0 ? undefined : "failed");
  return textOutcome(formatBashResult(command, end, timeoutSeconds), end.exitCode !== 0 || termination !== undefined, {
    ...(status ? { status } : {}),
    details: {
      command,
      exit_code: end.exitCode,
      signal: end.signal,
      full_output_path: output.fullOutputPath,
      saved_bytes: output.fullOutputPath === undefined ? undefined : output.savedBytes,
      full_output_capped: output.spillCapped,
      lines_truncated: output.linesTruncated,
      bytes_truncated: output.bytesTruncated,
      duration_ms: end.durationMs,
      timed_out: termination === "timed_out",
      cancelled: termination === "cancelled",
      sandbox: plan?.kind,
    },
  });
}

export function createBashTool(options: BashToolOptions = {}): Tool {
  return {
    name: "bash",
    description: `Run a shell command (${shellFor().description}). stdout and stderr are merged.`,
    schema: {
      type: "object",
      properties: {
        command: { type: "string" },
        timeout: { type: "number", description: "Seconds; no default timeout." },
      },
      required: ["command"],
    },
    execute: guarded("bash", (args, ctx) => executeBash(args, ctx, options)),
  };
}
