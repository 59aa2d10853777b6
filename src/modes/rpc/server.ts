/**
 * `zot rpc` / `zot --rpc` (docs/rpc.md): sets up one agent like print mode
 * (provider, tools, skills, extensions with the bridge and interception) but
 * with no session file, then serves NDJSON commands from stdin and writes
 * responses and events to stdout until stdin closes.
 *
 * Lifecycle and exit codes:
 * - setup failure: the error propagates (the CLI prints `zot: <message>`, exit 1);
 * - stdin closes: every running and queued prompt/compact finishes, then
 *   cleanup (extensions shut down), exit 0;
 * - `hello` with a wrong token: error response, in-flight work aborted,
 *   cleanup, exit 1;
 * - SIGINT / SIGHUP / SIGTERM: the running operation is aborted (queued
 *   ones answer with an error and do nothing), cleanup, `zot: interrupted` on
 *   stderr, exit 130 / 129 / 143; a second signal exits at once (the
 *   process-tree exit hook still ends every descendant).
 * - stdout's reader goes away (EPIPE): handled as a SIGPIPE would be — the
 *   running operation is aborted, cleanup, exit 141, quietly (the
 *   original zot was killed by SIGPIPE at its next write).
 *
 * The agent's own terminal events (done / error) are not forwarded: the
 * command handlers write the RPC terminal events from the outcome.
 *
 * stdout is common/stdout.ts: never blocking, nothing dropped. While more
 * than 4 MiB of output wait for the client, stdin is not read on (nor the
 * model stream, bash output or extension output): a client must read its
 * stdout. After a signal zot gives the client 1 s to take what is queued.
 */
import type { AgentEvent } from "../../agent/events.ts";
import { HEADLESS_NO_YOLO_WARNING } from "../../agent/permissions.ts";
import { errorMessage } from "../../common/errors.ts";
import { zotPaths } from "../../common/home.ts";
import type { MainFlags } from "../../cli/flags.ts";
import { loadCatalog, type Catalog } from "../../providers/index.ts";
import { Cleanup } from "../cleanup.ts";
import { parseAutoCompact, parseMaxSteps, parseReasoning, parseToolSelection, type HeadlessOptions } from "../options.ts";
import { setupHeadless, type HeadlessRuntime } from "../setup.ts";
import type { RpcContext } from "./commands.ts";
import { RpcConnection } from "./connection.ts";
import { LineReader } from "../../common/line-reader.ts";
import { settledOrAborted } from "../../common/abortable-wait.ts";
import { yieldToEventLoop } from "../../common/yield.ts";
import { OperationQueue } from "./operation-queue.ts";
import { RpcOutput } from "./output.ts";
import { RPC_MAX_LINE_BYTES, RPC_TOKEN_ENV } from "./protocol.ts";
import { rpcExtensionUI } from "./ui.ts";
import { CallOrder } from "../call-order.ts";
import { HeldText, interceptsAssistantMessages } from "../held-text.ts";
import { SIGNAL_EXIT_CODES, interruptedLine, watchSignals } from "../signals.ts";
import { queueStderr } from "../../common/stderr.ts";
import { stdoutRoom } from "../../common/stdout.ts";

/** Print mode's options with no session; session flags and a positional prompt are ignored with a warning. */
function rpcOptions(flags: MainFlags): HeadlessOptions {
  const ignored = [
    flags.session !== undefined ? "--session" : undefined,
    flags.continue ? "--continue" : undefined,
    flags.resume ? "--resume" : undefined,
  ].filter((name): name is string => name !== undefined);
  if (ignored.length > 0) queueStderr(`zot: warning: rpc mode keeps no session; ${ignored.join(", ")} ignored\n`);
  if (flags.prompt.trim() !== "") queueStderr("zot: warning: rpc mode reads its prompts from stdin; the command-line prompt is ignored\n");
  if (flags.noYolo) queueStderr(HEADLESS_NO_YOLO_WARNING);
  return {
    reasoning: parseReasoning(flags.reasoning),
    maxSteps: parseMaxSteps(flags.maxSteps),
    autoCompact: parseAutoCompact(flags.autoCompact),
    tools: parseToolSelection(flags),
    session: { kind: "none" },
  };
}

