/**
 * README.md cannot drift from the code: it lists every ZOT_* environment
 * variable that src/ (and install.sh, once it exists) reads, the providers'
 * key variables and the RPC token variable; it keeps the two from-source
 * commands exactly (.ci/run runs the test one); and it names the default
 * provider and model the catalog really uses.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { RPC_TOKEN_ENV } from "../../src/modes/rpc/protocol.ts";
import { API_KEY_ENVS, DEFAULT_MODEL_IDS } from "../../src/providers/index.ts";
import { REPO_ROOT } from "../support/binary.ts";

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every ZOT_* name in src/ that is not a constant the code itself declares (ZOT_VERSION, …), and every one install.sh uses (all environment). */
function zotVariables(): string[] {
  const names = new Set<string>();
  const declared = new Set<string>();
  for (const file of sourceFiles(join(REPO_ROOT, "src"))) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?<![A-Za-z0-9_])ZOT_[A-Z0-9_]*[A-Z0-9]/g)) names.add(match[0]);
    for (const match of text.matchAll(/\b(?:const|let|var)\s+(ZOT_[A-Z0-9_]+)\b/g)) declared.add(match[1]!);
  }
  for (const name of declared) names.delete(name);
  const install = join(REPO_ROOT, "install.sh");
  if (existsSync(install)) {
    for (const match of readFileSync(install, "utf8").matchAll(/(?<![A-Za-z0-9_])ZOT_[A-Z0-9_]*[A-Z0-9]/g)) names.add(match[0]);
  }
  return [...names].sort();
}

/** The names in the README's Environment table. */
function readmeEnvironment(): string {
  const start = README.indexOf("## Environment");
  expect(start).toBeGreaterThan(-1);
  const end = README.indexOf("\n## ", start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

describe("README.md", () => {
  test("lists every ZOT_* variable the code reads, the key variables and ZOTCORE_RPC_TOKEN", () => {
    const variables = zotVariables();
    // The scan finds what it should (a scan that finds nothing would pass anything).
    expect(variables).toEqual(expect.arrayContaining(["ZOT_HOME", "ZOT_STREAM_IDLE_TIMEOUT_MS", "ZOT_THEME", "ZOT_JAIL_READ"]));
    // The constants the code declares are not variables (install.sh's ZOT_VERSION is one, and stays).
    expect(variables).not.toContain("ZOT_SEMVER");
    const table = readmeEnvironment();
    const keys = Object.values(API_KEY_ENVS).flat();
    expect(keys).toEqual(expect.arrayContaining(["KIMI_API_KEY", "MOONSHOT_API_KEY"]));
    const missing = [...variables, ...keys, RPC_TOKEN_ENV, "ZOT_RELEASE_URL", "ZOT_INSTALL_DIR"].filter((name) => !table.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });

  test("keeps the two from-source commands exactly; .ci/run runs the test one", () => {
    expect(README).toContain("```sh\nnpm install && npm run build && ./dist/zot --help\n```");
    expect(README).toContain("```sh\nnpm install && npm test\n```");
    expect(readFileSync(join(REPO_ROOT, ".ci", "run"), "utf8")).toContain("npm install && npm test");
  });

  test("names the real default provider and model, the one-line install and the three ways to give a key", () => {
    expect(README).toContain(`**Anthropic** with **\`${DEFAULT_MODEL_IDS.anthropic}\`**`);
    expect(README).toContain(`defaults to \`${DEFAULT_MODEL_IDS.openai}\``);
    expect(README).toContain("curl -fsSL https://github.com/zot-agent/zot/releases/latest/download/install.sh | sh");
    for (const way of ["**An environment variable**", "**`zot login`**", "**`$ZOT_HOME/auth.json`**"]) expect(README).toContain(way);
  });
});
