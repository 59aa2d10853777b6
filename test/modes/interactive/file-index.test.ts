/** The @ file index: git ls-files in a repo, a bounded walk elsewhere, directories, fuzzy matches. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileIndex } from "../../../src/modes/interactive/file-index.ts";
import { removeTempDirs, tempDir } from "../../support/temp.ts";

afterAll(removeTempDirs);

function tree(root: string, files: readonly string[]): void {
  for (const file of files) {
    mkdirSync(join(root, file, ".."), { recursive: true });
    writeFileSync(join(root, file), "x");
  }
}

describe("file index", () => {
  test("outside git: a walk that skips node_modules and .git; directories listed; → lists a directory", async () => {
    const root = tempDir("zot-files-");
    tree(root, ["src/app.ts", "src/modes/chat.ts", "README.md", "node_modules/pkg/index.js", ".git/config", "dist/zot"]);
    let changed = 0;
    const index = new FileIndex(root, () => changed++);
    expect(index.state).toBe("idle");
    expect(index.matches("app")).toEqual([]);
    await index.build();
    expect(changed).toBe(1);
    expect(index.state).toBe("ready");
    expect(index.partial).toBe(false);
    const all = index.matches("").map((entry) => entry.path);
    expect(all).toEqual(["src/", "README.md"]);
    expect(index.matches("src/").map((entry) => entry.path)).toEqual(["src/modes/", "src/app.ts"]);
    expect(index.matches("chat").map((entry) => entry.path)).toEqual(["src/modes/chat.ts"]);
    expect(index.matches("index.js")).toEqual([]);
  });

  test("in a git work tree: tracked and untracked files, ignored ones left out", async () => {
    const root = tempDir("zot-files-");
    tree(root, ["a.ts", "lib/b.ts", "ignored.log", "new.txt"]);
    writeFileSync(join(root, ".gitignore"), "*.log\n");
    const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: root, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: root } });
    git("init", "-q");
    git("add", "a.ts", "lib/b.ts", ".gitignore");
    const index = new FileIndex(root);
    await index.build();
    const paths = index.matches("").map((entry) => entry.path).sort();
    expect(paths).toEqual([".gitignore", "a.ts", "lib/", "new.txt"]);
    expect(index.matches("b.ts").map((entry) => entry.path)).toEqual(["lib/b.ts"]);
  });

  test("a repository's core.fsmonitor command is not run (git ls-files would run it), and the files are still listed", async () => {
    const root = tempDir("zot-files-");
    tree(root, ["a.ts", "new.txt"]);
    const marker = join(root, ".git", "fsmonitor-ran"); // inside .git: never listed, removed with the temp dir
    const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: root, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: root } });
    git("init", "-q");
    git("add", "a.ts");
    git("config", "core.fsmonitor", `touch '${marker}'; false`);
    // The hostile config does run for a plain git ls-files (so the test can fail):
    git("ls-files", "--cached", "--others", "--exclude-standard", "-z");
    expect(await Bun.file(marker).exists()).toBe(true);
    Bun.spawnSync(["rm", "-f", marker]);
    const index = new FileIndex(root);
    await index.build();
    expect(index.matches("").map((entry) => entry.path).sort()).toEqual(["a.ts", "new.txt"]);
    expect(await Bun.file(marker).exists()).toBe(false);
  });
});
