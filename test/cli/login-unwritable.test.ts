/**
 * `zot login` where auth.json cannot be written and with a key pasted in
 * quotes, through dist/zot. A read-only $ZOT_HOME (here: immutable, which
 * stops root too; skipped where `chattr` does not work) is reported as
 * `cannot write <auth.json>: EPERM`, naming the file — it was the error of
 * the temp file's cleanup, or of the temp file, whose name the user never
 * chose. A key wrapped in quotes is refused before it is stored (runs
 * refuse such a key too: key-shape.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

function chattr(flag: "+i" | "-i", dir: string): boolean {
  return Bun.spawnSync(["chattr", flag, dir], { stdout: "ignore", stderr: "ignore" }).success;
}

/** Whether `chattr +i` works here (root, a file system that supports it). */
function immutableWorks(): boolean {
  const probe = join(env.base, "probe");
  mkdirSync(probe);
  const works = chattr("+i", probe);
  if (works) chattr("-i", probe);
  return works;
}

describe("zot login", () => {
  test("a home where auth.json cannot be written: the error names auth.json, exit 1", async () => {
    if (!immutableWorks()) return;
    const home = join(env.base, "locked-home");
    mkdirSync(home);
    expect(chattr("+i", home)).toBe(true);
    try {
      const result = await env.run(["login", "anthropic"], { home, stdin: "sk-ant-0123456789\n" });
      expect(result.stderr).toBe(`zot: cannot write ${join(home, "auth.json")}: EPERM\n`);
      expect(result.code).toBe(1);
    } finally {
      chattr("-i", home);
    }
  });

  test("a key pasted in quotes is refused and nothing is stored", async () => {
    const result = await env.run(["login", "anthropic"], { stdin: '"sk-ant-0123456789"\n' });
    expect(result.stderr).toBe("zot: the API key is wrapped in quotes, which would be sent as part of it; give it without them\n");
    expect(result.code).toBe(1);
    expect(existsSync(join(env.home, "auth.json"))).toBe(false);
  });
});
