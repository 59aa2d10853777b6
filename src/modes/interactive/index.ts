/**
 * `zot` on a terminal: the chat screen (docs/interactive.md). Sets up like
 * print mode (setup.ts: provider, tools, skills, extensions, session; new by
 * default, --continue / --session; --resume opens the /sessions picker on
 * the chat screen instead of the headless numbered prompt) with the interactive
 * additions (interactive tools, the --no-yolo confirmation, the extension
 * UI), then hands the terminal to the app (src/tui Renderer on the main
 * screen: finished content goes to scrollback once, the live region is
 * redrawn by diff) until the user leaves. A resumed conversation is replayed
 * into scrollback first (replay.ts). Extensions start in the background: the
 * screen paints and takes input at once, the status bar says which are still
 * loading or failed, and their tools and commands join as each becomes
 * ready; an untrusted project's own extensions wait for the trust dialog
 * (trust-dialog.ts). A positional prompt pre-fills the editor; it is not sent. Without
 * any API key the screen starts anyway and opens the login dialog. Once the
 * screen is up, a background update check may add one "zot X is available"
 * line (upgrade/update-check.ts; never in CI or with ZOT_NO_UPDATE_CHECK=1).
 *
 * Exit: /exit, Ctrl+D, Ctrl+C twice → 0; SIGTERM / SIGHUP / SIGINT → 143 /
 * 129 / 130. Either way the running turn is aborted, the live region erased,
 * the terminal restored, then cleanup runs (session_end "shutdown",
 * extensions shut down, the session file closed). A setup failure restores
 * nothing (the terminal was never touched) and propagates as `zot: …`.
 */
import { homedir } from "node:os";
import type { AgentEvent } from "../../agent/events.ts";
import { gateForMode } from "../../agent/permissions.ts";
import { errorMessage } from "../../common/errors.ts";
import { zotPaths } from "../../common/home.ts";
import { ZOT_SEMVER, ZOT_VERSION } from "../../common/version.ts";
import type { MainFlags } from "../../cli/flags.ts";
import { loadCatalog, type Catalog } from "../../providers/index.ts";
import { processTerminal, Renderer, type Key, type TerminalOutput } from "../../tui/index.ts";
import { loadConfig } from "../../common/config.ts";
import { stripSgr } from "../../common/no-color.ts";
import { ThemeState } from "./theme-state.ts";
import { instrumentRenderer } from "./tui-stats.ts";
import { Cleanup } from "../cleanup.ts";
import { parseHeadlessOptions } from "../options.ts";
import { InterruptedError } from "../prompt-input.ts";
import { setupHeadless } from "../setup.ts";
import { InteractiveApp } from "./app.ts";
import { DeferredExtensionUI } from "./ext-ui.ts";
import { PromptHistory } from "./history.ts";
import { handleKey } from "./keymap.ts";
import { runLogin } from "./login-dialog.ts";
import { replayConversation } from "./replay.ts";
import { openSessionsPicker } from "./sessions-dialog.ts";
import { SIGNAL_EXIT_CODES, watchSignals } from "../signals.ts";
import { TrustPrompt } from "./trust-dialog.ts";
import { queueStderr } from "../../common/stderr.ts";

export { colorEnabled } from "../../themes/index.ts";

/** The terminal with every SGR removed from what is written (NO_COLOR: outside text loses its colours too). */
function withoutColour(output: TerminalOutput): TerminalOutput {
  return {
    get size() {
      return output.size;
    },
    reflow: output.reflow,
    write: (data) => output.write(stripSgr(data)),
  };
}

