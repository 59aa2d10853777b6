/**
 * `zot login <provider>` and `zot logout [provider|all]`: the headless side
 * of /login and /logout. login reads the API key from stdin when stdin is
 * not a terminal (all of it, at most MAX_STDIN_BYTES, trimmed; it must be
 * one line), else asks for it on the terminal with echo off (Enter ends it,
 * Backspace deletes, Ctrl+C or Ctrl+D on an empty line cancels), checks it
 * (credentials.ts checkApiKey) and stores it in auth.json (0600, atomic, the
 * original's format). The key is not sent anywhere to check it. logout
 * removes the provider's entry (`all`: every provider's); without an
 * argument it removes the only stored one, and asks for a name when several
 * are stored. Removing a key that is not stored is not a failure (exit 0,
 * said on stderr). Results go to stdout, notes to stderr. Exit codes: 0
 * done, 1 failure (unreadable or invalid auth.json, a refused key, stdin
 * too large, cancelled), 2 usage (unknown provider, missing or extra
 * argument, unknown flag).
 */
import { closeMatches, didYouMean } from "../common/did-you-mean.ts";
import { UsageError, ZotError, errorMessage } from "../common/errors.ts";
import { zotPaths } from "../common/home.ts";
import { KEYED_PROVIDER_NAMES, alternatives, checkApiKey, removeApiKeys, saveApiKey, setKeyVariable, storedProviders, type ProviderName } from "../providers/index.ts";
import { describeFailure, writeStderr, writeStdout } from "./output.ts";

/** Most bytes read from a non-terminal stdin for the key. */
export const MAX_STDIN_BYTES = 64 * 1024;

const KEYED: readonly ProviderName[] = KEYED_PROVIDER_NAMES;

const LOGIN_HELP = `usage: zot login <provider>

Stores an API key for <provider> (anthropic | openai | kimi) in $ZOT_HOME/auth.json
(mode 0600), where every later zot run finds it. The key is read from stdin
when stdin is not a terminal, else asked for with echo off:

  zot login anthropic                        # asks for the key
  printf %s "$KEY" | zot login openai        # from a pipe

A key in the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, KIMI_API_KEY or
MOONSHOT_API_KEY) or --api-key still comes first. kimi takes an API key only
(the original's Kimi device-code login is not supported). Ollama needs no
key. Remove a key with zot logout.
`;

const LOGOUT_HELP = `usage: zot logout [provider|all]

Removes the stored API key of <provider> (anthropic | openai | kimi), or of every
provider with "all", from $ZOT_HOME/auth.json. Without an argument it removes
the only stored key (and asks for a name when several are stored).
Keys in the environment are not touched.
`;

function isKeyed(name: string): name is ProviderName {
  return (KEYED as readonly string[]).includes(name);
}

function parseArgs(command: "login" | "logout", args: readonly string[]): { help: boolean; positional: string[] } {
  const positional: string[] = [];
  let help = false;
  for (const arg of args) {
    if (arg === "-h" || arg === "--help") help = true;
    else if (arg.startsWith("-") && arg !== "-") {
      const hint = arg.startsWith("--") ? didYouMean(arg.slice(2), ["help"], (name) => `--${name}`) : "";
      throw new UsageError(`${command}: unknown flag "${arg}"${hint}`, { flag: arg });
    }
    else positional.push(arg);
  }
  if (positional.length > 1) throw new UsageError(`${command}: expected one provider, got ${positional.length} arguments`);
  return { help, positional };
}

async function readStdinKey(): Promise<string> {
  const reader = Bun.stdin.stream().getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_STDIN_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new ZotError("login.stdin_too_large", `stdin holds more than ${MAX_STDIN_BYTES / 1024} KiB; expected one API key`);
    }
    parts.push(value);
  }
  const text = new TextDecoder().decode(Buffer.concat(parts)).trim();
  if (text.includes("\n")) throw new ZotError("login.bad_key", "stdin holds several lines; expected one API key");
  return text;
}

