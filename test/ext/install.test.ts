/**
 * installExtension against real temp dirs and real git repositories: copies,
 * shallow clones, validation, and complete rollback on every failure path.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync,
  symlinkSync, writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { type ZotPaths, zotPaths } from "../../src/common/home.ts";
import { defaultDirName, installExtension, isGitUrl } from "../../src/ext/install.ts";
import { tempDir } from "../support/binary.ts";
import { caughtZotError } from "../support/errors.ts";
import { PROCESS_MANIFEST, git, makeBareRepo, writeExtension } from "../fixtures/ext-install/make.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

let base: string;
let cwd: string;
let paths: ZotPaths;

beforeEach(() => {
  base = tempDir("zot-install-");
  cwd = join(base, "cwd");
  mkdirSync(cwd);
  paths = zotPaths(join(base, "home"));
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

const caught = caughtZotError;

/** Everything under the root, dot-entries (staging dirs) included. */
function rootEntries(root: string = paths.extensions): string[] {
  return existsSync(root) ? readdirSync(root).sort() : [];
}

function source(name = "hello", files: Record<string, string> = { "hello.sh": "#!/bin/sh\necho hi\n" }): string {
  return writeExtension(join(base, "src", name), PROCESS_MANIFEST, files);
}

describe("source classification", () => {
  test.each([
    ["https://github.com/u/zot-todo", true],
    ["http://host/x", true],
    ["ssh://git@host/u/x", true],
    ["git://host/x", true],
    ["file:///tmp/repo.git", true],
    ["git@github.com:u/repo", true],
    ["../some/dir.git", true],
    ["./my-ext", false],
    ["/abs/path/ext", false],
    [".", false],
  ])("%s → git %p", (input, expected) => {
    expect(isGitUrl(input)).toBe(expected);
  });

  test("directory names come from the last segment, .git stripped", () => {
    expect(defaultDirName("https://github.com/u/zot-todo.git", "git", "/x")).toBe("zot-todo");
    expect(defaultDirName("git@github.com:u/repo.git", "git", "/x")).toBe("repo");
    expect(defaultDirName("file:///tmp/a/b.git/", "git", "/x")).toBe("b");
    expect(defaultDirName(".", "path", "/work/my-ext")).toBe("my-ext");
    expect(defaultDirName("../other", "path", "/work/my-ext")).toBe("other");
  });
});

