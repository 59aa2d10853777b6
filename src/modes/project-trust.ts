/**
 * The project-trust gate of one run (docs/extensions.md "Project trust").
 * Whether the project's own extensions (./.zot/extensions: processes,
 * skills and agent definitions from their manifests) and its ./.zot/mcp.json
 * servers may start, decided once per fingerprint:
 *   1. a swarm child takes its parent's decision (`inherited`), silently;
 *   2. --trust or ZOT_TRUST=1 → yes for this run (nothing recorded);
 *   3. nothing project-local → yes; the store trusts exactly this
 *      fingerprint → yes;
 *   4. otherwise headless: no, with one stderr line per run naming what was
 *      not started (project extensions by name, MCP servers by their file:
 *      notStartedText) and the three ways to allow it; interactive (`ask`): a
 *      stored "denied" for this fingerprint → no plus a note, else the
 *      dialog's answer (trust: recorded; once: yes, not recorded; skip:
 *      "denied" recorded, so the same content is not asked about again).
 * `settled()` answers without asking (interactive setup: skills and agent
 * definitions are read before the screen is up, so a project that still
 * needs the dialog contributes none of them this run). `includeProject()`
 * is the decision for MCP (`loadMcpServers({ includeProject })`); in
 * interactive mode it may wait for the dialog, so never await it before the
 * chat screen is up.
 */
import { errorMessage } from "../common/errors.ts";
import type { ZotPaths } from "../common/home.ts";
import type { DiscoveryReport } from "../ext/discovery.ts";
import type { ExtensionManager } from "../ext/manager.ts";
import {
  type ProjectTrustStatus, describeChanges, recordDecision, trustStorePath, trustedByEnv,
} from "../trust/index.ts";

/** trust: record and start; once: start, not recorded; skip: record "denied"; dismiss: neither (Esc). */
export type TrustChoice = "trust" | "once" | "skip" | "dismiss";

export interface ProjectTrustOptions {
  readonly cwd: string;
  readonly paths: ZotPaths;
  /** --trust was given. */
  readonly flagTrust: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A swarm child: the parent's decision (undefined: decide here). */
  readonly inherited?: boolean;
  /** Writes complete stderr lines (headless) or transcript warnings (interactive). */
  readonly warn: (text: string) => void;
  /** Interactive: asks the user (trust-dialog.ts). Absent: headless. */
  readonly ask?: (status: ProjectTrustStatus) => Promise<TrustChoice>;
  /** Interactive: an informational line in the transcript. */
  readonly note?: (text: string) => void;
}

function day(iso: string | undefined): string {
  return iso?.slice(0, 10) ?? "?";
}

/** Why nothing project-local started, e.g. `/p is not trusted` or `changed since trusted on 2026-12-01: a changed`. */
export function untrustedReason(status: ProjectTrustStatus): string {
  if (status.state === "denied") return `denied for ${status.dir} on ${day(status.entry?.at)}`;
  if (status.state === "changed") {
    const was = status.entry?.decision === "denied" ? "denied" : "trusted";
    return `changed since ${was} on ${day(status.entry?.at)}: ${describeChanges(status.changes) || "contents differ"}`;
  }
  return `${status.dir} is not trusted`;
}

/**
 * What the gate left out, named by kind: `project extensions not started: a, b`,
 * `project MCP servers not started: ./.zot/mcp.json`, or both
 * (`project extensions and MCP servers not started: a, b, ./.zot/mcp.json`).
 */
export function notStartedText(items: readonly { readonly kind: string; readonly name: string }[]): string {
  const extensions = items.filter((item) => item.kind !== "mcp").map((item) => item.name);
  const mcp = items.filter((item) => item.kind === "mcp").map((item) => `./${item.name}`);
  const what = extensions.length === 0 ? "project MCP servers" : mcp.length === 0 ? "project extensions" : "project extensions and MCP servers";
  return `${what} not started: ${[...extensions, ...mcp].join(", ")}`;
}

export function allowHint(dir: string): string {
  return `allow with --trust (this run), 'zot trust ${dir}' (record it) or ZOT_TRUST=1 (CI images)`;
}

/** The manager's discovery as far as the gate allows without asking (skills, agent definitions). */
export async function trustedDiscovery(manager: ExtensionManager, trust: ProjectTrust): Promise<DiscoveryReport> {
  return manager.discoverFor(await trust.settled(await manager.discover()));
}

