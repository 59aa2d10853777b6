import { describe, expect, test } from "bun:test";
import { ZotError } from "../../../src/common/errors.ts";
import { builtinCatalog, findModel, missingApiKey, ProviderError, syntheticModel, type ModelInfo } from "../../../src/providers/index.ts";
import { describeModel, formatContext, pickableModels } from "../../../src/modes/interactive/model-dialog.ts";
import { findModelById } from "../../../src/modes/interactive/model-switch.ts";
import { rescueReason } from "../../../src/modes/interactive/rescue.ts";

const catalog = builtinCatalog();
const model = (provider: "anthropic" | "openai", id: string): ModelInfo => {
  const found = findModel(catalog, provider, id);
  if (found === undefined) throw new Error(`no ${provider}/${id}`);
  return found;
};

describe("model lookup by id", () => {
  const sonnet = model("anthropic", "claude-sonnet-4-5");
  test("bare ids: the current provider first, then any provider; provider/id; ollama takes any id", () => {
    expect(findModelById(catalog, sonnet, "claude-haiku-4-5")?.id).toBe("claude-haiku-4-5");
    expect(findModelById(catalog, sonnet, "gpt-5")).toMatchObject({ provider: "openai", id: "gpt-5" });
    expect(findModelById(catalog, sonnet, "openai/gpt-4.1")).toMatchObject({ provider: "openai", id: "gpt-4.1" });
    expect(findModelById(catalog, sonnet, "ollama/llama3:8b")).toMatchObject({ provider: "ollama", id: "llama3:8b" });
    expect(findModelById(catalog, sonnet, "openai/")).toBeUndefined();
    expect(findModelById(catalog, sonnet, "nope")).toBeUndefined();
    const local = syntheticModel("ollama", "qwen");
    expect(findModelById(catalog, local, "library/llama3")).toMatchObject({ provider: "ollama", id: "library/llama3" });
  });
});

describe("the picker's rows", () => {
  test("context and price are shown; speculative models only when current; the excluded one is left out", () => {
    expect(formatContext(200_000)).toBe("200k");
    expect(formatContext(1_047_576)).toBe("1.05M");
    expect(describeModel(model("anthropic", "claude-sonnet-4-5"))).toBe("Claude Sonnet 4.5 · 200k ctx · $3/$15 per Mtok");
    expect(describeModel(syntheticModel("ollama", "llama3"))).toBe("32k ctx · local");
    const listed = pickableModels(catalog, ["anthropic", "openai"], undefined);
    expect(listed.some((entry) => entry.speculative === true)).toBe(false);
    expect(listed.some((entry) => entry.provider === "openai")).toBe(true);
    const opus47 = model("anthropic", "claude-opus-4-7");
    expect(pickableModels(catalog, ["anthropic"], opus47).some((entry) => entry.id === "claude-opus-4-7")).toBe(true);
    const local = syntheticModel("ollama", "llama3");
    expect(pickableModels(catalog, ["anthropic", "ollama"], local).at(-1)).toEqual(local);
    const sonnet = model("anthropic", "claude-sonnet-4-5");
    expect(pickableModels(catalog, ["anthropic"], undefined, sonnet).some((entry) => entry.id === sonnet.id)).toBe(false);
  });
});

describe("which failures the rescue offer answers", () => {
  const http = (status: number) => new ProviderError("http", `x: ${status}`, status);
  test("auth, rate limit, overload, server errors, network and a missing key; not 400/404/413, not other errors", () => {
    expect(rescueReason(http(401))).toBe("authentication failed");
    expect(rescueReason(http(403))).toBe("authentication failed");
    expect(rescueReason(http(429))).toBe("rate limited");
    expect(rescueReason(http(529))).toBe("rate limited");
    expect(rescueReason(http(503))).toBe("server error");
    expect(rescueReason(new ProviderError("network", "refused"))).toBe("network error");
    expect(rescueReason(new ProviderError("stalled", "stalled"))).toBe("network error");
    expect(rescueReason(missingApiKey("openai"))).toBe("no API key");
    for (const status of [400, 404, 413, 422]) expect(rescueReason(http(status))).toBeUndefined();
    expect(rescueReason(new ProviderError("config", "unknown model"))).toBeUndefined();
    expect(rescueReason(new ProviderError("malformed", "bad event"))).toBeUndefined();
    expect(rescueReason(new ZotError("agent.max_steps", "max steps"))).toBeUndefined();
  });
});
