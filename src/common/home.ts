/**
 * Where zot keeps its state ($ZOT_HOME) and the fixed layout under it.
 * Resolution order (extensions.md "Layout & discovery"): ZOT_HOME; then
 * $XDG_STATE_HOME/zot on any platform; then the platform default
 * (~/Library/Application Support/zot, %LOCALAPPDATA%\zot — or
 * ~\AppData\Local\zot when LOCALAPPDATA is unset or empty —, ~/.local/state/zot).
 * A relative ZOT_HOME or XDG_STATE_HOME is made absolute against the
 * working directory zot started in (the same directory, but paths zot hands
 * out — the bash tool's full-output file, a subagent's home — stay right
 * when `--cwd` points elsewhere); kept as given if that directory is gone.
 * A leading `~` or `~/` (left unexpanded where no shell reads the value:
 * GitHub Actions' `env:`, `docker -e`) is the user's home directory, not a
 * directory named `~` in the checkout.
 * Pure functions of the environment: nothing is created here.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

export interface HomeEnv {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  readonly home: string;
  /** Where relative settings are anchored (default: the process's working directory). */
  readonly cwd?: string;
}

function currentHomeEnv(): HomeEnv {
  return { env: process.env, platform: process.platform, home: homedir() };
}

function absolute(path: string, cwd: string | undefined, home: string): string {
  // `~` is not expanded where no shell reads the value (GitHub Actions' env:, docker -e): the user's home is meant, not a directory named "~".
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  if (isAbsolute(path)) return path;
  try {
    return resolve(cwd ?? process.cwd(), path);
  } catch {
    // the working directory was removed: as given (common/cwd.ts reports that where it matters)
    return path;
  }
}

export function resolveZotHome(input: HomeEnv = currentHomeEnv()): string {
  const { env, platform, home } = input;
  if (env.ZOT_HOME) return absolute(env.ZOT_HOME, input.cwd, home);
  if (env.XDG_STATE_HOME) return join(absolute(env.XDG_STATE_HOME, input.cwd, home), "zot");
  if (platform === "darwin") return join(home, "Library", "Application Support", "zot");
  if (platform === "win32") {
    // An empty LOCALAPPDATA counts as unset (never a relative "zot").
    const local = env.LOCALAPPDATA || join(home, "AppData", "Local");
    return join(local, "zot");
  }
  return join(home, ".local", "state", "zot");
}

/**
 * A relative ZOT_HOME in zot's own environment made absolute (once, at
 * start), so that what zot starts — bash commands, extensions, MCP servers,
 * subagents, each in its own working directory — finds the same home.
 */
export function anchorZotHome(env: Record<string, string | undefined> = process.env): void {
  const value = env.ZOT_HOME;
  if (value) env.ZOT_HOME = absolute(value, undefined, homedir());
}

/** The fixed layout under $ZOT_HOME. */
export interface ZotPaths {
  readonly home: string;
  readonly logs: string;
  readonly extensions: string;
  readonly sessions: string;
  readonly authFile: string;
  readonly configFile: string;
  readonly modelsFile: string;
  /** The original zot's live model list (read, never written: providers/models-cache.ts). */
  readonly modelsCacheFile: string;
  readonly systemPromptFile: string;
}

export function zotPaths(home: string = resolveZotHome()): ZotPaths {
  return {
    home,
    logs: join(home, "logs"),
    extensions: join(home, "extensions"),
    sessions: join(home, "sessions"),
    authFile: join(home, "auth.json"),
    configFile: join(home, "config.json"),
    modelsFile: join(home, "models.json"),
    modelsCacheFile: join(home, "models-cache.json"),
    systemPromptFile: join(home, "SYSTEM.md"),
  };
}

/** Log file of one extension: $ZOT_HOME/logs/ext-<name>.log. */
export function extensionLogPath(paths: ZotPaths, name: string): string {
  return join(paths.logs, `ext-${name}.log`);
}
