/**
 * `/model [id]`: without an id lists the current provider's models (`*`
 * marks the current one); with one switches to it (same provider; any id
 * for ollama), tells the extensions and records the change in the session.
 */
import { errorMessage } from "../../../common/errors.ts";
import { findModel, syntheticModel, type Catalog, type ModelInfo } from "../../../providers/index.ts";
import type { BuiltinCommand, CommandHost } from "../command-types.ts";

function modelFor(catalog: Catalog, current: ModelInfo, id: string): ModelInfo | undefined {
  if (id === current.id) return current;
  const listed = findModel(catalog, current.provider, id);
  if (listed !== undefined) return listed;
  return current.provider === "ollama" ? syntheticModel(current.provider, id) : undefined;
}

async function modelCommand(host: CommandHost, id: string): Promise<void> {
  const { agent, extensions, session } = host.runtime;
  const current = agent.model;
  const catalog = await host.catalog();
  if (id === "") {
    const listed = catalog.models.filter((model) => model.provider === current.provider);
    const all = listed.some((model) => model.id === current.id) ? listed : [current, ...listed];
    const rows = all.map((model) => `${model.id === current.id ? "*" : " "} ${model.id}`);
    host.chat.plain(`models of ${current.provider} (/model <id> to switch):\n${rows.join("\n")}`);
    return;
  }
  const model = modelFor(catalog, current, id);
  if (model === undefined) {
    host.chat.error(`unknown model "${id}" for provider ${current.provider}; /model lists them`);
    return;
  }
  agent.setModel(model);
  extensions?.bridge.setModel(model.provider, model.id);
  try {
    session.writer?.appendMeta({ provider: model.provider, model: model.id });
  } catch (err) {
    host.chat.warn(`zot: warning: the session did not record the model change: ${errorMessage(err)}`);
  }
  host.chat.success(`model: ${model.provider}/${model.id}`);
}

export const MODEL_COMMAND: BuiltinCommand = {
  name: "model",
  usage: "/model [id]",
  description: "list the provider's models, or switch to one",
  immediate: false,
  run: (host, args) => modelCommand(host, args.trim()),
};
