/**
 * A FIFO where zot reads a file never hangs a run (common/regular-file.ts:
 * every such open is O_NONBLOCK and refuses what is not a regular file).
 * Before, a FIFO named AGENTS.md in a project blocked `zot -p` in open(2)
 * forever — SIGTERM included, since zot's handler runs on the blocked
 * thread. Each place, through dist/zot: the project's context file,
 * ./.zot/mcp.json, a project extension's extension.json, a --with-skills
 * SKILL.md; $ZOT_HOME's SYSTEM.md, config.json, models.json,
 * models-cache.json, trust.json and auth.json. Each run ends (a 15 s bound
 * kills a hung one and the exit code shows it) and says what it skipped.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

function fifo(path: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  expect(Bun.spawnSync(["mkfifo", path]).success).toBe(true);
  return path;
}

async function answered(args: readonly string[] = [], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  env.server.enqueue({ type: "text", text: "fine" });
  const result = await env.run(["-p", "hi", "--no-session", ...env.providerArgs(), ...args], { env: extraEnv, timeoutMs: 15_000 });
  return result;
}

describe("a FIFO where zot reads a file", () => {
  test("the project's AGENTS.md: the run answers, with a warning naming it", async () => {
    const path = fifo(join(env.cwd, "AGENTS.md"));
    const run = await answered();
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("fine\n");
    expect(run.stderr).toContain(`cannot read ${path}: not a regular file`);
  });

  test("$ZOT_HOME's SYSTEM.md, config.json, models.json and models-cache.json: the run answers", async () => {
    fifo(join(env.home, "SYSTEM.md"));
    const config = fifo(join(env.home, "config.json"));
    const models = fifo(join(env.home, "models.json"));
    fifo(join(env.home, "models-cache.json"));
    const run = await answered();
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("fine\n");
    expect(run.stderr).toContain(`${config}: cannot be read (not a regular file); ignored`);
    expect(run.stderr).toContain(`ignoring ${models}: not a regular file`);
  });

  test("auth.json, when the key would come from it: an error naming it, not a hang", async () => {
    const auth = fifo(join(env.home, "auth.json"));
    const run = await env.run(["-p", "hi", "--no-session", "--provider", "anthropic", "--base-url", env.server.anthropicBaseUrl], { timeoutMs: 15_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot read ${auth}: not a regular file`);
  });

  test("trust.json, ./.zot/mcp.json and a project extension's extension.json: the run answers", async () => {
    fifo(join(env.home, "trust.json"));
    fifo(join(env.cwd, ".zot", "mcp.json"));
    fifo(join(env.cwd, ".zot", "extensions", "trap", "extension.json"));
    const run = await answered(["--trust"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("fine\n");
    expect(run.stderr).toContain("not a regular file");
  });

  test("a --with-skills SKILL.md: the run answers and the skill is skipped with a warning", async () => {
    const skills = join(env.home, "skills");
    const path = fifo(join(skills, "trap", "SKILL.md"));
    mkdirSync(join(skills, "fine"), { recursive: true });
    writeFileSync(join(skills, "fine", "SKILL.md"), "---\nname: fine\ndescription: a fine skill\n---\nbody\n");
    const run = await answered(["--with-skills"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("fine\n");
    expect(run.stderr).toContain(`cannot read ${path}: not a regular file`);
  });
});
