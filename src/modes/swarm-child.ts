/**
 * `zot swarm-child` (hidden): one subagent run for a parent zot, speaking
 * the NDJSON protocol of src/agents/protocol.ts over stdin / stdout. The
 * first stdin line is the task; the run is set up like a headless one
 * (setup.ts: same extensions, tools subset, model, jail) with the
 * swarm-child identity (notifications carry agent_id, the session file is
 * linked to the parent's and lives under the task's sessions root, no
 * `agent` tool, the parent's project-trust decision; a resume task continues its `resume_session` file), waits for extensions, runs the prompt and reports every
 * agent event (streamed text that its extensions may still hide or
 * replace only once delivered: held-text.ts), then one `result` line, then
 * cleans up and exits 0.
 * A warm child (spawned before its task is known, src/agents/warm.ts) gets
 * a `prepare` line first: it preconnects to the provider and loads its
 * client while it waits (its modules are loaded by then); EOF, `cancel` or
 * SIGINT / SIGTERM / SIGHUP before a task end it with exit 0 and no output.
 * A `cancel` line, EOF on stdin (the parent is gone) or SIGINT / SIGTERM /
 * SIGHUP abort the run; the result is then `cancelled`. A task line that is
 * missing or invalid: a `result` with status failed naming the problem, exit 2.
 * stdout carries nothing but protocol lines; warnings go to stderr.
 */
import { eventJson, isUiOnlyEvent, type AgentEvent } from "../agent/events.ts";
import { encodeLine, parseParentLine, type ChildMessage, type SubagentStatus, type SwarmPrepare, type SwarmTask } from "../agents/protocol.ts";
import { ZotError, errorMessage } from "../common/errors.ts";
import { guardProcessTree } from "../common/process-tree.ts";
import { queueStderr } from "../common/stderr.ts";
import { flushStdout, writeStdoutText } from "../common/stdout.ts";
import { LineReader } from "../common/line-reader.ts";
import { parseMainFlags } from "../cli/flags.ts";
import { warmUpProvider } from "../providers/index.ts";
import { Cleanup } from "./cleanup.ts";
import { runAgentPrompt } from "./commands.ts";
import { waitForExtensions } from "./extension-wait.ts";
import { parseHeadlessOptions } from "./options.ts";
import { HeldText, interceptsAssistantMessages } from "./held-text.ts";
import { setupHeadless, type HeadlessRuntime } from "./setup.ts";
import { watchSignals } from "./signals.ts";
import { MAX_SWARM_LINE_BYTES } from "../agents/protocol.ts";

const NO_USAGE = { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: 0 };

function send(message: ChildMessage): void {
  writeStdoutText(encodeLine(message));
}

/** The flags a headless run of this task would have been given. */
function taskArgv(task: SwarmTask): string[] {
  // --flag=value throughout: a value may start with "-".
  const argv = [`--cwd=${task.cwd}`];
  const pairs: [string, string | undefined][] = [
    ["--provider", task.provider],
    ["--model", task.model],
    ["--base-url", task.base_url],
    ["--api-key", task.api_key],
    ["--reasoning", task.reasoning],
    ["--max-steps", task.max_steps],
    ["--system-prompt", task.system_prompt],
  ];
  for (const [flag, value] of pairs) if (value !== undefined) argv.push(`${flag}=${value}`);
  if (task.tools !== undefined) {
    if (task.tools.length === 0) argv.push("--no-tools");
    else argv.push(`--tools=${task.tools.join(",")}`);
  }
  for (const text of task.append_system_prompt) argv.push(`--append-system-prompt=${text}`);
  for (const dir of task.ext) argv.push(`--ext=${dir}`);
  if (task.no_ext) argv.push("--no-ext");
  if (task.no_skill) argv.push("--no-skill");
  if (task.with_skills) argv.push("--with-skills");
  if (task.jail) argv.push("--jail");
  for (const file of task.mcp ?? []) argv.push(`--mcp=${file}`);
  if (task.sessions_root === undefined) argv.push("--no-session");
  else if (task.resume_session !== undefined) argv.push(`--session=${task.resume_session}`);
  argv.push("-p");
  return argv;
}

/**
 * Reads stdin lines: resolves the first one that is not a leading `prepare`
 * (that one goes to onPrepare); afterwards `cancel` lines and EOF call onCancel.
 */
function readParent(onPrepare: (prepare: SwarmPrepare) => void, onCancel: () => void): Promise<string | undefined> {
  let resolveFirst: (line: string | undefined) => void = () => {};
  const first = new Promise<string | undefined>((resolve) => (resolveFirst = resolve));
  let seenFirst = false;
  let seenPrepare = false;
  const reader = new LineReader(
    {
      line: (text) => {
        if (!seenFirst) {
          const early = seenPrepare ? undefined : parseParentLine(text);
          if (early?.ok === true && early.message.type === "prepare") {
            seenPrepare = true;
            onPrepare(early.message);
            return;
          }
          seenFirst = true;
          resolveFirst(text);
          return;
        }
        const parsed = parseParentLine(text);
        if (parsed.ok && parsed.message.type === "cancel") onCancel();
      },
      overflow: () => {
        if (!seenFirst) resolveFirst(undefined);
        onCancel();
      },
    },
    MAX_SWARM_LINE_BYTES,
  );
  void (async () => {
    try {
      for await (const chunk of Bun.stdin.stream()) reader.push(chunk);
    } catch {
      // a broken stdin is the parent going away
    }
    if (!seenFirst) resolveFirst(undefined);
    onCancel();
  })();
  return first;
}

