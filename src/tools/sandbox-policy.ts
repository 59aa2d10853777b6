/**
 * What every OS sandbox of the jailed `bash` tool shares (docs/jail.md): the
 * request and plan types, the environment a jailed command gets (secret-
 * looking names removed, TMPDIR pointing at the private temp dir), the
 * ZOT_JAIL_NETWORK and ZOT_JAIL_READ settings, and the refusal message.
 */
export interface SandboxRequest {
  /** Canonical jail root. */
  readonly jailRoot: string;
  /** Canonical working directory (inside the jail). */
  readonly cwd: string;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** zot's private directory for per-command temp dirs (macOS). */
  readonly privateDir: string;
}

export type SandboxKind = "bwrap" | "sandbox-exec";

export type SandboxPlan =
  | {
      readonly ok: true;
      readonly kind: SandboxKind;
      readonly argv: string[];
      readonly env: Record<string, string>;
      /** Removes what the plan created (a private temp dir); call after the command. */
      readonly cleanup: () => Promise<void>;
      /**
       * After a failed run: the refusal when the sandbox itself could not be
       * set up (its own message starts the stderr pipe, which carries nothing
       * else: the shell merges the command's stderr into stdout), else undefined.
       */
      readonly setupFailure: (stderr: string) => string | undefined;
    }
  | { readonly ok: false; readonly message: string };

/** Names (case-insensitive) of variables kept out of a jailed command's environment. */
const SECRET_ENV_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

/** The environment a jailed command gets: the given one minus secret-looking names, TMPDIR set. */
export function jailedEnv(env: Readonly<Record<string, string | undefined>>, tmp: string): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_ENV_NAME.test(name)) continue;
    kept[name] = value;
  }
  kept.TMPDIR = tmp;
  return kept;
}

/** True when ZOT_JAIL_NETWORK asks for network access inside the jail. */
export function jailNetworkAllowed(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.ZOT_JAIL_NETWORK;
  return value === "1" || value === "true" || value === "yes";
}

/** Extra read-only paths from ZOT_JAIL_READ (colon-separated absolute paths). */
export function extraReadPaths(env: Readonly<Record<string, string | undefined>>): string[] {
  return (env.ZOT_JAIL_READ ?? "").split(":").filter((path) => path.startsWith("/"));
}

/** The first line of `stderr` when it is the sandbox's own message (`<prefix>: …`). */
export function sandboxMessage(stderr: string, prefix: string): string | undefined {
  return stderr.startsWith(`${prefix}:`) ? (stderr.split("\n")[0] as string).trim() : undefined;
}

export function refusal(why: string, how: string): SandboxPlan {
  return { ok: false, message: `bash is refused under --jail: ${why}. ${how} (or run zot without --jail).` };
}
