/**
 * The login and logout dialogs. Login: a ListDialog of the providers that
 * take a key (anthropic, openai, kimi), each with where its key comes from now
 * (the run's provider selected), then a masked InputDialog for the key (refused in place when empty, with
 * spaces or control characters, or over MAX_API_KEY_LENGTH); the key is
 * stored in auth.json (0600, atomic: credentials.ts). Then the running
 * agent picks it up (model-switch.ts refreshCredential): a model of that
 * provider gets a client with the key that now applies (the flag and the
 * environment variable still come first), and a run that had no key at all
 * switches to that provider's model (config.json's when it is one, else
 * the default). Logout: a ListDialog of the providers stored in auth.json
 * plus "all", or the provider named; the entry is removed and the client
 * rebuilt (keyless when no key is left, said in the chat). Each function
 * resolves once its dialogs closed and the change took effect (or `signal`
 * aborted, which closes the open dialog).
 */
import { loadConfig } from "../../common/config.ts";
import { errorMessage } from "../../common/errors.ts";
import { zotPaths } from "../../common/home.ts";
import {
  API_KEY_ENV,
  API_KEY_ENVS,
  KEYED_PROVIDER_NAMES,
  alternatives,
  checkApiKey,
  setKeyVariable,
  findModel,
  removeApiKeys,
  resolveModel,
  saveApiKey,
  storedProviders,
  type ProviderName,
} from "../../providers/index.ts";
import { InputDialog, ListDialog, type Overlay } from "../../tui/index.ts";
import type { CommandHost } from "./command-types.ts";
import { notLoggedIn, providerCredential, refreshCredential, switchModel } from "./model-switch.ts";

/** Providers that take an API key (Ollama needs none). */
export const KEYED_PROVIDERS: readonly ProviderName[] = KEYED_PROVIDER_NAMES;

function isKeyed(name: string): name is ProviderName {
  return (KEYED_PROVIDERS as readonly string[]).includes(name);
}

/** Opens `overlay` and resolves when it closes (or `signal` aborts, which closes it). */
function shown(host: CommandHost, overlay: Overlay & { onClose?: () => void }, signal: AbortSignal | undefined, setClose: (close: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    setClose(resolve);
    signal?.addEventListener("abort", () => host.closeOverlay(overlay), { once: true });
    host.openOverlay(overlay);
  });
}

function sourceText(source: string | undefined, provider: ProviderName): string {
  if (source === "flag") return "key from --api-key";
  if (source === "env") return `key from ${setKeyVariable(provider) ?? API_KEY_ENV[provider]}`;
  if (source === "auth") return "logged in (auth.json)";
  return "not logged in";
}

async function askProvider(host: CommandHost, title: string, lines: readonly string[], signal: AbortSignal | undefined): Promise<ProviderName | undefined> {
  const items = [];
  for (const provider of KEYED_PROVIDERS) {
    items.push({ value: provider, label: provider, description: sourceText(await providerCredential(host.runtime, provider), provider) });
  }
  let chosen: ProviderName | undefined;
  let close = (): void => {};
  const dialog = new ListDialog({
    theme: host.theme,
    title,
    items,
    filter: false,
    // The provider the run is on comes first (`zot --provider openai` without a key: Enter asks for the OpenAI key).
    initial: isKeyed(host.runtime.agent.model.provider) ? host.runtime.agent.model.provider : undefined,
    hint: [...lines, "↑/↓ choose · Enter asks for the key · Esc cancels"].join(" · "),
    onChoose: (item) => {
      if (item !== undefined && isKeyed(item.value)) chosen = item.value;
    },
    onClose: () => close(),
  });
  await shown(host, dialog, signal, (resolve) => (close = resolve));
  return chosen;
}

async function askKey(host: CommandHost, provider: ProviderName, signal: AbortSignal | undefined): Promise<string | undefined> {
  let key: string | undefined;
  let close = (): void => {};
  const envs = alternatives(API_KEY_ENVS[provider]);
  const dialog: InputDialog = new InputDialog({
    theme: host.theme,
    title: `API key for ${provider}`,
    lines: [`Stored in ${zotPaths().authFile} (readable by you only).${envs === "" ? "" : ` ${envs}, when set, still comes first.`}`],
    prompt: "key: ",
    masked: true,
    placeholder: "paste or type the key",
    onSubmit: (value) => {
      try {
        key = checkApiKey(value);
        return "close";
      } catch (err) {
        dialog.setError(errorMessage(err));
        return "handled";
      }
    },
    onClose: () => close(),
  });
  await shown(host, dialog, signal, (resolve) => (close = resolve));
  return key;
}

