/**
 * Starts a run's extension host (setup.ts): imports the host and creates
 * the manager only when something could load (--ext paths, a non-hidden
 * directory in ./.zot/extensions or $ZOT_HOME/extensions: ext/scopes.ts) or
 * in interactive mode (where /reload-ext may find extensions created later).
 * The project's own extensions pass the trust gate (`projectGate`).
 *
 * `started` resolves once startup finished and its problems were reported
 * (manifest errors, --ext paths whose manifest is disabled, load errors:
 * one warning each, or the interactive mode's `onExtensionProblems`); it
 * never rejects. Cleanup stops extensions still starting at once, and from
 * then on `leaving()` is true: a startup that ends because zot is leaving
 * reports nothing.
 */
import { resolve } from "node:path";
import { ZotError, errorMessage } from "../common/errors.ts";
import type { ZotConfig } from "../common/config.ts";
import type { ZotPaths } from "../common/home.ts";
import type { MainFlags } from "../cli/flags.ts";
import type { ExtensionUI } from "../ext/host.ts";
import type { ExtensionManager } from "../ext/manager.ts";
import { mayFindExtensions } from "../ext/scopes.ts";
import type { ResolvedModel } from "../providers/index.ts";
import type { Cleanup } from "./cleanup.ts";
import type { ProjectTrust } from "./project-trust.ts";
import type { InteractiveSetup } from "./setup.ts";

export interface ExtensionStart {
  readonly flags: MainFlags;
  readonly cwd: string;
  readonly paths: ZotPaths;
  readonly resolved: ResolvedModel;
  readonly warn: (text: string) => void;
  readonly ui: ExtensionUI | undefined;
  readonly config: ZotConfig;
  readonly trust: ProjectTrust;
  readonly interactive: InteractiveSetup | undefined;
}

export interface RunExtensions {
  /** Undefined when nothing could load (the host was never imported). */
  readonly created: Promise<ExtensionManager> | undefined;
  readonly started: Promise<void>;
  readonly leaving: () => boolean;
}

/** An --ext path whose manifest says `"enabled": false` is not started: said, not silently skipped. */
function disabledExplicit(manager: ExtensionManager): ZotError[] {
  return (manager.discovery?.disabled ?? [])
    .filter((entry) => entry.source === "explicit")
    .map(({ loaded }) => new ZotError(
      "ext.disabled",
      `extension "${loaded.manifest.name}" not started: ${loaded.path} says "enabled": false (--ext does not override it)`,
      { dir: loaded.dir },
    ));
}

function startupProblems(manager: ExtensionManager): ZotError[] {
  return [...(manager.discovery?.manifestErrors ?? []), ...disabledExplicit(manager), ...manager.loadErrors];
}

/** Imports the host, then creates the manager; start() is the caller's. */
async function createManager(input: ExtensionStart): Promise<ExtensionManager> {
  const [{ ExtensionManager, extensionReadyTimeout }, { headlessExtensionUI }] = await Promise.all([import("../ext/manager.ts"), import("../ext/host.ts")]);
  return new ExtensionManager({
    readyTimeoutMs: extensionReadyTimeout(input.config.ext_ready_timeout_ms),
    paths: input.paths,
    cwd: input.cwd,
    provider: input.resolved.provider,
    model: input.resolved.model.id,
    explicit: input.flags.ext.map((dir) => resolve(dir)),
    noDiscovery: input.flags.noExt,
    ui: input.ui ?? headlessExtensionUI((text) => input.warn(text)),
    projectGate: (report) => input.trust.decide(report),
  });
}

export function startRunExtensions(input: ExtensionStart, cleanup: Cleanup): RunExtensions {
  const { flags, cwd, paths, warn } = input;
  let leaving = false;
  const isLeaving = (): boolean => leaving;
  if (input.interactive === undefined && !mayFindExtensions({ cwd, globalDir: paths.extensions, explicit: flags.ext, noDiscovery: flags.noExt })) {
    return { created: undefined, started: Promise.resolve(), leaving: isLeaving };
  }
  const created = createManager(input);
  const starting = created.then((manager) => manager.start());
  // Problems are reported once startup finished (the bound passed for a silent extension), whoever waits.
  const started = starting.then(
    async () => {
      if (leaving) return;
      const manager = await created;
      const report = input.interactive?.onExtensionProblems;
      if (report === undefined) for (const error of startupProblems(manager)) warn(`zot: warning: ${error.message}\n`);
      else report(startupProblems(manager));
    },
    (err: unknown) => {
      if (!leaving) warn(`zot: warning: extensions could not start: ${errorMessage(err)}\n`);
    },
  );
  cleanup.add(async () => {
    leaving = true;
    // Stops extensions still starting at once; no need to wait out their bound.
    const manager = await created.catch(() => undefined);
    await manager?.shutdown();
    await starting.catch(() => undefined);
  });
  return { created, started, leaving: isLeaving };
}
