/**
 * `zot ext` against what an interrupted or hostile environment leaves,
 * through the compiled binary: SIGHUP during a git install (the terminal
 * closed) kills the clone and removes the staging copy, as SIGTERM does; a
 * staging dir a killed install left is swept by the next install once its
 * process is gone; a project whose .zot/extensions is a symlink is never
 * removed from, disabled or installed into; `zot ext logs` of a FIFO fails
 * at once instead of hanging.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RunResult, cleanEnv, runZot, zotBinary } from "../support/binary.ts";
import { useProjectDirs } from "../support/env-hooks.ts";
import { waitFor } from "../support/extensions.ts";
import { isAlive } from "../support/processes.ts";
import { PROCESS_MANIFEST, writeExtension } from "../fixtures/ext-install/make.ts";

let base: string;
let home: string;
let cwd: string;
useProjectDirs("zot-ext-leftovers-", (dirs) => ({ base, home, cwd } = dirs));

function ext(args: readonly string[], stdin?: string): Promise<RunResult> {
  return runZot(["ext", ...args], { home, cwd, stdin, timeoutMs: 10_000 });
}

const stagingDirs = (root: string): string[] => (existsSync(root) ? readdirSync(root).filter((name) => name.startsWith(".install-")) : []);

describe("interrupted installs leave nothing", () => {
  test("SIGHUP while git clones: the clone is killed, the staging dir removed, nothing installed", async () => {
    // A `git` on PATH that records its pid and never finishes: the clone zot waits for.
    const bin = join(base, "bin");
    mkdirSync(bin);
    const pidFile = join(base, "git.pid");
    writeFileSync(join(bin, "git"), `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 60\n`);
    chmodSync(join(bin, "git"), 0o755);
    const proc = Bun.spawn([await zotBinary(), "ext", "install", "file:///nowhere/repo.git"], {
      cwd, env: cleanEnv(home, { PATH: `${bin}:${process.env.PATH ?? ""}` }), stdin: "ignore", stdout: "pipe", stderr: "pipe",
    });
    const killer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    try {
      expect(await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", 10_000)).toBe(true);
      const gitPid = Number(readFileSync(pidFile, "utf8").trim());
      expect(stagingDirs(join(home, "extensions"))).toHaveLength(1);
      proc.kill("SIGHUP");
      expect(await proc.exited).not.toBe(0);
      expect(await new Response(proc.stderr).text()).toContain("install interrupted; nothing was installed");
      expect(await waitFor(() => !isAlive(gitPid), 5_000)).toBe(true);
      expect(readdirSync(join(home, "extensions"))).toEqual([]);
    } finally {
      clearTimeout(killer);
      proc.kill("SIGKILL");
    }
  }, 30_000);

  test("a staging dir left by a killed install is swept by the next one once its process is gone; a live one is kept", async () => {
    const root = join(home, "extensions");
    mkdirSync(join(root, ".install-999999999-dead00"), { recursive: true });
    writeFileSync(join(root, ".install-999999999-dead00", "big.bin"), "x".repeat(1024));
    mkdirSync(join(root, `.install-${process.pid}-alive0`));
    const source = writeExtension(join(base, "src", "hello"), PROCESS_MANIFEST, { "hello.sh": "#!/bin/sh\n" });
    const result = await ext(["install", source]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(stagingDirs(root)).toEqual([`.install-${process.pid}-alive0`]);
    expect(existsSync(join(root, "hello"))).toBe(true);
  });
});

describe("a project .zot/extensions that is a symlink", () => {
  test("remove, disable and install --project refuse, naming the link; the directory it points to is untouched", async () => {
    const victim = join(base, "victim");
    writeExtension(join(victim, "important"), { name: "important", exec: "./run.sh" }, { "run.sh": "#!/bin/sh\n" });
    mkdirSync(join(cwd, ".zot"));
    symlinkSync(victim, join(cwd, ".zot", "extensions"));
    const link = join(cwd, ".zot", "extensions");
    const refusal = `zot: ${link} is a symlink (-> ${victim}); zot does not install, remove or change project extensions through a symlink\n`;
    const removed = await ext(["remove", "--yes", "important"]);
    expect(removed.code).toBe(1);
    expect(removed.stderr).toBe(refusal);
    expect(existsSync(join(victim, "important", "run.sh"))).toBe(true);
    const disabled = await ext(["disable", "important"]);
    expect(disabled.stderr).toBe(refusal);
    expect(readFileSync(join(victim, "important", "extension.json"), "utf8")).not.toContain("enabled");
    const source = writeExtension(join(base, "src", "hello"), PROCESS_MANIFEST, { "hello.sh": "#!/bin/sh\n" });
    const installed = await ext(["install", "--project", source]);
    expect(installed.stderr).toBe(refusal);
    expect(readdirSync(victim)).toEqual(["important"]);
  });
});

test("zot ext logs of a FIFO fails at once instead of waiting for a writer", async () => {
  mkdirSync(join(home, "logs"));
  const fifo = join(home, "logs", "ext-foo.log");
  expect(Bun.spawnSync(["mkfifo", fifo]).success).toBe(true);
  const result = await ext(["logs", "foo"]);
  expect(result.code).toBe(1);
  expect(result.stderr).toBe(`zot: cannot read ${fifo} (not a regular file)\n`);
});

describe("an install that cannot write where it installs", () => {
  test("a $ZOT_HOME/extensions that is a file, and a refused --project install, give errors naming the place and leave nothing", async () => {
    const source = writeExtension(join(base, "src", "hello"), PROCESS_MANIFEST, { "hello.sh": "#!/bin/sh\n" });
    writeFileSync(join(home, "extensions"), "not a directory");
    const blocked = await ext(["install", source]);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toBe(`zot: cannot install: ${join(home, "extensions")} is not a directory\n`);
    // Installing a project into itself is refused before anything is made: no empty .zot/extensions stays behind.
    writeExtension(cwd, { name: "self", exec: "./run.sh" }, { "run.sh": "#!/bin/sh\n" });
    const self = await ext(["install", ".", "--project"]);
    expect(self.code).toBe(1);
    expect(self.stderr).toStartWith(`zot: cannot install ${cwd}: the destination`);
    expect(existsSync(join(cwd, ".zot"))).toBe(false);
  });
});