/** After a key for `provider` was stored: the agent uses it (see the file comment). */
async function afterLogin(host: CommandHost, provider: ProviderName): Promise<void> {
  const { agent } = host.runtime;
  const current = agent.model;
  if (current.provider === provider) {
    const source = await refreshCredential(host);
    const note = source === "env" ? ` (${setKeyVariable(provider) ?? API_KEY_ENV[provider]} is set and still comes first)` : source === "flag" ? " (--api-key still comes first in this run)" : "";
    host.chat.success(`logged in to ${provider}${note}`);
    return;
  }
  if ((await providerCredential(host.runtime, current.provider)) !== undefined) {
    host.chat.success(`logged in to ${provider}; /model picks one of its models`);
    return;
  }
  // No key for the current provider: move to the provider just logged in.
  const catalog = await host.catalog();
  const configured = loadConfig(zotPaths().configFile).config;
  const remembered = configured.provider === provider && configured.model !== undefined ? findModel(catalog, provider, configured.model) : undefined;
  const model = remembered ?? resolveModel({ provider, catalog }).model;
  host.chat.success(`logged in to ${provider}`);
  await switchModel(host, model);
}

/** `/login [provider]` and the first-run dialog. */
export async function runLogin(host: CommandHost, name: string, options: { readonly signal?: AbortSignal; readonly firstRun?: boolean } = {}): Promise<void> {
  let provider: ProviderName | undefined;
  if (name !== "") {
    if (name === "ollama") {
      host.chat.info("ollama needs no API key: /model ollama/<id> uses a local model");
      return;
    }
    if (!isKeyed(name)) {
      host.chat.error(`/login: unknown provider "${name}" (expected ${KEYED_PROVIDERS.join(" or ")})`);
      return;
    }
    provider = name;
  } else {
    const lines = options.firstRun === true ? ["no API key found: pick a provider to log in"] : [];
    provider = await askProvider(host, "log in", lines, options.signal);
  }
  if (provider === undefined) {
    if (options.firstRun === true) host.chat.warn(`${notLoggedIn(host.runtime.agent.model.provider)}; /login when you are ready`);
    return;
  }
  const key = await askKey(host, provider, options.signal);
  if (key === undefined) return;
  try {
    await saveApiKey(provider, key);
  } catch (err) {
    host.chat.error(`/login: the key was not stored: ${errorMessage(err)}`);
    return;
  }
  await afterLogin(host, provider);
}

async function askLogout(host: CommandHost, stored: readonly ProviderName[], signal: AbortSignal | undefined): Promise<string | undefined> {
  let chosen: string | undefined;
  let close = (): void => {};
  const items = [
    ...stored.map((provider) => ({ value: provider, label: provider, description: "remove its key from auth.json" })),
    ...(stored.length > 1 ? [{ value: "all", label: "all", description: "remove every stored key" }] : []),
  ];
  const dialog = new ListDialog({
    theme: host.theme,
    title: "log out",
    items,
    filter: false,
    hint: "↑/↓ choose · Enter removes · Esc cancels",
    onChoose: (item) => {
      chosen = item?.value;
    },
    onClose: () => close(),
  });
  await shown(host, dialog, signal, (resolve) => (close = resolve));
  return chosen;
}

/** `/logout [provider|all]`. */
export async function runLogout(host: CommandHost, name: string, signal?: AbortSignal): Promise<void> {
  let stored: ProviderName[];
  try {
    stored = await storedProviders();
  } catch (err) {
    host.chat.error(`/logout: ${errorMessage(err)}`);
    return;
  }
  let target = name;
  if (target === "") {
    if (stored.length === 0) {
      host.chat.info("no key is stored in auth.json; nothing to log out of");
      return;
    }
    target = (await askLogout(host, stored, signal)) ?? "";
    if (target === "") return;
  }
  if (target !== "all" && !isKeyed(target)) {
    host.chat.error(`/logout: unknown provider "${target}" (expected ${KEYED_PROVIDERS.join(", ")} or all)`);
    return;
  }
  let removed: string[];
  try {
    removed = await removeApiKeys(target === "all" ? KEYED_PROVIDERS : [target]);
  } catch (err) {
    host.chat.error(`/logout: ${errorMessage(err)}`);
    return;
  }
  if (removed.length === 0) host.chat.info(`no key for ${target} is stored in auth.json`);
  else host.chat.success(`logged out of ${removed.join(", ")} (removed from auth.json)`);
  for (const provider of target === "all" ? KEYED_PROVIDERS : [target as ProviderName]) {
    const env = setKeyVariable(provider);
    if (env !== undefined) host.chat.warn(`${env} is still set: zot keeps using it for ${provider}`);
  }
  const current = host.runtime.agent.model.provider;
  const source = await refreshCredential(host);
  if (source === undefined) host.chat.warn(notLoggedIn(current));
}
