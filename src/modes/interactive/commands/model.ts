/**
 * `/model [id]`: without an id opens the model picker (model-dialog.ts:
 * models of the providers that have a key, Ollama always; filter by
 * typing; the command ends once it is open, the switch happens on Enter);
 * with one (`gpt-5`, `openai/gpt-5`, `ollama/llama3`) switches directly
 * (an unknown id gets a "did you mean" when one is close).
 * A model of another provider switches the client too (model-switch.ts);
 * the conversation and the cumulative cost carry over, and the choice is
 * remembered in config.json and the session.
 */
import { didYouMean } from "../../../common/did-you-mean.ts";
import type { ModelInfo } from "../../../providers/index.ts";
import type { BuiltinCommand, CommandHost } from "../command-types.ts";
import { modelDialog, pickableModels } from "../model-dialog.ts";
import { detach } from "./login.ts";
import { findModelById, loggedInProviders, notLoggedIn, providerCredential, switchModel } from "../model-switch.ts";

async function pickModel(host: CommandHost): Promise<void> {
  const { agent } = host.runtime;
  const current = agent.model;
  const [catalog, providers] = await Promise.all([host.catalog(), loggedInProviders(host.runtime)]);
  const models = pickableModels(catalog, providers, current);
  const chosen = (model: ModelInfo): void => {
    const now = agent.model;
    if (model.provider === now.provider && model.id === now.id) host.chat.info(`model: ${now.provider}/${now.id} (unchanged)`);
    else detach(host, "model", switchModel(host, model).then(() => undefined));
  };
  host.openOverlay(
    modelDialog({ theme: host.theme, title: "model", models, current, hint: "type to filter · Enter switches · Esc cancels · /login adds a provider", onChoose: chosen }),
  );
}

async function modelCommand(host: CommandHost, text: string): Promise<void> {
  if (text === "") return pickModel(host);
  const current = host.runtime.agent.model;
  const catalog = await host.catalog();
  const model = findModelById(catalog, current, text);
  if (model === undefined) {
    const ids = catalog.models.map((entry) => (entry.provider === current.provider ? entry.id : `${entry.provider}/${entry.id}`));
    const bare = text.includes("/") ? ids : ids.map((id) => id.slice(id.indexOf("/") + 1));
    const hint = didYouMean(text, bare, (id) => `/model ${ids[bare.indexOf(id)] ?? id}`);
    host.chat.error(`unknown model "${text}"${hint}; /model lists them (provider/id for another provider's model)`);
    return;
  }
  if (model.provider !== current.provider && (await providerCredential(host.runtime, model.provider)) === undefined) {
    host.chat.error(`/model ${text}: ${notLoggedIn(model.provider)}`);
    return;
  }
  await switchModel(host, model);
}

export const MODEL_COMMAND: BuiltinCommand = {
  name: "model",
  usage: "/model [id]",
  description: "pick a model (any logged-in provider), or switch to one by id",
  immediate: false,
  run: (host, args) => modelCommand(host, args.trim()),
};