describe("install from a path", () => {
  test("copies the tree with modes and reports name and version", async () => {
    const dir = source("hello", { "hello.sh": "#!/bin/sh\necho hi\n", "lib/data.txt": "data" });
    chmodSync(join(dir, "hello.sh"), 0o755);
    chmodSync(join(dir, "lib/data.txt"), 0o640);

    const result = await installExtension(dir, { paths, cwd, project: false });
    const dest = join(paths.extensions, "hello");
    expect(result).toEqual({ kind: "path", scope: "global", dest, name: "hello", version: "1.2.3" });
    expect(statSync(join(dest, "hello.sh")).mode & 0o777).toBe(0o755);
    expect(statSync(join(dest, "lib/data.txt")).mode & 0o777).toBe(0o640);
    expect(rootEntries()).toEqual(["hello"]);
  });

  test("an extension.json over 1 MiB is refused by size, nothing installed", async () => {
    const dir = writeExtension(join(base, "src", "huge"), { ...PROCESS_MANIFEST, description: "d".repeat(2 * 1024 * 1024) }, { "hello.sh": "#!/bin/sh\n" });
    await expect(installExtension(dir, { paths, cwd, project: false })).rejects.toThrow(/extension\.json: is \d+ bytes, over the 1048576-byte limit for a manifest$/);
    expect(rootEntries()).toEqual([]);
  });

  test("group and other write permission is not copied (code others could change, and you then run)", async () => {
    const dir = source("hello", { "hello.sh": "#!/bin/sh\necho hi\n", "lib/data.txt": "data" });
    chmodSync(join(dir, "hello.sh"), 0o777);
    chmodSync(join(dir, "lib"), 0o777);
    chmodSync(dir, 0o777);
    await installExtension(dir, { paths, cwd, project: false });
    const dest = join(paths.extensions, "hello");
    expect(statSync(join(dest, "hello.sh")).mode & 0o777).toBe(0o755);
    expect(statSync(join(dest, "lib")).mode & 0o777).toBe(0o755);
    expect(statSync(dest).mode & 0o777).toBe(0o755);
  });

  test("symlinks inside the tree are recreated as relative links into the copy, never followed", async () => {
    const dir = source("hello", { "lib/data.txt": "data", "node_modules/pkg/cli.js": "cli" });
    mkdirSync(join(dir, "node_modules", ".bin"));
    symlinkSync("../pkg/cli.js", join(dir, "node_modules", ".bin", "pkg"));
    symlinkSync(join(dir, "lib", "data.txt"), join(dir, "absolute-inside.txt"));
    symlinkSync("lib", join(dir, "lib-link"));
    symlinkSync(".", join(dir, "self"));
    const chain = join(dir, "chain");
    symlinkSync("absolute-inside.txt", chain);

    const { dest } = await installExtension(dir, { paths, cwd, project: false });
    for (const [link, text] of [["node_modules/.bin/pkg", "../pkg/cli.js"], ["absolute-inside.txt", "lib/data.txt"], ["lib-link", "lib"], ["self", "."], ["chain", "lib/data.txt"]]) {
      expect(lstatSync(join(dest, link!)).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(dest, link!))).toBe(text!);
    }
    expect(realpathSync(join(dest, "absolute-inside.txt"))).toBe(realpathSync(join(dest, "lib", "data.txt")));
    expect(readFileSync(join(dest, "lib-link", "data.txt"), "utf8")).toBe("data");
  });

  test.each([
    ["a directory outside (big -> /usr)", "/usr"],
    ["a file outside", "../../../outside.txt"],
    ["a relative path climbing out", "../.."],
  ])("a symlink to %s is refused, naming the link; nothing is installed", async (_label, target) => {
    writeFileSync(join(base, "outside.txt"), "secret");
    const dir = source("hello", { "lib/a.txt": "a" });
    symlinkSync(target, join(dir, "lib", "big"));
    const err = await caught(installExtension(dir, { paths, cwd, project: false }));
    expect(err.code).toBe("ext.symlink_outside");
    expect(err.message).toBe(
      `cannot install ${dir}: symlink ${join(dir, "lib", "big")} points outside the extension (-> ${target}); ` +
        "zot does not follow links out of an extension: replace it with a copy or remove it",
    );
    expect(rootEntries()).toEqual([]);
  });

  test("a hardlink to a file outside the tree becomes an independent copy", async () => {
    const outside = join(base, "outside.txt");
    writeFileSync(outside, "shared");
    const dir = source("hello");
    linkSync(outside, join(dir, "hard.txt"));
    const { dest } = await installExtension(dir, { paths, cwd, project: false });
    const copy = join(dest, "hard.txt");
    expect(statSync(copy).ino).not.toBe(statSync(outside).ino);
    expect(statSync(copy).nlink).toBe(1);
    writeFileSync(copy, "changed in the install");
    expect(readFileSync(outside, "utf8")).toBe("shared");
  });

  test("'.' is resolved against cwd and named after that directory", async () => {
    const dir = source("dot-ext");
    const result = await installExtension(".", { paths, cwd: dir, project: false });
    expect(result.dest).toBe(join(paths.extensions, "dot-ext"));
    expect(existsSync(join(result.dest, "extension.json"))).toBe(true);
  });

  test("--project installs under <cwd>/.zot/extensions and --name picks the directory", async () => {
    const result = await installExtension(source(), { paths, cwd, project: true, name: "greeter" });
    expect(result.dest).toBe(join(cwd, ".zot", "extensions", "greeter"));
    expect(result.scope).toBe("project");
    expect(rootEntries()).toEqual([]);
  });

  test("an existing install is never overwritten", async () => {
    const dir = source();
    const first = await installExtension(dir, { paths, cwd, project: false });
    writeFileSync(join(first.dest, "state.json"), "mine");
    const err = await caught(installExtension(dir, { paths, cwd, project: false }));
    expect(err.code).toBe("ext.exists");
    expect(err.message).toBe(`${first.dest} already exists; run 'zot ext remove hello' first`);
    expect(readFileSync(join(first.dest, "state.json"), "utf8")).toBe("mine");
    expect(rootEntries()).toEqual(["hello"]);
  });

  test("a leftover directory without a manifest blocks the install with a hint", async () => {
    mkdirSync(join(paths.extensions, "hello"), { recursive: true });
    const err = await caught(installExtension(source(), { paths, cwd, project: false }));
    expect(err.message).toContain("has no extension.json");
  });

  test("the same manifest name under another directory in the scope is refused", async () => {
    await installExtension(source(), { paths, cwd, project: false });
    const err = await caught(installExtension(source(), { paths, cwd, project: false, name: "hello-2" }));
    expect(err.code).toBe("ext.name_taken");
    expect(rootEntries()).toEqual(["hello"]);
  });

  test("an invalid manifest installs nothing", async () => {
    const dir = writeExtension(join(base, "src", "bad"), { name: "bad" });
    const err = await caught(installExtension(dir, { paths, cwd, project: false }));
    expect(err.message).toContain('field "exec"');
    expect(rootEntries()).toEqual([]);
  });

  test("a missing source and a missing manifest are errors naming the path", async () => {
    const missing = join(base, "nope");
    expect((await caught(installExtension(missing, { paths, cwd, project: false }))).message).toBe(`source ${missing} does not exist`);
    const empty = join(base, "empty");
    mkdirSync(empty);
    expect((await caught(installExtension(empty, { paths, cwd, project: false }))).message).toContain(join(empty, "extension.json"));
    expect(rootEntries()).toEqual([]);
  });

  test("a dangling symlink midway rolls the copy back completely", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) files[`a${i}.txt`] = "x";
    const dir = source("hello", files);
    symlinkSync(join(base, "does-not-exist"), join(dir, "m-dangling"));
    const err = await caught(installExtension(dir, { paths, cwd, project: false }));
    expect(err.code).toBe("ext.copy_failed");
    expect(err.message).toContain("m-dangling");
    expect(rootEntries()).toEqual([]);
    expect(existsSync(paths.extensions)).toBe(true);
  });

  test("a FIFO in the source rolls back instead of hanging", async () => {
    const dir = source("hello", { "sub/a.txt": "x" });
    const mkfifo = Bun.spawnSync(["mkfifo", join(dir, "sub", "pipe")]);
    expect(mkfifo.success).toBe(true);
    const err = await caught(installExtension(dir, { paths, cwd, project: false }));
    expect(err.message).toContain("not a regular file or directory");
    expect(rootEntries()).toEqual([]);
  });

  test("an abort midway through the copy rolls back", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`f${i}.txt`] = "x";
    let checks = 0;
    const abortsLater = {
      get aborted(): boolean {
        return ++checks > 10;
      },
      addEventListener(): void {},
      removeEventListener(): void {},
    } as unknown as AbortSignal;
    const err = await caught(installExtension(source("hello", files), { paths, cwd, project: false, signal: abortsLater }));
    expect(err.code).toBe("ext.install_interrupted");
    expect(checks).toBeGreaterThan(10);
    expect(rootEntries()).toEqual([]);
  });

  test("installing a directory into itself is refused", async () => {
    const home = join(base, "self");
    const selfPaths = zotPaths(home);
    writeExtension(home, { name: "self", exec: "./x" });
    const err = await caught(installExtension(home, { paths: selfPaths, cwd, project: false }));
    expect(err.code).toBe("ext.install_into_self");
    expect(rootEntries(selfPaths.extensions)).toEqual([]);
  });

  test("bad directory names are refused", async () => {
    const err = await caught(installExtension(source(), { paths, cwd, project: false, name: "../escape" }));
    expect(err.code).toBe("ext.bad_dir_name");
    expect(existsSync(join(paths.home, "escape"))).toBe(false);
  });
});

