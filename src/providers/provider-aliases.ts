/**
 * The provider names the original zot's model files use (reference notes
 * §1.10: models.json's provider keys, and the `Provider` field of
 * models-cache.json) and the provider each stands for. Shared by catalog.ts
 * and models-cache.ts.
 */
import type { ProviderName } from "./types.ts";

export const PROVIDER_ALIASES: Readonly<Record<string, ProviderName>> = {
  anthropic: "anthropic",
  "anthropic-messages": "anthropic",
  openai: "openai",
  "openai-codex": "openai",
  "openai-responses": "openai",
  kimi: "kimi",
  moonshot: "kimi",
  "moonshot-ai": "kimi",
  "kimi-code": "kimi",
  ollama: "ollama",
};

/** The provider `name` stands for, or undefined; own keys only (`constructor` is no provider). */
export function providerForAlias(name: string): ProviderName | undefined {
  return Object.hasOwn(PROVIDER_ALIASES, name) ? PROVIDER_ALIASES[name] : undefined;
}
