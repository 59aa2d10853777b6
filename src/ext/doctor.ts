/**
 * `zot ext doctor`: runs the real startup path (discovery, spawn, handshake,
 * ready wait under the startup deadline: config.json's ext_ready_timeout_ms
 * or ZOT_EXT_READY_TIMEOUT_MS, 15 s by default) and reports what happened instead
 * of failing soft: manifest errors, disabled and shadowed extensions, load
 * errors, ready vs auto-ready, registered commands and tools, frames dropped
 * during the run (count and the last reasons), rejected registrations (with
 * the reason), registration conflicts, notes the extensions pushed, theme
 * files of theme-only bundles that do not validate (naming file and slot),
 * and each log path. Stops every extension before returning, quickly (0.5 s to exit,
 * then SIGTERM, 0.25 s, SIGKILL), so doctor finishes within the startup
 * bound plus a second even when an extension never speaks. Exit code 1 when
 * anything failed to load (a rejected registration counts; a shadowed one
 * does not).
 *
 * Project trust: the project's own extensions are started only when the
 * store trusts the project as it is now, or with `trust` (--trust or
 * ZOT_TRUST=1); else
 * they are listed as not started with their state (untrusted / changed /
 * denied) and how to allow them. Never asks, never records. Not starting
 * them is not a problem for the exit code.
 */
import { loadConfig } from "../common/config.ts";
import type { ZotPaths } from "../common/home.ts";
import { extensionLogPath } from "../common/home.ts";
import { formatCount } from "./drop-log.ts";
import type { ExtensionUI } from "./host.ts";
import { ExtensionManager, extensionReadyTimeout } from "./manager.ts";
import { describeRefusal } from "./registry.ts";
import type { DiscoveredExtension, DiscoveryReport } from "./discovery.ts";
import { currentProjectTrust } from "./project-trust.ts";
import { itemTrustState } from "../trust/state.ts";

const DOCTOR_SHUTDOWN_GRACE_MS = 500;
const DOCTOR_KILL_GRACE_MS = 250;

export interface DoctorOptions {
  readonly cwd: string;
  readonly paths: ZotPaths;
  readonly explicit: readonly string[];
  readonly noExt: boolean;
  readonly write?: (text: string) => void;
  /** --trust: start the project's own extensions even when the project is not trusted. */
  readonly trust?: boolean;
}

const READY_LABEL = {
  ready: "ready",
  auto: "auto-ready (sent no ready frame; readied after idle)",
  timeout: "not ready before the startup deadline",
  pending: "pending",
} as const;

export async function runDoctor(options: DoctorOptions): Promise<number> {
  const out: string[] = [];
  const line = (text = ""): void => void out.push(text);
  const warnings: string[] = [];
  const ui: ExtensionUI = {
    notify: (extension, level, message) => warnings.push(`[${extension}] ${level}: ${message}`),
    clearNotes: () => {},
    submit: () => {},
    panelRender: () => {},
    panelClose: () => {},
    extensionFailed: (extension, message) => warnings.push(`${extension} failed after loading: ${message}`),
  };
  const readyTimeoutMs = extensionReadyTimeout(loadConfig(options.paths.configFile).config.ext_ready_timeout_ms);
  let trust: Awaited<ReturnType<typeof currentProjectTrust>> | undefined;
  const projectGate = async (report: DiscoveryReport): Promise<boolean> => {
    trust = await currentProjectTrust(options.cwd, options.paths, report);
    return options.trust === true || trust.status.state === "trusted" || trust.status.state === "empty";
  };
  const manager = new ExtensionManager({
    paths: options.paths,
    cwd: options.cwd,
    provider: "doctor",
    model: "doctor",
    explicit: options.explicit,
    noDiscovery: options.noExt,
    ui,
    readyTimeoutMs,
    shutdownGraceMs: DOCTOR_SHUTDOWN_GRACE_MS,
    killGraceMs: DOCTOR_KILL_GRACE_MS,
    projectGate,
  });
  const started = Date.now();
  let themeErrors: string[] = [];
  try {
    await manager.start();
    themeErrors = await themeProblems(manager);
    describe(manager, options, { elapsedMs: Date.now() - started, boundMs: readyTimeoutMs }, warnings, line);
    describeTrust(manager.discovery?.untrusted ?? [], trust, options, line);
    if (themeErrors.length > 0) {
      line();
      line(`theme errors: ${themeErrors.length}`);
      for (const error of themeErrors) line(`  ✗ ${error}`);
    }
  } finally {
    await manager.shutdown();
  }
  const failed = themeErrors.length + manager.loadErrors.length + (manager.discovery?.manifestErrors.length ?? 0) + manager.registry.rejectedTotal;
  line();
  line(failed > 0 ? `${failed} problem(s) found` : "no problems found");
  (options.write ?? ((text: string) => process.stdout.write(text)))(`${out.join("\n")}\n`);
  return failed > 0 ? 1 : 0;
}

/** The project's trust state and, when it was not trusted, what was not started and how to allow it. */
function describeTrust(untrusted: readonly DiscoveredExtension[], trust: Awaited<ReturnType<typeof currentProjectTrust>> | undefined, options: DoctorOptions, line: (text?: string) => void): void {
  if (trust === undefined) return;
  const { status, warning } = trust;
  line();
  line(`project trust: ${status.state}${options.trust === true && status.state !== "trusted" ? " (started anyway: --trust or ZOT_TRUST=1)" : ""}`);
  if (warning !== undefined) line(`  ! ${warning}`);
  for (const entry of untrusted) {
    const name = entry.loaded.manifest.name;
    line(`  - ${name} (project, ${itemTrustState(status, name)}) — not started`);
    line(`      directory: ${entry.loaded.dir}`);
  }
  if (untrusted.length > 0) line(`  allow with 'zot ext doctor --trust' (this run) or 'zot trust ${status.dir}' (record it)`);
}