/** The gate of one run from its setup input: --trust, ZOT_TRUST, a swarm child's inherited decision, the interactive dialog. */
export function runProjectTrust(
  input: {
    readonly flags: { readonly trust: boolean };
    readonly warn: (text: string) => void;
    readonly interactive?: { readonly askTrust?: ProjectTrustOptions["ask"]; readonly trustNote?: (text: string) => void };
    readonly swarmChild?: { readonly projectTrust?: boolean };
  },
  cwd: string,
  paths: ZotPaths,
): ProjectTrust {
  return new ProjectTrust({
    cwd,
    paths,
    flagTrust: input.flags.trust,
    env: process.env,
    inherited: input.swarmChild?.projectTrust,
    warn: input.warn,
    ask: input.interactive?.askTrust,
    note: input.interactive?.trustNote,
  });
}

export class ProjectTrust {
  readonly #options: ProjectTrustOptions;
  readonly #decisions = new Map<string, Promise<boolean>>();
  #last: boolean | undefined;
  #storeWarned = false;

  constructor(options: ProjectTrustOptions) {
    this.#options = options;
  }

  /** The latest decision of this run (what a swarm child inherits); undefined before any. */
  get decided(): boolean | undefined {
    return this.#options.inherited ?? (this.#options.flagTrust || trustedByEnv(this.#options.env) ? true : this.#last);
  }

  /** The decision for this discovery; asks in interactive mode (at most once per fingerprint). */
  decide(report: DiscoveryReport): Promise<boolean> {
    return this.#status(report).then((status) => this.#decide(status, true));
  }

  /** The decision when it needs no question (interactive: an undecided project is false, without a warning). */
  settled(report: DiscoveryReport): Promise<boolean> {
    return this.#status(report).then((status) => this.#decide(status, this.#options.ask === undefined));
  }

  /** The decision for ./.zot/mcp.json (and everything else project-local), from a discovery of its own. */
  async includeProject(): Promise<boolean> {
    const { discoverProject } = await import("../ext/project-trust.ts");
    return this.decide(await discoverProject(this.#options.cwd, this.#options.paths));
  }

  /** The project's status for a discovery; undefined when the caller's flags or parent already decided. */
  async #status(report: DiscoveryReport): Promise<ProjectTrustStatus | undefined> {
    const { inherited, flagTrust, env } = this.#options;
    if (inherited !== undefined || flagTrust || trustedByEnv(env)) return undefined;
    // Lazy: the fingerprint bridge imports the host's exec resolution.
    const { currentProjectTrust } = await import("../ext/project-trust.ts");
    const { status, warning } = await currentProjectTrust(this.#options.cwd, this.#options.paths, report);
    if (warning !== undefined && !this.#storeWarned) {
      this.#storeWarned = true;
      this.#options.warn(`zot: warning: ${warning}\n`);
    }
    return status;
  }

  async #decide(status: ProjectTrustStatus | undefined, mayAsk: boolean): Promise<boolean> {
    if (status === undefined) return this.decided ?? true;
    if (status.state === "empty" || status.state === "trusted") return this.#remember(true);
    if (!mayAsk) return false;
    const key = status.current.fingerprint;
    let decision = this.#decisions.get(key);
    if (decision === undefined) {
      decision = this.#ask(status);
      this.#decisions.set(key, decision);
    }
    return this.#remember(await decision);
  }

  #remember(allowed: boolean): boolean {
    this.#last = allowed;
    return allowed;
  }

  async #ask(status: ProjectTrustStatus): Promise<boolean> {
    const { ask, warn, note } = this.#options;
    const notStarted = notStartedText(status.current.items);
    if (ask === undefined) {
      warn(`zot: warning: ${notStarted} (${untrustedReason(status)}); ${allowHint(status.dir)}\n`);
      return false;
    }
    if (status.state === "denied") {
      note?.(`${notStarted} (${untrustedReason(status)}); run 'zot trust' or start with --trust to allow them`);
      return false;
    }
    const choice = await ask(status);
    if (choice === "once") return true;
    if (choice === "dismiss") return false;
    const file = trustStorePath(this.#options.paths.home);
    try {
      const warnings = await recordDecision(file, status.dir, choice === "trust" ? "trusted" : "denied", status.current.fingerprint, status.current.items);
      for (const warning of warnings) warn(`zot: warning: ${warning}\n`);
    } catch (err) {
      warn(`zot: warning: could not record the decision in ${file}: ${errorMessage(err)}\n`);
    }
    return choice === "trust";
  }
}
