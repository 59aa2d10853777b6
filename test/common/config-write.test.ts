import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { updateConfigFile } from "../../src/common/config-write.ts";
import { ZotError } from "../../src/common/errors.ts";
import { removeTempDirs, tempDir } from "../support/temp.ts";

afterAll(removeTempDirs);

describe("updateConfigFile", () => {
  test("sets and removes fields, keeps unknown ones, writes pretty JSON 0644 atomically", async () => {
    const dir = tempDir("zot-config-write-");
    const path = join(dir, "config.json");
    await updateConfigFile(path, { provider: "openai", model: "gpt-5" });
    expect(readFileSync(path, "utf8")).toBe('{\n  "provider": "openai",\n  "model": "gpt-5"\n}\n');
    expect(statSync(path).mode & 0o777).toBe(0o644);
    writeFileSync(path, JSON.stringify({ provider: "anthropic", theme: "dark", inline_images_enabled: false, last_changelog_shown: "1.2" }));
    await updateConfigFile(path, { provider: "openai", model: "gpt-5-mini", theme: undefined });
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ provider: "openai", inline_images_enabled: false, last_changelog_shown: "1.2", model: "gpt-5-mini" });
    expect(readdirSync(dir)).toEqual(["config.json"]);
  });

  test("a config that is not a JSON object is left alone and the update refused naming the file", async () => {
    const dir = tempDir("zot-config-write-");
    const path = join(dir, "config.json");
    for (const text of ["{ typo", "[1,2]", "42"]) {
      writeFileSync(path, text);
      const err = await updateConfigFile(path, { model: "x" }).catch((error: unknown) => error);
      expect(err).toBeInstanceOf(ZotError);
      expect((err as ZotError).message).toContain(path);
      expect(readFileSync(path, "utf8")).toBe(text);
    }
  });
});