/** Validation errors of the bundles' theme files (theme.json / themes/theme.json), each naming the file and slot. */
async function themeProblems(manager: ExtensionManager): Promise<string[]> {
  const { readThemeFile, themeFileOf } = await import("../themes/file.ts");
  const checks = (manager.discovery?.bundles ?? []).flatMap((bundle) => {
    const file = themeFileOf(bundle.loaded.dir);
    return file === undefined ? [] : [readThemeFile(file, bundle.loaded.manifest.name)];
  });
  return (await Promise.all(checks)).flatMap((result) => (result.ok ? [] : [result.error]));
}

function describe(
  manager: ExtensionManager,
  options: DoctorOptions,
  timing: { readonly elapsedMs: number; readonly boundMs: number },
  warnings: readonly string[],
  line: (text?: string) => void,
): void {
  const report = manager.discovery!;
  line(`zot ext doctor — startup took ${timing.elapsedMs} ms (bound ${timing.boundMs} ms)`);
  line(`  project dir: ${options.cwd}/.zot/extensions`);
  line(`  global dir:  ${options.paths.extensions}`);
  line();

  const loaded = manager.connections();
  line(`extensions loaded: ${loaded.length}`);
  const tools = manager.registry.tools();
  const commands = manager.registry.commands();
  for (const connection of loaded) {
    line(`  ✓ ${connection.name} ${connection.helloVersion ?? connection.loaded.manifest.version ?? ""} (${connection.source}) — ${READY_LABEL[connection.readyState]}`);
    line(`      directory: ${connection.dir}`);
    const startupMs = manager.startupTimes.get(connection.name);
    if (startupMs !== undefined) line(`      startup: ${startupMs} ms`);
    const own = commands.filter((c) => c.extension === connection.name).map((c) => `/${c.name}`);
    const ownTools = tools.filter((t) => t.extension === connection.name).map((t) => `${t.name}${t.deferred ? " (deferred)" : ""}${t.interactive ? " (interactive)" : ""}`);
    line(`      commands: ${own.length ? own.join(", ") : "(none)"}`);
    line(`      tools: ${ownTools.length ? ownTools.join(", ") : "(none)"}`);
    if (connection.drops.total > 0) {
      line(`      dropped frames: ${formatCount(connection.drops.total)}; last ${connection.drops.recent.length}:`);
      for (const reason of connection.drops.recent) line(`        - ${reason}`);
    }
    line(`      log: ${connection.log.path}`);
  }
  for (const bundle of report.bundles) {
    line(`  ✓ ${bundle.loaded.manifest.name} (${bundle.source}) — ${bundle.loaded.kind}-only bundle, not spawned`);
    line(`      directory: ${bundle.loaded.dir}`);
  }

  if (manager.loadErrors.length > 0) {
    line();
    line(`load errors: ${manager.loadErrors.length}`);
    for (const error of manager.loadErrors) for (const text of `✗ ${error.message}`.split("\n")) line(`  ${text}`);
  }
  if (report.manifestErrors.length > 0) {
    line();
    line(`manifest errors: ${report.manifestErrors.length}`);
    for (const error of report.manifestErrors) line(`  ✗ ${error.message}`);
  }
  if (report.disabled.length > 0) {
    line();
    line("disabled (skipped):");
    for (const entry of report.disabled) line(`  - ${entry.loaded.manifest.name} (${entry.source}) ${entry.loaded.dir}`);
  }
  if (report.shadowed.length > 0) {
    line();
    line("shadowed (never spawned; the name is taken):");
    for (const entry of report.shadowed) {
      line(`  - ${entry.loaded.manifest.name} (${entry.source}) ${entry.loaded.dir}`);
      line(`      held by ${entry.heldBy}; log: ${extensionLogPath(options.paths, entry.loaded.manifest.name)}`);
    }
  }
  const registry = manager.registry;
  if (registry.rejected.length > 0) {
    line();
    line("rejected registrations:");
    for (const rejected of registry.rejected) {
      line(`  - ${rejected.extension}: ${describeRefusal({ ok: false, rejected })}`);
    }
    for (const extension of registry.refusedExtensions()) {
      const omitted = registry.omittedRefusals(extension).rejected;
      if (omitted > 0) line(`  - ${extension}: … and ${formatCount(omitted)} more (see its log)`);
    }
  }
  if (registry.shadowed.length > 0) {
    line();
    line("registration conflicts:");
    for (const conflict of registry.shadowed) {
      const label = conflict.kind === "command" ? `command /${conflict.name}` : `tool "${conflict.name}"`;
      const reachable = conflict.qualified === undefined ? "" : `; reachable as /${conflict.qualified}`;
      line(`  - ${conflict.extension}: ${label} not registered, already taken by ${conflict.heldBy}${reachable}`);
    }
    for (const extension of registry.refusedExtensions()) {
      const omitted = registry.omittedRefusals(extension).shadowed;
      if (omitted > 0) line(`  - ${extension}: … and ${formatCount(omitted)} more (see its log)`);
    }
  }
  if (warnings.length > 0) {
    line();
    line("warnings:");
    for (const warning of warnings) for (const text of warning.split("\n")) line(`  ${text}`);
  }
}