describe("install from git", () => {
  test("shallow-clones a file:// repository", async () => {
    const bare = makeBareRepo(join(base, "repos"), "zot-hello", PROCESS_MANIFEST, { "hello.sh": "#!/bin/sh\n" });
    const result = await installExtension(`file://${bare}`, { paths, cwd, project: false });
    const dest = join(paths.extensions, "zot-hello");
    expect(result).toEqual({ kind: "git", scope: "global", dest, name: "hello", version: "1.2.3" });
    expect(readFileSync(join(dest, "hello.sh"), "utf8")).toBe("#!/bin/sh\n");
    expect(readFileSync(join(dest, ".git", "shallow"), "utf8").trim()).toMatch(/^[0-9a-f]{40}$/);
    expect(statSync(dest).mode & 0o777).toBe(0o755);
    expect(rootEntries()).toEqual(["zot-hello"]);
  });

  test("a repository with an invalid manifest is rolled back", async () => {
    const bare = makeBareRepo(join(base, "repos"), "broken", '{"name": "broken", "exec": 5}');
    const url = `file://${bare}`;
    const err = await caught(installExtension(url, { paths, cwd, project: false }));
    expect(err.code).toBe("ext.invalid_manifest");
    expect(err.message).toBe(`${url}: extension.json field "exec": expected a string; nothing was installed`);
    expect(rootEntries()).toEqual([]);
  });

  test("a repository without a manifest is rolled back", async () => {
    const bare = makeBareRepo(join(base, "repos"), "plain", { name: "plain", exec: "./x" });
    const work = join(base, "repos", "work-plain");
    rmSync(join(work, "extension.json"));
    Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "drop manifest"], { cwd: work });
    Bun.spawnSync(["git", "push", "-q", bare, "HEAD"], { cwd: work });
    const err = await caught(installExtension(`file://${bare}`, { paths, cwd, project: false }));
    expect(err.message).toContain("extension.json not found");
    expect(rootEntries()).toEqual([]);
  });

  test.each([
    ["outside the repository", "/usr"],
    ["climbing out", "../../.."],
    ["to nothing", "does-not-exist"],
  ])("a repository with a symlink %s is refused, naming the link", async (_label, target) => {
    const work = writeExtension(join(base, "repos", "work-linky"), PROCESS_MANIFEST, { "hello.sh": "#!/bin/sh\n" });
    symlinkSync(target, join(work, "big"));
    git(["init", "--quiet"], work);
    git(["add", "-A"], work);
    git(["commit", "--quiet", "-m", "link"], work);
    const bare = join(base, "repos", "linky.git");
    git(["clone", "--quiet", "--bare", work, bare], base);
    const url = `file://${bare}`;
    const err = await caught(installExtension(url, { paths, cwd, project: false }));
    expect(err.message).toStartWith(`cannot install ${url}: `);
    expect(err.message).toContain("big");
    expect(err.message).toContain(`-> ${target}`);
    expect(rootEntries()).toEqual([]);
  });

  test("a repository with links that stay inside installs with them", async () => {
    const work = writeExtension(join(base, "repos", "work-inside"), PROCESS_MANIFEST, { "hello.sh": "#!/bin/sh\n", "lib/x.txt": "x" });
    symlinkSync("lib/x.txt", join(work, "x-link"));
    git(["init", "--quiet"], work);
    git(["add", "-A"], work);
    git(["commit", "--quiet", "-m", "inside"], work);
    const bare = join(base, "repos", "inside.git");
    git(["clone", "--quiet", "--bare", work, bare], base);
    const { dest } = await installExtension(`file://${bare}`, { paths, cwd, project: false });
    expect(readlinkSync(join(dest, "x-link"))).toBe("lib/x.txt");
  });

  test("a failing clone shows git's stderr and leaves nothing behind", async () => {
    const url = `file://${join(base, "missing.git")}`;
    const err = await caught(installExtension(url, { paths, cwd, project: false }));
    expect(err.code).toBe("ext.clone_failed");
    expect(err.message).toStartWith(`git clone ${url} failed (exit 128):\n  `);
    expect(err.message.toLowerCase()).toContain("repository");
    expect(rootEntries()).toEqual([]);
  });
});
