import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LIST_MODELS_HEADER } from "../../src/providers/catalog.ts";
import { KIMI_CODING_BASE_URL, builtinCatalog, findModel, listModelsTable, loadCatalog, resolveModel } from "../../src/providers/index.ts";
import { ProviderError } from "../../src/providers/types.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "zot-catalog-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function modelsFile(content: unknown): Promise<string> {
  const path = join(dir, "models.json");
  await writeFile(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

describe("catalog", () => {
  test("static entries cover the documented families and defaults", () => {
    const catalog = builtinCatalog();
    for (const id of ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5", "claude-3-5-haiku-latest"]) {
      expect(findModel(catalog, "anthropic", id)).toBeDefined();
    }
    for (const id of ["gpt-5", "gpt-5-mini", "gpt-4.1", "gpt-4o", "o3", "o4-mini", "o1"]) expect(findModel(catalog, "openai", id)).toBeDefined();
    expect(findModel(catalog, "openai", "gpt-4.1")?.contextWindow).toBe(1_047_576);
    expect(findModel(catalog, "anthropic", "claude-sonnet-4-5")).toMatchObject({ reasoning: true, priceInput: 3, priceOutput: 15 });
  });

  test("models.json: a price-only override keeps reasoning and other fields; new ids are appended", async () => {
    const catalog = await loadCatalog(
      await modelsFile({
        providers: {
          anthropic: { models: [{ id: "claude-sonnet-4-5", priceInput: 2.5 }] },
          "openai-responses": { models: [{ id: "my-gpt", contextWindow: 64000, maxTokens: 4000, reasoning: true }] },
          ollama: { models: [{ id: "qwen3", name: "Qwen 3", contextWindow: 131072 }] },
        },
      }),
    );
    expect(catalog.warnings).toEqual([]);
    const sonnet = findModel(catalog, "anthropic", "claude-sonnet-4-5");
    expect(sonnet).toMatchObject({ priceInput: 2.5, priceOutput: 15, reasoning: true, contextWindow: 200_000, source: "user" });
    expect(findModel(catalog, "openai", "my-gpt")).toMatchObject({ contextWindow: 64000, maxOutput: 4000, reasoning: true, api: "responses", name: "my-gpt" });
    expect(findModel(catalog, "ollama", "qwen3")).toMatchObject({ name: "Qwen 3", contextWindow: 131072, maxOutput: 8192 });
  });

  test("an explicit reasoning:false override does apply", async () => {
    const catalog = await loadCatalog(await modelsFile({ providers: { anthropic: { models: [{ id: "claude-sonnet-4-5", reasoning: false }] } } }));
    expect(findModel(catalog, "anthropic", "claude-sonnet-4-5")?.reasoning).toBe(false);
  });

  test("invalid or unreadable models.json yields a warning and the static catalog, never a throw", async () => {
    const badJson = await loadCatalog(await modelsFile("{ not json"));
    expect(badJson.warnings.length).toBe(1);
    expect(badJson.warnings[0]).toContain("invalid JSON");
    expect(badJson.models).toEqual(builtinCatalog().models);

    const badShape = await loadCatalog(await modelsFile({ providers: { anthropic: { models: [{ id: 7 }] } } }));
    expect(badShape.warnings[0]).toContain('field "providers.anthropic.models.0.id"');

    const unknownProvider = await loadCatalog(await modelsFile({ providers: { mystery: { models: [] } } }));
    expect(unknownProvider.warnings).toEqual([`${join(dir, "models.json")}: unknown provider "mystery" ignored`]);

    // Keys an object inherits are no provider names.
    const inherited = await loadCatalog(await modelsFile({ providers: { constructor: { models: [{ id: "x" }] }, toString: { models: [] } } }));
    expect(inherited.warnings).toEqual([
      `${join(dir, "models.json")}: unknown provider "constructor" ignored`,
      `${join(dir, "models.json")}: unknown provider "toString" ignored`,
    ]);
    expect(inherited.models).toEqual(builtinCatalog().models);

    const missing = await loadCatalog(join(dir, "absent.json"));
    expect(missing.warnings).toEqual([]);
  });

  test("--list-models table uses the documented header and columns", () => {
    const table = listModelsTable(builtinCatalog());
    const lines = table.trimEnd().split("\n");
    expect(lines[0]).toBe(LIST_MODELS_HEADER);
    const sonnet = lines.find((line) => line.includes("claude-sonnet-4-5"));
    expect(sonnet).toBe(`anthropic  ${"claude-sonnet-4-5".padEnd(30)}   200000    64000     ✓        catalog       Claude Sonnet 4.5`);
    expect(lines.some((line) => line.includes("claude-opus-4-7") && line.includes("speculative"))).toBe(true);
    expect(lines.length).toBe(builtinCatalog().models.length + 1);
  });
});

describe("resolveModel", () => {
  const catalog = builtinCatalog();

  test("defaults: anthropic claude-sonnet-4-5; openai gpt-5; base URLs per provider", () => {
    expect(resolveModel({ catalog })).toMatchObject({ provider: "anthropic", baseUrl: "https://api.anthropic.com", model: { id: "claude-sonnet-4-5" } });
    expect(resolveModel({ provider: "openai", catalog })).toMatchObject({ provider: "openai", model: { id: "gpt-5" } });
    expect(resolveModel({ provider: "openai", model: "gpt-4o", baseUrl: "http://x/v1", catalog }).baseUrl).toBe("http://x/v1");
  });

  test("unknown model for anthropic/openai is a config error", () => {
    let caught: unknown;
    try {
      resolveModel({ provider: "openai", model: "gpt-nope", catalog });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ProviderError);
    expect(caught).toMatchObject({ kind: "config", message: 'unknown model "gpt-nope" for provider openai; run `zot --list-models` for the known ones' });
  });

  test("ollama needs --model and gets a synthetic entry and the local base URL", () => {
    expect(() => resolveModel({ provider: "ollama", catalog })).toThrow("ollama requires --model");
    const resolved = resolveModel({ provider: "ollama", model: "llama3", catalog });
    expect(resolved.baseUrl).toBe("http://localhost:11434/v1");
    expect(resolved.model).toMatchObject({ id: "llama3", contextWindow: 32768, maxOutput: 8192, source: "ollama", priceInput: 0 });
  });

  test("the catalog's kimi-for-coding carries the Kimi Code base URL; --provider kimi resolves to it", () => {
    const resolved = resolveModel({ provider: "kimi", catalog: builtinCatalog() });
    expect(resolved.model.id).toBe("kimi-for-coding");
    expect(resolved.baseUrl).toBe(KIMI_CODING_BASE_URL);
    expect(KIMI_CODING_BASE_URL).toBe("https://api.kimi.com/coding/v1");
    expect(() => resolveModel({ provider: "kimmi", catalog: builtinCatalog() })).toThrow('unknown provider "kimmi" (did you mean kimi?) (expected anthropic, openai, kimi, ollama)');
  });

  test("unknown provider is a config error", () => {
    expect(() => resolveModel({ provider: "kimi-x", catalog })).toThrow('unknown provider "kimi-x"');
  });
});