/** Reads a line from the terminal with echo off. */
function readHiddenLine(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    let value = "";
    const finish = (error?: Error): void => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      if (error === undefined) resolve(value);
      else reject(error);
    };
    const onData = (chunk: Buffer): void => {
      for (const char of chunk.toString("utf8")) {
        if (char === "\r" || char === "\n") return finish();
        if (char === "\x03" || (char === "\x04" && value === "")) return finish(new ZotError("login.cancelled", "cancelled; nothing stored"));
        if (char === "\x7f" || char === "\b") value = [...value].slice(0, -1).join("");
        else if (char >= " " && value.length <= MAX_STDIN_BYTES) value += char;
      }
    };
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onData);
  });
}

async function login(args: readonly string[]): Promise<number> {
  const { help, positional } = parseArgs("login", args);
  if (help) {
    await writeStdout(LOGIN_HELP);
    return 0;
  }
  const provider = positional[0]?.toLowerCase();
  if (provider === undefined) throw new UsageError(`login: which provider? (${alternatives(KEYED)})`);
  if (provider === "ollama") throw new UsageError("login: ollama needs no API key");
  if (!isKeyed(provider)) {
    const close = closeMatches(provider, KEYED)[0];
    const hint = close === undefined ? "" : `did you mean ${close}? `;
    throw new UsageError(`login: unknown provider "${provider}" (${hint}expected ${alternatives(KEYED)})`, { provider });
  }
  const raw = process.stdin.isTTY ? await readHiddenLine(`API key for ${provider} (input hidden): `) : await readStdinKey();
  const key = checkApiKey(raw);
  const authFile = zotPaths().authFile;
  await saveApiKey(provider, key, authFile);
  await writeStdout(`logged in to ${provider}: key stored in ${authFile}\n`);
  const env = setKeyVariable(provider);
  if (env !== undefined) await writeStderr(`zot: note: ${env} is set and comes before the stored key\n`);
  return 0;
}

async function logout(args: readonly string[]): Promise<number> {
  const { help, positional } = parseArgs("logout", args);
  if (help) {
    await writeStdout(LOGOUT_HELP);
    return 0;
  }
  const authFile = zotPaths().authFile;
  let target = positional[0]?.toLowerCase();
  if (target !== undefined && target !== "all" && !isKeyed(target)) {
    throw new UsageError(`logout: unknown provider "${target}" (expected ${KEYED.join(", ")} or all)`, { provider: target });
  }
  if (target === undefined) {
    const stored = await storedProviders(authFile);
    if (stored.length === 0) {
      await writeStderr(`zot: no API key is stored in ${authFile}; nothing to remove\n`);
      return 0;
    }
    if (stored.length > 1) throw new UsageError(`logout: keys of ${alternatives(stored, "and")} are stored: name one, or all`);
    target = stored[0]!;
  }
  const removed = await removeApiKeys(target === "all" ? KEYED : [target], authFile);
  if (removed.length === 0) await writeStderr(`zot: no ${target === "all" ? "API key" : `key for ${target}`} is stored in ${authFile}; nothing to remove\n`);
  else await writeStdout(`logged out of ${removed.join(", ")}: removed from ${authFile}\n`);
  for (const provider of target === "all" ? KEYED : [target as ProviderName]) {
    const env = setKeyVariable(provider);
    if (env !== undefined) await writeStderr(`zot: note: ${env} is still set; zot keeps using it for ${provider}\n`);
  }
  return 0;
}

/** Runs `zot login …` / `zot logout …`; usage problems print their own hint (exit 2), other failures propagate. */
export async function runLoginCli(command: "login" | "logout", args: readonly string[]): Promise<number> {
  try {
    return command === "login" ? await login(args) : await logout(args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err instanceof ZotError ? err : new ZotError("login.failed", errorMessage(err));
    const failure = describeFailure(err, `run 'zot ${command} --help' for usage`);
    await writeStderr(failure.text);
    return failure.exitCode;
  }
}
