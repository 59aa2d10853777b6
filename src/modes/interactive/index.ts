/**
 * `zot` on a terminal: the line-based interactive mode (docs/interactive.md).
 * Sets up like print mode (setup.ts: provider, tools, skills, extensions,
 * session; new by default, --continue / --resume / --session) with the
 * interactive additions (interactive tools, the --no-yolo confirmation, the
 * extension UI), then hands the terminal to the app until the user leaves.
 * Extensions start in the background: the editor takes input at once, their
 * tools and commands join as each becomes ready, and load problems (an
 * extension that never spoke included, once the startup bound passed) show
 * in the transcript. A positional prompt pre-fills the editor; it is not sent.
 *
 * Exit: /exit, Ctrl+D, Ctrl+C twice → 0; SIGTERM / SIGHUP / SIGINT → 143 /
 * 129 / 130. Either way the running turn is aborted, the live region erased,
 * the terminal restored, then cleanup runs (session_end "shutdown",
 * extensions shut down, the session file closed). A setup failure restores
 * nothing (the terminal was never touched) and propagates as `zot: …`.
 */
import type { AgentEvent } from "../../agent/events.ts";
import { gateForMode } from "../../agent/permissions.ts";
import { errorMessage } from "../../common/errors.ts";
import { zotPaths } from "../../common/home.ts";
import { ZOT_SEMVER } from "../../common/version.ts";
import type { MainFlags } from "../../cli/flags.ts";
import { loadCatalog, type Catalog } from "../../providers/index.ts";
import { Cleanup } from "../cleanup.ts";
import { parseHeadlessOptions } from "../options.ts";
import { InterruptedError } from "../prompt-input.ts";
import { setupHeadless } from "../setup.ts";
import { InteractiveApp } from "./app.ts";
import { DeferredExtensionUI } from "./ext-ui.ts";
import { Screen } from "./screen.ts";
import { colorEnabled, createStyle } from "./style.ts";
import { openTerminal } from "./terminal.ts";
import { Transcript } from "./transcript.ts";
import { SIGNAL_EXIT_CODES, watchSignals } from "../signals.ts";
import { queueStderr } from "../../common/stderr.ts";

export async function runInteractive(flags: MainFlags): Promise<number> {
  const options = parseHeadlessOptions(flags);
  const io = openTerminal();
  const style = createStyle(colorEnabled(process.env, true));
  const screen = new Screen(io);
  const transcript = new Transcript(screen, style);
  const extensionUI = new DeferredExtensionUI();
  const cleanup = new Cleanup();
  const setupAbort = new AbortController();
  let app: InteractiveApp | undefined;
  let signalCode: number | undefined;
  const signals = watchSignals({
    signals: ["SIGINT", "SIGTERM", "SIGHUP"],
    onSignal: (name) => {
      const code = SIGNAL_EXIT_CODES[name];
      signalCode ??= code;
      if (app !== undefined) app.exit(code);
      else setupAbort.abort();
    },
  });
  // Warnings go to stderr while setting up, into the transcript afterwards.
  let warn = (text: string): void => queueStderr(text);
  const onEvent = (event: AgentEvent): void => transcript.event(event);
  let code = 0;
  let failure: unknown;
  try {
    let confirmer: InteractiveApp["confirmer"] | undefined;
    const gate = gateForMode({
      noYolo: flags.noYolo,
      confirmer: { confirm: (request) => (confirmer === undefined ? Promise.resolve("cancel") : confirmer.confirm(request)) },
      warn: (line) => warn(line),
    });
    const runtime = await setupHeadless(
      {
        flags,
        options,
        onEvent,
        warn: (text) => warn(text),
        signal: setupAbort.signal,
        extensionUI,
        interactive: { permissions: flags.noYolo ? gate : undefined },
      },
      cleanup,
    );
    if (setupAbort.signal.aborted) throw new InterruptedError();
    let catalog: Promise<Catalog> | undefined;
    const started = new InteractiveApp({
      runtime,
      screen,
      transcript,
      style,
      gate,
      catalog: () => (catalog ??= loadCatalog(zotPaths().modelsFile)),
    });
    app = started;
    confirmer = started.confirmer;
    warn = (text) => transcript.warn(text.replace(/\n$/, ""));
    printBanner(started, transcript, flags.noYolo);
    extensionUI.attach(started);
    if (flags.prompt.trim() !== "") started.editor.set(flags.prompt);
    io.start(
      (chunk) => started.input(chunk),
      () => screen.redraw(),
    );
    screen.start(() => started.view());
    code = await started.closed;
    await started.shutdown();
  } catch (err) {
    failure = err;
  }
  screen.stop();
  io.restore();
  await cleanup.run((err) => queueStderr(`zot: warning: cleanup: ${errorMessage(err)}\n`));
  signals.stop();
  if (signalCode !== undefined) {
    if (app === undefined) queueStderr("zot: interrupted\n");
    return signalCode;
  }
  if (failure !== undefined) throw failure;
  return code;
}

function printBanner(app: InteractiveApp, transcript: Transcript, noYolo: boolean): void {
  const { agent, cwd, session } = app.runtime;
  transcript.plain(`zot ${ZOT_SEMVER} · ${agent.model.provider}/${agent.model.id} · ${cwd}`);
  const resumed = session.loaded?.messages.length ?? 0;
  if (resumed > 0 && session.writer !== undefined) transcript.info(`resumed ${resumed} message(s) from ${session.writer.path}`);
  if (noYolo) transcript.info("--no-yolo: every tool call asks first (/yolo turns that off)");
  transcript.info("Enter sends · Alt+Enter or a trailing \\ for a new line · /help for commands · Ctrl+C twice to exit");
}