export async function runInteractive(flags: MainFlags): Promise<number> {
  const parsed = parseHeadlessOptions(flags);
  // --resume opens the /sessions picker on the chat screen (a new session until one is chosen).
  const resumePicker = parsed.session.kind === "resume";
  const options = resumePicker ? { ...parsed, session: { kind: "new" as const } } : parsed;
  const themes = new ThemeState();
  const theme = themes.theme;
  const extensionUI = new DeferredExtensionUI();
  const trustPrompt = new TrustPrompt();
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
  const early: AgentEvent[] = [];
  const onEvent = (event: AgentEvent): void => (app === undefined ? void early.push(event) : app.agentEvent(event));
  let terminal: ReturnType<typeof processTerminal> | undefined;
  let renderer: Renderer | undefined;
  let recordStats = (): void => {};
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
        interactive: {
          permissions: flags.noYolo ? gate : undefined,
          compaction: { onCompactionStart: (info) => app?.compactionStarted(info.messageCount), onCompactionEnd: (info) => app?.compactionEnded(info.status, info.messageCount) },
          onExtensionProblems: (errors) => extensionUI.loadProblems(errors),
          allowMissingCredential: true,
          askTrust: trustPrompt.ask,
          trustNote: trustPrompt.note,
        },
      },
      cleanup,
    );
    if (setupAbort.signal.aborted) throw new InterruptedError();
    let catalog: Promise<Catalog> | undefined;
    const paths = zotPaths();
    const tty = processTerminal();
    terminal = tty;
    const { loadExtensionThemes } = await import("../../themes/load.ts");
    const found = await loadExtensionThemes({ cwd: runtime.cwd, paths, explicit: flags.ext, noDiscovery: flags.noExt });
    const themeWarnings = [...found.errors.map((error) => `zot: warning: theme: ${error}`)];
    themeWarnings.push(...(await themes.start({ env: process.env, paths, configTheme: loadConfig(paths.configFile).config.theme, themes: found.themes, probe: (ms) => tty.probeBackground(ms) })));
    const started = new InteractiveApp({
      runtime,
      theme,
      themes,
      gate,
      noYolo: flags.noYolo,
      jailed: flags.jail,
      home: process.env.HOME ?? homedir(),
      history: new PromptHistory({ zotHome: paths.home, cwd: runtime.cwd, warn: (text) => warn(text) }),
      catalog: () => (catalog ??= loadCatalog(paths.modelsFile, paths.modelsCacheFile)),
      size: () => tty.size,
      suspend: async () => {
        // The live region is erased first, so the shell's prompt comes where it was; on `fg` it is drawn again below.
        if (!tty.canSuspend()) return false;
        renderer?.suspend();
        return tty.suspend(() => renderer?.resume());
      },
    });
    app = started;
    confirmer = started.confirmer;
    warn = (text) => started.chat.warn(text.replace(/\n$/, ""));
    printBanner(started, flags.noYolo);
    showUpdateNotice(started, paths.home);
    for (const line of themeWarnings) started.chat.warn(line);
    for (const event of early.splice(0)) started.agentEvent(event);
    extensionUI.attach(started);
    trustPrompt.attach(started);
    if (flags.prompt.trim() !== "") started.editor.setText(flags.prompt);
    const output = themes.colors ? tty : withoutColour(tty);
    const stats = instrumentRenderer(output, started);
    const screen = new Renderer(stats?.output ?? output, stats?.source ?? started);
    recordStats = () => stats?.write(screen);
    renderer = screen;
    tty.start({
      onKey: (key: Key) => {
        if (started.exiting) return;
        try {
          handleKey(started, key);
        } catch (err) {
          started.chat.error(`zot: ${errorMessage(err)}`);
        }
        screen.requestFrame();
      },
      onResize: () => screen.resize(),
      // Continued after an outside stop during which a shell had the terminal: the region is drawn again below its output.
      onContinue: () => screen.restart(),
      // kill -TSTP: the same as Ctrl+Z (the live region erased and the terminal restored before zot stops).
      onStopRequest: () => {
        if (!started.exiting) started.suspend();
      },
    });
    started.attach(screen);
    screen.flush();
    if (runtime.credentialMissing) void runLogin(started, "", { firstRun: true });
    if (resumePicker) void openSessionsPicker(started, { startup: true }).catch((err: unknown) => started.chat.error(`zot: ${errorMessage(err)}`));
    void runtime.extensionsStarted.then(() => screen.requestFrame());
    code = await started.closed;
    await started.shutdown();
  } catch (err) {
    failure = err;
  }
  renderer?.stop();
  recordStats();
  terminal?.restore();
  await cleanup.run((err) => queueStderr(`zot: warning: cleanup: ${errorMessage(err)}\n`));
  signals.stop();
  if (signalCode !== undefined) {
    if (app === undefined) queueStderr("zot: interrupted\n");
    return signalCode;
  }
  if (failure !== undefined) throw failure;
  return code;
}

/** "zot X is available" (upgrade/update-check.ts: off in CI and with ZOT_NO_UPDATE_CHECK=1), in the background: never delays the screen. */
function showUpdateNotice(app: InteractiveApp, zotHome: string): void {
  void import("../../upgrade/update-check.ts")
    .then(({ updateNotice }) => updateNotice({ env: process.env, zotHome, currentVersion: ZOT_SEMVER, fromSource: ZOT_VERSION.endsWith("-dev") }))
    .then(
      (notice) => {
        if (notice === undefined || app.exiting) return;
        app.chat.info(notice);
        app.frame();
      },
      () => undefined,
    );
}

function printBanner(app: InteractiveApp, noYolo: boolean): void {
  const { agent, cwd, session } = app.runtime;
  const { chat } = app;
  chat.plain(`zot ${ZOT_SEMVER} · ${agent.model.provider}/${agent.model.id} · ${cwd}`);
  const messages = session.loaded?.messages ?? [];
  if (messages.length > 0) {
    replayConversation(chat, messages);
    if (session.writer !== undefined) chat.info(`resumed ${messages.length} message(s) from ${session.writer.path}`);
  }
  if (noYolo) chat.info("--no-yolo: every tool call asks first (/yolo turns that off)");
  chat.info("Enter sends · Alt+Enter or a trailing \\ for a new line · / commands · @ files · Ctrl+C twice to exit");
}