/** What a warm child can do before its task (all best effort): the provider connection and the modules setup would import. */
async function warmUp(prepare: SwarmPrepare): Promise<void> {
  const modules: Promise<unknown>[] = [warmUpProvider(prepare.provider, prepare.base_url), import("../skills/index.ts")];
  if (prepare.extensions === true) modules.push(import("../ext/manager.ts"), import("../ext/host.ts"), import("../ext/bridge.ts"));
  await Promise.all(modules.map((loading) => loading.catch(() => undefined)));
}

function visibleText(event: AgentEvent): string | undefined {
  if (event.type !== "assistant_message") return undefined;
  const text = event.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  return text === "" ? undefined : text;
}

export async function runSwarmChild(): Promise<number> {
  guardProcessTree();
  const signals = watchSignals();
  const cancel = new AbortController();
  signals.signal.addEventListener("abort", () => cancel.abort(), { once: true });
  let prepared = false;
  // A signal before the task (a spare being ended) counts as no task.
  const signalled = new Promise<undefined>((resolve) => cancel.signal.addEventListener("abort", () => resolve(undefined), { once: true }));
  const firstLine = await Promise.race([
    readParent(
      (prepare) => {
        prepared = true;
        void warmUp(prepare);
      },
      () => cancel.abort(),
    ),
    signalled,
  ]);
  const parsed = firstLine === undefined ? { ok: false as const, error: "no task line on stdin" } : parseParentLine(firstLine);
  // A warm child the parent retires (EOF, cancel or a signal before any task) leaves quietly.
  if (prepared && (firstLine === undefined || (parsed.ok && parsed.message.type === "cancel"))) {
    signals.stop();
    return 0;
  }
  if (!parsed.ok || parsed.message.type !== "task") {
    send({ type: "result", status: "failed", text: "", error: `swarm-child: ${parsed.ok ? "the first line must be a task" : parsed.error}`, usage: NO_USAGE });
    await flushStdout();
    signals.stop();
    return 2;
  }
  const task = parsed.message;
  const cleanup = new Cleanup();
  let finalText = "";
  let status: SubagentStatus = "completed";
  let error: string | undefined;
  let usage = NO_USAGE;
  try {
    const flags = parseMainFlags(taskArgv(task));
    const options = parseHeadlessOptions(flags);
    // Streamed text the child's extensions may still hide or replace waits for the delivered message (held-text.ts).
    let runtime: HeadlessRuntime | undefined;
    const held = new HeldText(() => interceptsAssistantMessages(runtime?.extensions?.manager), (event) => {
      if (!isUiOnlyEvent(event)) send({ type: "event", event: eventJson(event) });
    });
    const onEvent = (event: AgentEvent): void => {
      const text = visibleText(event);
      if (text !== undefined) finalText = text;
      if (event.type === "usage") usage = event.cumulative;
      held.event(event);
    };
    runtime = await setupHeadless(
      {
        flags,
        options,
        onEvent,
        warn: queueStderr,
        signal: cancel.signal,
        swarmChild: { agentId: task.agent_id, parentSessionId: task.parent_session_id, sessionsRoot: task.sessions_root, projectTrust: task.trust_project },
      },
      cleanup,
    );
    // The top-level run takes another provider's model id as "this provider's default" (the original's rule); a subagent
    // asked for a model by name must not silently run a different one.
    if (task.model !== undefined && runtime.agent.model.id !== task.model) {
      throw new ZotError(
        "agent.model_provider",
        `model "${task.model}" is not one of ${runtime.agent.model.provider}'s (a subagent runs on its parent's provider; run \`zot --list-models\` for the ids)`,
        { model: task.model },
      );
    }
    send({
      type: "started",
      session_id: runtime.session.writer?.id ?? task.agent_id,
      ...(runtime.session.writer !== undefined ? { session_path: runtime.session.writer.path } : {}),
    });
    await waitForExtensions(runtime, queueStderr, cancel.signal);
    if (cancel.signal.aborted) status = "cancelled";
    else {
      const result = await runAgentPrompt({ runtime, signal: cancel.signal, showEvent: onEvent }, task.prompt);
      const outcome = result.kind === "agent" ? result.outcome : { status: "done" as const };
      if (outcome.status === "aborted") status = "cancelled";
      else if (outcome.status === "error") [status, error] = ["failed", outcome.error.message];
      else if (outcome.status === "blocked") [status, error] = ["failed", outcome.reason];
    }
    if (cancel.signal.aborted && status === "completed") status = "cancelled";
  } catch (err) {
    status = cancel.signal.aborted ? "cancelled" : "failed";
    error = errorMessage(err);
  }
  send({ type: "result", status, text: finalText, ...(error !== undefined ? { error } : status === "cancelled" ? { error: "cancelled" } : {}), usage });
  await cleanup.run((err) => queueStderr(`zot: warning: cleanup: ${errorMessage(err)}\n`));
  await flushStdout();
  signals.stop();
  return 0;
}
