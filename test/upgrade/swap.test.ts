/**
 * upgrade/swap.ts, both branches run here on real files: the POSIX swap
 * (also covered through the binary in upgrade-binary.test.ts) and the
 * Windows sequence (rename the running exe aside, rename the new one in,
 * undo both when it fails --version). The Windows branch's logic is what
 * is tested; Windows' own rules for a running .exe are not (docs/windows.md).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { swapExecutable } from "../../src/upgrade/swap.ts";
import { fakeZotScript } from "../support/release-server.ts";
import { removeTempDirs, tempDir } from "../support/temp.ts";

afterAll(removeTempDirs);

function setUp(newScript: string): { dir: string; exe: string; candidate: string } {
  const dir = tempDir("zot-swap-");
  const exe = join(dir, "zot");
  const candidate = join(dir, ".zot.upgrade-1");
  writeFileSync(exe, fakeZotScript("1.0.0"), { mode: 0o755 });
  writeFileSync(candidate, newScript, { mode: 0o755 });
  return { dir, exe, candidate };
}

for (const platform of ["linux", "win32"] as const) {
  describe(`swapExecutable (${platform} branch)`, () => {
    test("the new binary takes the name; nothing else is left", async () => {
      const { dir, exe, candidate } = setUp(fakeZotScript("2.0.0"));
      const inode = statSync(candidate).ino;
      await swapExecutable({ exe, candidate, version: "2.0.0", platform });
      expect(statSync(exe).ino).toBe(inode);
      expect(readdirSync(dir)).toEqual(["zot"]);
    });

    test("a new binary that fails --version once in place is undone: the old one is back, nothing else is left", async () => {
      const { dir, exe, candidate } = setUp(`#!/bin/sh\ncase "$0" in */.zot.upgrade-*) echo "zot 2.0.0" ;; *) exit 7 ;; esac\n`);
      await expect(swapExecutable({ exe, candidate, version: "2.0.0", platform })).rejects.toThrow(
        `the installed ${exe} answered --version with exit 7 and no output, expected "zot 2.0.0"; rolled back: the previous zot is back at ${exe}`,
      );
      expect(readFileSync(exe, "utf8")).toBe(fakeZotScript("1.0.0"));
      expect(readdirSync(dir)).toEqual(["zot"]);
    });
  });
}
