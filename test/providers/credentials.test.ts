import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readdir } from "node:fs/promises";
import {
  checkApiKey,
  credentialSource,
  isMissingApiKey,
  missingKeyClient,
  removeApiKeys,
  resolveApiKey,
  saveApiKey,
  storedProviders,
} from "../../src/providers/index.ts";
import { ProviderError } from "../../src/providers/types.ts";
import { rejection } from "./helpers.ts";

let dir: string;
let authFile: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "zot-cred-"));
  authFile = join(dir, "auth.json");
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("credential lookup", () => {
  test("order: flag, then env, then auth.json", async () => {
    await writeFile(authFile, JSON.stringify({ anthropic: { api_key: "from-file" } }));
    const env = { ANTHROPIC_API_KEY: "from-env" };
    expect(await resolveApiKey({ provider: "anthropic", flag: "from-flag", env, authFile })).toEqual({ apiKey: "from-flag", source: "flag" });
    expect(await resolveApiKey({ provider: "anthropic", env, authFile })).toEqual({ apiKey: "from-env", source: "env" });
    expect(await resolveApiKey({ provider: "anthropic", env: {}, authFile })).toEqual({ apiKey: "from-file", source: "auth" });
    // Another provider's variable does not count.
    const err = await rejection(resolveApiKey({ provider: "openai", env, authFile }));
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: "config", message: `no API key for openai: set OPENAI_API_KEY, pass --api-key, run \`zot login openai\`, or write {"openai":{"api_key":"…"}} to ${authFile}` });
  });

  test("missing key names the env var, the flag, zot login and auth.json (path and format); ollama needs none (the original's literal key `ollama`)", async () => {
    const err = await rejection(resolveApiKey({ provider: "anthropic", env: {}, authFile }));
    expect(err).toMatchObject({ kind: "config", message: `no API key for anthropic: set ANTHROPIC_API_KEY, pass --api-key, run \`zot login anthropic\`, or write {"anthropic":{"api_key":"…"}} to ${authFile}` });
    expect(await resolveApiKey({ provider: "ollama", env: {}, authFile })).toEqual({ apiKey: "ollama", source: "none" });
  });

  test("an invalid auth.json is a config error naming the file and field", async () => {
    await writeFile(authFile, JSON.stringify({ anthropic: { api_key: 42 } }));
    const err = await rejection(resolveApiKey({ provider: "anthropic", env: {}, authFile }));
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toContain(authFile);
    expect((err as ProviderError).message).toContain('field "anthropic.api_key"');
  });

  test("saveApiKey writes auth.json with mode 0600, keeping other providers", async () => {
    await writeFile(authFile, JSON.stringify({ openai: { api_key: "sk-openai" } }), { mode: 0o644 });
    await saveApiKey("anthropic", "sk-ant", authFile);
    expect((await stat(authFile)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(authFile, "utf8"))).toEqual({ openai: { api_key: "sk-openai" }, anthropic: { api_key: "sk-ant" } });
    expect(await resolveApiKey({ provider: "anthropic", env: {}, authFile })).toEqual({ apiKey: "sk-ant", source: "auth" });

    const fresh = join(dir, "nested", "auth.json");
    await saveApiKey("openai", "sk-2", fresh);
    expect((await stat(fresh)).mode & 0o777).toBe(0o600);
  });

  test("removeApiKeys drops whole entries, keeps the rest, rewrites only when something went", async () => {
    await writeFile(authFile, JSON.stringify({ anthropic: { api_key: "a", oauth: { access_token: "t" } }, openai: { api_key: "o" }, kimi: { api_key: "k" } }));
    expect(await storedProviders(authFile)).toEqual(["anthropic", "openai", "kimi"]);
    expect(await removeApiKeys(["anthropic"], authFile)).toEqual(["anthropic"]);
    expect(JSON.parse(await readFile(authFile, "utf8"))).toEqual({ openai: { api_key: "o" }, kimi: { api_key: "k" } });
    expect((await stat(authFile)).mode & 0o777).toBe(0o600);
    const before = (await stat(authFile)).mtimeMs;
    expect(await removeApiKeys(["anthropic"], authFile)).toEqual([]);
    expect((await stat(authFile)).mtimeMs).toBe(before);
    expect(await removeApiKeys(["anthropic", "openai"], authFile)).toEqual(["openai"]);
    expect(await storedProviders(authFile)).toEqual(["kimi"]);
    // No temp file is left beside it.
    expect(await readdir(dir)).toEqual(["auth.json"]);
  });

  test("checkApiKey trims and refuses empty, spaced, control-character and oversized keys", () => {
    expect(checkApiKey("  sk-1\n")).toBe("sk-1");
    for (const bad of ["", "   ", "a b", "a\tb", "a\u0000b", "a\u007fb", "x".repeat(4097)]) expect(() => checkApiKey(bad)).toThrow(ProviderError);
    expect(checkApiKey("x".repeat(4096))).toHaveLength(4096);
  });

  test("the missing-key error is recognisable; credentialSource never throws; the keyless client fails with it", async () => {
    const err = await rejection(resolveApiKey({ provider: "openai", env: {}, authFile }));
    expect(isMissingApiKey(err)).toBe(true);
    await writeFile(authFile, "{broken");
    expect(isMissingApiKey(await rejection(resolveApiKey({ provider: "openai", env: {}, authFile })))).toBe(false);
    expect(await credentialSource({ provider: "openai", env: {}, authFile })).toBeUndefined();
    expect(await credentialSource({ provider: "openai", env: { OPENAI_API_KEY: "k" }, authFile })).toBe("env");
    expect(await credentialSource({ provider: "ollama", env: {}, authFile })).toBe("none");
    const failure = await rejection(missingKeyClient("anthropic").stream({} as never, () => {}));
    expect(isMissingApiKey(failure)).toBe(true);
  });
});
