/**
 * The model picker (`/model`, the rescue offer): a ListDialog of the models
 * of every provider that has a key (Ollama always), grouped by provider,
 * each row `provider/id` with its name, context window and price per
 * million input/output tokens (`Claude Sonnet 4.5 · 200k ctx · $3/$15 per
 * Mtok`); the current model is marked and selected. Typing filters (over
 * id, name and provider). Catalog order within a provider; speculative
 * catalog entries are left out unless current. Ollama lists the models.json
 * entries and the current one (`/model ollama/<id>` takes any id).
 */
import type { Catalog, ModelInfo, ProviderName } from "../../providers/index.ts";
import { ListDialog, type SelectItem, type Theme } from "../../tui/index.ts";

export function modelKey(model: ModelInfo): string {
  return `${model.provider}/${model.id}`;
}

export function formatContext(tokens: number): string {
  if (tokens >= 1_000_000) return `${(tokens / 1_000_000).toFixed(tokens % 1_000_000 === 0 ? 0 : 2)}M`;
  // 32768 is "32k" (binary sizes are how such windows are named), 200000 "200k".
  if (tokens >= 1024 && tokens % 1024 === 0) return `${tokens / 1024}k`;
  if (tokens >= 1000) return `${Math.round(tokens / 1000)}k`;
  return String(tokens);
}

function formatPrice(usd: number): string {
  return `$${Number(usd.toFixed(3))}`;
}

export function describeModel(model: ModelInfo): string {
  const price = model.priceInput === 0 && model.priceOutput === 0 ? (model.provider === "ollama" ? "local" : "price unknown") : `${formatPrice(model.priceInput)}/${formatPrice(model.priceOutput)} per Mtok`;
  const name = model.name !== model.id ? `${model.name} · ` : "";
  return `${name}${formatContext(model.contextWindow)} ctx · ${price}`;
}

/** The models to offer: those of `providers`, in that order, the current one included; `exclude` left out. */
export function pickableModels(catalog: Catalog, providers: readonly ProviderName[], current: ModelInfo | undefined, exclude?: ModelInfo): ModelInfo[] {
  const models: ModelInfo[] = [];
  for (const provider of providers) {
    const own = catalog.models.filter((model) => model.provider === provider && (model.speculative !== true || (current !== undefined && modelKey(model) === modelKey(current))));
    if (current !== undefined && current.provider === provider && !own.some((model) => model.id === current.id)) own.unshift(current);
    models.push(...own);
  }
  return exclude === undefined ? models : models.filter((model) => modelKey(model) !== modelKey(exclude));
}

export interface ModelDialogOptions {
  readonly theme: Theme;
  readonly title: string;
  readonly models: readonly ModelInfo[];
  readonly current: ModelInfo | undefined;
  readonly hint?: string;
  readonly onChoose: (model: ModelInfo) => void;
  readonly onClose?: () => void;
}

export function modelDialog(options: ModelDialogOptions): ListDialog {
  const currentKey = options.current === undefined ? undefined : modelKey(options.current);
  const items: SelectItem[] = options.models.map((model) => ({
    value: modelKey(model),
    label: `${modelKey(model) === currentKey ? "● " : "  "}${modelKey(model)}`,
    description: describeModel(model),
    group: model.provider,
  }));
  return new ListDialog({
    theme: options.theme,
    title: options.title,
    items,
    initial: currentKey,
    maxVisible: 12,
    hint: options.hint ?? "type to filter · Enter switches · Esc cancels",
    onChoose: (item) => {
      const model = options.models.find((candidate) => modelKey(candidate) === item?.value);
      if (model !== undefined) options.onChoose(model);
    },
    onClose: options.onClose,
  });
}
