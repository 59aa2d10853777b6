import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, tightenPath } from "../../src/common/private.ts";
import { saveApiKey } from "../../src/providers/credentials.ts";
import { removeTempDirs, tempDir } from "../support/temp.ts";

afterAll(removeTempDirs);

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

test("ensurePrivateDir creates missing directories 0700 and tightens an existing one", () => {
  const root = tempDir();
  const nested = join(root, "a", "b");
  ensurePrivateDir(nested);
  expect(mode(join(root, "a"))).toBe(0o700);
  expect(mode(nested)).toBe(0o700);
  const open = join(root, "open");
  mkdirSync(open, { mode: 0o755 });
  chmodSync(open, 0o755);
  ensurePrivateDir(open);
  expect(mode(open)).toBe(0o700);
});

test("tightenPath drops group/other bits, leaves private files alone and never throws", () => {
  const root = tempDir();
  const file = join(root, "f");
  writeFileSync(file, "x");
  chmodSync(file, 0o644);
  tightenPath(file);
  expect(mode(file)).toBe(0o600);
  chmodSync(file, 0o400);
  tightenPath(file);
  expect(mode(file)).toBe(0o400);
  expect(() => tightenPath(join(root, "missing"))).not.toThrow();
});

test("saveApiKey writes auth.json 0600 in a 0700 directory, replacing a world-readable one", async () => {
  const home = join(tempDir(), "zot-home");
  mkdirSync(home, { mode: 0o755 });
  chmodSync(home, 0o755);
  const auth = join(home, "auth.json");
  writeFileSync(auth, JSON.stringify({ openai: { api_key: "other" } }));
  chmodSync(auth, 0o644);
  await saveApiKey("anthropic", "secret", auth);
  expect(mode(auth)).toBe(0o600);
  expect(mode(home)).toBe(0o700);
  expect(JSON.parse(readFileSync(auth, "utf8"))).toEqual({ openai: { api_key: "other" }, anthropic: { api_key: "secret" } });
});
