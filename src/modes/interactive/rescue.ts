/**
 * The rescue offer: after a prompt fails because of the provider, not the
 * conversation (rescueReason: HTTP 401/403 or no key → authentication, 429
 * or 529 → rate limit or overload, 500/502/503/504 → server error, a
 * connection failure or a stalled stream → network; never 413 or any other
 * 4xx, never an abort), a model picker (model-dialog.ts) offers the models
 * of the other providers that have a key and the current provider's other
 * models (Ollama's models.json entries too), the failed one left out.
 * Choosing one switches to it without the launch --api-key / --base-url
 * (they may be what failed; the key is the provider's env var or auth.json)
 * and sends the same prompt again; Esc declines. The failed prompt's user
 * message, when it is still the last message, is dropped from the
 * conversation the model sees first, so the model gets the prompt once (the
 * session file keeps both rows). Nothing is offered while other prompts
 * wait in the queue, or when there is no other model (then the chat says
 * how to add one).
 */
import { ZotError } from "../../common/errors.ts";
import { isMissingApiKey, ProviderError } from "../../providers/index.ts";
import type { CommandHost } from "./command-types.ts";
import { modelDialog, pickableModels } from "./model-dialog.ts";
import { loggedInProviders, switchModel } from "./model-switch.ts";

export interface RescueHost extends CommandHost {
  /** Other prompts wait in the queue. */
  readonly queued: number;
  /** Runs `text` as a model prompt (now, or queued behind what runs). */
  retryPrompt(text: string): void;
}

/** Why another model could help with `error`, or undefined when it would not. */
export function rescueReason(error: ZotError): string | undefined {
  if (isMissingApiKey(error)) return "no API key";
  if (!(error instanceof ProviderError)) return undefined;
  if (error.kind === "network" || error.kind === "stalled") return "network error";
  if (error.kind !== "http" || error.status === undefined) return undefined;
  if (error.status === 401 || error.status === 403) return "authentication failed";
  if (error.status === 429 || error.status === 529) return "rate limited";
  if ([500, 502, 503, 504].includes(error.status)) return "server error";
  return undefined;
}

export async function offerRescue(host: RescueHost, text: string, error: ZotError): Promise<void> {
  const reason = rescueReason(error);
  if (reason === undefined || host.queued > 0 || text.trim() === "") return;
  const { agent } = host.runtime;
  const failed = agent.model;
  const [catalog, providers] = await Promise.all([host.catalog(), loggedInProviders(host.runtime, false)]);
  const models = pickableModels(catalog, providers, undefined, failed);
  if (models.length === 0) {
    host.chat.info(`${reason}: no other logged-in model to retry with (/login adds a provider)`);
    return;
  }
  const dialog = modelDialog({
    theme: host.theme,
    title: `${reason}: retry with another model?`,
    models,
    current: undefined,
    hint: "type to filter · Enter retries the prompt with it · Esc declines",
    onChoose: (model) => {
      void (async () => {
        if (!(await switchModel(host, model, { launchFlags: false }))) return;
        const messages = agent.messages;
        const last = messages.at(-1);
        if (last?.role === "user" && last.content.length === 1 && last.content[0]?.type === "text" && last.content[0].text === text) {
          agent.replaceMessages(messages.slice(0, -1), agent.messageRows.slice(0, -1));
        }
        host.chat.info(`retrying with ${model.provider}/${model.id}`);
        host.retryPrompt(text);
      })();
    },
  });
  host.openOverlay(dialog);
}
