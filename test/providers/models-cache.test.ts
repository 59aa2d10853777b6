/**
 * The original zot's live model list ($ZOT_HOME/models-cache.json,
 * providers/models-cache.ts): Go field names, merged like the original
 * (catalog ids keep their data and become "live", unknown ids are appended
 * with zero prices), models.json still wins, a bad cache is ignored without
 * a word; and through dist/zot: an id only the cache knows is listed by
 * --list-models and usable with --model.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findModel, loadCatalog } from "../../src/providers/index.ts";
import { liveModels, MAX_MODELS_CACHE_BYTES } from "../../src/providers/models-cache.ts";
import { requestMessages, useModeEnv, type ModeEnv } from "../modes/helpers.ts";

const CACHE = {
  fetched_at: "2026-11-30T10:00:00Z",
  models: [
    { Provider: "anthropic", ID: "claude-sonnet-4-5", Name: "Live name", ContextWindow: 1, MaxTokens: 1, PriceInput: 0 },
    { Provider: "anthropic", ID: "claude-opus-4-6", Name: "Claude Opus 4.6" },
    { Provider: "anthropic", ID: "claude-sonnet-5-0", Name: "Claude Sonnet 5", ContextWindow: 400000, MaxTokens: 128000, Reasoning: true },
    { Provider: "openai", ID: "gpt-6-preview" },
    { Provider: "mystery", ID: "x" },
    { Provider: "openai", ID: "" },
    { Provider: "openai" },
    "not an object",
  ],
};

describe("models-cache.json", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "zot-models-cache-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, content: unknown): string => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
    return path;
  };

  test("entries with a known Provider and an ID are read; the rest are skipped", () => {
    expect(liveModels(CACHE).map((model) => `${model.provider}/${model.id}`)).toEqual([
      "anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-6", "anthropic/claude-sonnet-5-0", "openai/gpt-6-preview",
    ]);
    for (const document of [null, [], { models: {} }, { models: "x" }, "text"]) expect(liveModels(document)).toEqual([]);
  });

  test("catalog ids keep the catalog's data and become live (not speculative); unknown ids are appended with zero prices", async () => {
    const catalog = await loadCatalog(join(dir, "models.json"), write("models-cache.json", CACHE));
    expect(catalog.warnings).toEqual([]);
    expect(findModel(catalog, "anthropic", "claude-sonnet-4-5")).toMatchObject({ name: "Claude Sonnet 4.5", contextWindow: 200_000, maxOutput: 64_000, priceInput: 3, source: "live" });
    const opus = findModel(catalog, "anthropic", "claude-opus-4-6");
    expect(opus).toMatchObject({ source: "live", priceInput: 5 });
    expect(opus?.speculative).toBeUndefined();
    expect(findModel(catalog, "anthropic", "claude-sonnet-5-0")).toEqual({
      provider: "anthropic", id: "claude-sonnet-5-0", name: "Claude Sonnet 5", contextWindow: 400_000, maxOutput: 128_000, reasoning: true,
      priceInput: 0, priceOutput: 0, priceCacheRead: 0, priceCacheWrite: 0, source: "live",
    });
    expect(findModel(catalog, "openai", "gpt-6-preview")).toMatchObject({ name: "gpt-6-preview", contextWindow: 32768, maxOutput: 8192, reasoning: false, source: "live" });
  });

  test("models.json applies after the cache and wins", async () => {
    const models = write("models.json", { providers: { anthropic: { models: [{ id: "claude-sonnet-5-0", priceInput: 4 }] } } });
    const catalog = await loadCatalog(models, write("models-cache.json", CACHE));
    expect(findModel(catalog, "anthropic", "claude-sonnet-5-0")).toMatchObject({ priceInput: 4, contextWindow: 400_000, source: "user" });
  });

  test("an oversized cache, or one that is not a regular file, is not read", async () => {
    const big = write("models-cache.json", JSON.stringify(CACHE) + " ".repeat(MAX_MODELS_CACHE_BYTES));
    expect(findModel(await loadCatalog(join(dir, "models.json"), big), "anthropic", "claude-sonnet-5-0")).toBeUndefined();
    expect(findModel(await loadCatalog(join(dir, "models.json"), dir), "anthropic", "claude-sonnet-4-5")?.source).toBe("catalog");
    const fifo = join(dir, "fifo-cache.json");
    expect(Bun.spawnSync(["mkfifo", fifo]).success).toBe(true);
    expect(findModel(await loadCatalog(join(dir, "models.json"), fifo), "anthropic", "claude-sonnet-4-5")?.source).toBe("catalog");
    expect(findModel(await loadCatalog(join(dir, "models.json"), write("models-cache.json", CACHE)), "anthropic", "claude-sonnet-5-0")?.source).toBe("live");
  });

  test("a missing, malformed or oddly shaped cache is ignored without a warning", async () => {
    for (const content of [undefined, "{ not json", `${"[".repeat(300)}${"]".repeat(300)}`, { models: 3 }, []]) {
      const cache = content === undefined ? join(dir, "absent.json") : write("models-cache.json", content);
      const catalog = await loadCatalog(join(dir, "models.json"), cache);
      expect(catalog.warnings).toEqual([]);
      expect(findModel(catalog, "anthropic", "claude-sonnet-4-5")?.source).toBe("catalog");
    }
  });
});

describe("models-cache.json through dist/zot", () => {
  let env: ModeEnv;
  useModeEnv((created) => (env = created));

  test("an id only the original's cache knows: listed as live by --list-models, usable with --model", async () => {
    writeFileSync(join(env.home, "models-cache.json"), JSON.stringify(CACHE));
    const list = await env.run(["--list-models"]);
    expect(list.stderr).toBe("");
    expect(list.code).toBe(0);
    expect(list.stdout.split("\n").find((row) => row.includes("claude-sonnet-5-0"))).toMatch(/^anthropic\s+claude-sonnet-5-0\s+400000\s+128000\s+✓\s+live\s+Claude Sonnet 5$/);

    env.server.enqueue({ type: "text", text: "from the new model" });
    const run = await env.run(["-p", "hi", "--no-session", ...env.providerArgs(), "--model", "claude-sonnet-5-0"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("from the new model\n");
    expect((env.server.requests[0]?.body as { model?: string }).model).toBe("claude-sonnet-5-0");
    expect(requestMessages(env.server.requests[0]).length).toBe(1);
  });

  test("without the cache the same id is an unknown model", async () => {
    const run = await env.run(["-p", "hi", "--no-session", ...env.providerArgs(), "--model", "claude-sonnet-5-0"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('unknown model "claude-sonnet-5-0"');
    expect(env.server.requests.length).toBe(0);
  });
});