/** How serving stdin ended: end of input, a `hello` that closed the connection, or a signal. */
type ServeEnd = "eof" | "closed" | "signal";

/** Reads stdin line by line and hands each line to the connection, in order. */
async function serveStdin(connection: RpcConnection, signal: AbortSignal): Promise<ServeEnd> {
  const lines: string[] = [];
  const reader = new LineReader(
    {
      line: (text) => void lines.push(text),
      overflow: (bytes) => connection.oversizedLine(bytes, RPC_MAX_LINE_BYTES),
    },
    RPC_MAX_LINE_BYTES,
    "skip-line",
  );
  const drain = async (): Promise<ServeEnd | undefined> => {
    for (let line = lines.shift(); line !== undefined; line = lines.shift()) {
      if ((await connection.handleLine(line)) === "close") return "closed";
      if (signal.aborted) return "signal";
    }
    return undefined;
  };
  const stdin = Bun.stdin.stream().getReader();
  // A signal cancels the reader, which ends a pending read as done (no race against a long-lived promise).
  const cancel = (): void => void stdin.cancel().catch(() => undefined);
  signal.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      if (signal.aborted) return "signal";
      const next = await stdin.read();
      if (signal.aborted) return "signal";
      if (next.done) {
        reader.end();
        return (await drain()) ?? "eof";
      }
      reader.push(next.value);
      const ended = await drain();
      if (ended !== undefined) return ended;
      // A client that does not read its responses gets its commands read no faster (common/stdout.ts).
      const room = stdoutRoom();
      if (room !== undefined) await settledOrAborted(room, signal);
      // A client that never stops writing must not starve signals, timers and output writes.
      else await yieldToEventLoop();
    }
  } finally {
    signal.removeEventListener("abort", cancel);
    // Settles a read still pending after an early close.
    cancel();
  }
}

export async function runRpc(flags: MainFlags): Promise<number> {
  const output = new RpcOutput();
  const queue = new OperationQueue((err) => queueStderr(`zot: warning: rpc: ${errorMessage(err)}\n`));
  const signals = watchSignals({ onSignal: () => queue.shutdown(), stdoutGone: true });
  const cleanup = new Cleanup();
  let failure: unknown;
  let end: ServeEnd | undefined;
  try {
    const options = rpcOptions(flags);
    // A step's tool results in call order, as the original wrote them (call-order.ts).
    const order = new CallOrder((event) => output.agentEvent(event));
    // Streamed text an extension may still hide or replace waits for the delivered message (held-text.ts).
    let runtime: HeadlessRuntime | undefined;
    const held = new HeldText(() => interceptsAssistantMessages(runtime?.extensions?.manager), (event) => {
      // The agent's own done / error are not written (the command handlers write the RPC ones) but end the batch.
      if (event.type !== "done" && event.type !== "error") order.event(event);
      else order.flush();
    });
    const forward = (event: AgentEvent): void => held.event(event);
    runtime = await setupHeadless(
      { flags, options, onEvent: forward, warn: queueStderr, signal: signals.signal, extensionUI: rpcExtensionUI(output, queueStderr) },
      cleanup,
    );
    let catalog: Promise<Catalog> | undefined;
    const context: RpcContext = { runtime, output, queue, catalog: () => (catalog ??= loadCatalog(zotPaths().modelsFile, zotPaths().modelsCacheFile)) };
    const token = process.env[RPC_TOKEN_ENV];
    const connection = new RpcConnection(context, token === undefined || token === "" ? undefined : token);
    end = signals.signal.aborted ? "signal" : await serveStdin(connection, signals.signal);
    if (end !== "eof") queue.shutdown();
    await queue.idle();
  } catch (err) {
    failure = err;
  }
  await cleanup.run((err) => queueStderr(`zot: warning: cleanup: ${errorMessage(err)}\n`));
  await output.flush();
  signals.stop();
  const interrupted = signals.received();
  if (interrupted !== undefined) {
    queueStderr(interruptedLine(interrupted));
    return SIGNAL_EXIT_CODES[interrupted];
  }
  if (failure !== undefined) throw failure;
  return end === "closed" ? 1 : 0;
}
