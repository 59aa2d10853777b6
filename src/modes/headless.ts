/**
 * The headless run shared by print and JSON modes: validate flags, read the
 * prompt, set up (setup.ts), wait for extensions still starting (saying so on
 * stderr after a second, extension-wait.ts), run the prompt or extension
 * command (commands.ts), report through the mode's output, and always clean
 * up (session closed, extensions shut down) before returning the exit code.
 * Print mode on a terminal shows a progress line on stderr while the run
 * is slow (print-progress.ts), erased before the answer is written.
 *
 * Exit codes: 0 success; 1 failure (one `zot: <message>` line on stderr,
 * printed by the CLI entry from the thrown error); 2 usage errors; 130 / 129
 * / 143 when SIGINT / SIGHUP / SIGTERM interrupted the run: the signal aborts
 * the agent (a running bash command is killed), the normal cleanup runs,
 * then `zot: interrupted` goes to stderr. The same exit code when the
 * signal came while zot waited for a slow stdout reader after the run (that
 * wait then ends within 1 s: common/stdout.ts). A second signal during
 * cleanup exits at once; either way the process-tree exit hook ends every
 * descendant (common/process-tree.ts). 141 when stdout's reader went away
 * (`zot --json … | head -1`, or the answer of `-p` written to a closed
 * pipe): the run stops as for a signal (modes/signals.ts) and nothing more
 * is done for a reader that is gone; nothing is said on stderr.
 *
 * JIT: a headless run scales JavaScriptCore's tier-up thresholds by
 * HEADLESS_JIT_POLICY (the binary starts at 10, scripts/build.ts): the
 * optimizing tiers compiled code that a run of a few hundred rounds never
 * paid back (same CPU time, ≈4 MiB less peak RSS at 50 rounds).
 */
import { assistantHiddenText, type AgentEvent } from "../agent/events.ts";
import { HEADLESS_NO_YOLO_WARNING } from "../agent/permissions.ts";
import { ZotError, errorMessage } from "../common/errors.ts";
import type { MainFlags } from "../cli/flags.ts";
import { Cleanup } from "./cleanup.ts";
import { runHeadlessPrompt, type HeadlessResult } from "./commands.ts";
import { waitForExtensions } from "./extension-wait.ts";
import { interceptsAssistantMessages } from "./held-text.ts";
import { createJsonOutput } from "./json.ts";
import { parseHeadlessOptions } from "./options.ts";
import type { HeadlessOutput } from "./output.ts";
import { createPrintOutput } from "./print.ts";
import { startPrintProgress, type PrintProgress } from "./print-progress.ts";
import { InterruptedError, readHeadlessPrompt, type HeadlessModeName } from "./prompt-input.ts";
import { setupHeadless, type HeadlessRuntime } from "./setup.ts";
import { queueStderr } from "../common/stderr.ts";
import { startStartupTrace, traceStartup } from "../common/startup-trace.ts";
import { SIGNAL_EXIT_CODES, interruptedLine, watchSignals } from "./signals.ts";

/** Turns a finished run into success or the error it stands for. */
function resultError(result: HeadlessResult): ZotError | undefined {
  if (result.kind !== "agent") return undefined;
  const { outcome } = result;
  switch (outcome.status) {
    case "done":
      return undefined;
    case "error":
      return outcome.error;
    case "blocked":
      return new ZotError("mode.turn_blocked", outcome.reason);
    case "aborted":
      return new InterruptedError();
  }
}

/** Tier-up threshold scale for print and JSON runs (Bun.unsafe.setJITPolicy; 1 is JavaScriptCore's default). */
export const HEADLESS_JIT_POLICY = 100;

export async function runHeadless(flags: MainFlags, mode: HeadlessModeName): Promise<number> {
  Bun.unsafe.setJITPolicy(HEADLESS_JIT_POLICY);
  startStartupTrace();
  traceStartup("headless run");
  let runtime: HeadlessRuntime | undefined;
  const output: HeadlessOutput = mode === "json" ? createJsonOutput(undefined, () => interceptsAssistantMessages(runtime?.extensions?.manager)) : createPrintOutput();
  const signals = watchSignals({ stdoutGone: true });
  const signal = signals.signal;
  const cleanup = new Cleanup();
  let failure: unknown;
  let progress: PrintProgress | undefined;
  try {
    const options = parseHeadlessOptions(flags);
    if (flags.noYolo) queueStderr(HEADLESS_NO_YOLO_WARNING);
    const prompt = await readHeadlessPrompt(mode, flags.prompt, signal);
    const showEvent = (event: AgentEvent): void => {
      // The user is shown why an extension hid a message (extensions.md, event_intercept_response).
      if (event.type === "assistant_hidden") queueStderr(`zot: ${assistantHiddenText(event)}\n`);
      progress?.event(event);
      output.event(event);
    };
    runtime = await setupHeadless({ flags, options, onEvent: showEvent, warn: queueStderr, signal }, cleanup);
    // After setup (a --resume picker may have used the terminal): from here on the run only waits.
    if (mode === "print") progress = startPrintProgress();
    // The prompt may need an extension's tools, or be its slash command.
    await waitForExtensions(runtime, queueStderr, signal);
    if (signal.aborted) throw new InterruptedError();
    traceStartup("extensions waited");
    const result = await runHeadlessPrompt({ runtime, signal, showEvent }, prompt);
    traceStartup("prompt answered");
    if (result.kind === "display") output.display(result.extension, result.text);
    const error = resultError(result);
    if (error !== undefined) throw error;
    if (signal.aborted) throw new InterruptedError();
    progress?.stop();
    output.succeeded();
  } catch (err) {
    failure = err;
  }
  progress?.stop();
  const interruptedRun = signals.received();
  if (failure !== undefined || interruptedRun !== undefined) {
    output.failed(interruptedRun !== undefined ? "interrupted" : errorMessage(failure));
  }
  await output.flush();
  // A signal while zot waited for its stdout reader also counts: what was not taken is lost.
  const interrupted = signals.received();
  await cleanup.run((err) => queueStderr(`zot: warning: cleanup: ${errorMessage(err)}\n`));
  traceStartup("cleanup done");
  signals.stop();
  if (interrupted !== undefined) {
    queueStderr(interruptedLine(interrupted));
    return SIGNAL_EXIT_CODES[interrupted];
  }
  if (failure !== undefined) throw failure;
  return 0;
}
