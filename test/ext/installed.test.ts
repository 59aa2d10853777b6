/** Scanning both extension scopes and resolving a name (manifest or directory) to one installation. */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type ZotPaths, zotPaths } from "../../src/common/home.ts";
import { findInstalled, listInstalled } from "../../src/ext/installed.ts";
import { setEnabled } from "../../src/ext/manage.ts";
import { tempDir } from "../support/binary.ts";
import { caughtZotError } from "../support/errors.ts";
import { writeExtension } from "../fixtures/ext-install/make.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

let base: string;
let cwd: string;
let paths: ZotPaths;
let projectRoot: string;

beforeEach(() => {
  base = tempDir("zot-installed-");
  cwd = join(base, "project");
  projectRoot = join(cwd, ".zot", "extensions");
  paths = zotPaths(join(base, "home"));
  mkdirSync(cwd, { recursive: true });
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

function manifest(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, exec: "./run", ...extra };
}

const caught = caughtZotError;

describe("listInstalled", () => {
  test("lists project entries first, ignores dirs without a manifest and dot-dirs, reports bad manifests", async () => {
    writeExtension(join(paths.extensions, "alpha"), manifest("alpha", { version: "1.0.0" }));
    writeExtension(join(paths.extensions, "broken"), '{ "name": "broken", ');
    mkdirSync(join(paths.extensions, "state-only"), { recursive: true });
    writeExtension(join(paths.extensions, ".install-abc123"), manifest("staged"));
    writeExtension(join(projectRoot, "zeta"), manifest("zeta"));

    const entries = await listInstalled({ cwd, paths });
    expect(entries.map((entry) => [entry.scope, entry.dirName, entry.status])).toEqual([
      ["project", "zeta", "ok"],
      ["global", "alpha", "ok"],
      ["global", "broken", "invalid"],
    ]);
    const broken = entries[2];
    if (broken?.status !== "invalid") throw new Error("expected an invalid entry");
    expect(broken.error.message).toContain(join(paths.extensions, "broken", "extension.json"));
    expect(broken.error.message).toContain("not valid JSON");
  });

  test("a schema error (missing exec) is reported with the field", async () => {
    writeExtension(join(paths.extensions, "noexec"), { name: "noexec" });
    const [entry] = await listInstalled({ cwd, paths });
    if (entry?.status !== "invalid") throw new Error("expected an invalid entry");
    expect(entry.error.message).toContain('"exec"');
  });

  test("missing roots mean nothing installed", async () => {
    expect(await listInstalled({ cwd, paths })).toEqual([]);
  });

  test("a project root that is the global root is scanned once", async () => {
    const sharedPaths = zotPaths(join(cwd, ".zot"));
    writeExtension(join(sharedPaths.extensions, "solo"), manifest("solo"));
    const entries = await listInstalled({ cwd, paths: sharedPaths });
    expect(entries.map((entry) => entry.scope)).toEqual(["global"]);
    expect((await findInstalled("solo", { cwd, paths: sharedPaths })).dirName).toBe("solo");
  });
});

describe("findInstalled", () => {
  test("resolves the manifest name and the directory name to the same install", async () => {
    const dir = writeExtension(join(paths.extensions, "zot-todo"), manifest("todo"));
    expect((await findInstalled("todo", { cwd, paths })).dir).toBe(dir);
    expect((await findInstalled("zot-todo", { cwd, paths })).dir).toBe(dir);
  });

  test("searches the project scope too", async () => {
    const dir = writeExtension(join(projectRoot, "local-dir"), manifest("local"));
    const byName = await findInstalled("local", { cwd, paths });
    expect(byName.dir).toBe(dir);
    expect(byName.scope).toBe("project");
    expect((await findInstalled("local-dir", { cwd, paths })).scope).toBe("project");
  });

  test("a broken manifest can still be found by its directory name", async () => {
    const dir = writeExtension(join(paths.extensions, "broken"), "not json");
    const entry = await findInstalled("broken", { cwd, paths });
    expect(entry.dir).toBe(dir);
    expect(entry.status).toBe("invalid");
  });

  test("nothing matching names the directories searched", async () => {
    writeExtension(join(paths.extensions, "other"), manifest("other"));
    const err = await caught(findInstalled("ghost", { cwd, paths }));
    expect(err.code).toBe("ext.not_installed");
    expect(err.message).toBe(`extension "ghost" is not installed (looked in ${projectRoot}, ${paths.extensions})`);
  });

  test("the same name in both scopes is ambiguous and lists both paths", async () => {
    const project = writeExtension(join(projectRoot, "todo"), manifest("todo"));
    const global = writeExtension(join(paths.extensions, "todo"), manifest("todo"));
    const err = await caught(findInstalled("todo", { cwd, paths }));
    expect(err.code).toBe("ext.ambiguous");
    expect(err.message).toContain(project);
    expect(err.message).toContain(global);
  });

  test("a manifest name matching another install's directory name is ambiguous; nothing changes", async () => {
    const byDir = writeExtension(join(paths.extensions, "todo"), manifest("first"));
    const byName = writeExtension(join(paths.extensions, "zot-todo"), manifest("todo"));
    const before = [readFileSync(join(byDir, "extension.json"), "utf8"), readFileSync(join(byName, "extension.json"), "utf8")];

    const err = await caught(findInstalled("todo", { cwd, paths }).then((entry) => setEnabled(entry.dir, false)));
    expect(err.code).toBe("ext.ambiguous");
    expect(err.message).toContain(`${byDir} (global, directory name)`);
    expect(err.message).toContain(`${byName} (global, manifest name)`);
    expect([readFileSync(join(byDir, "extension.json"), "utf8"), readFileSync(join(byName, "extension.json"), "utf8")]).toEqual(before);
    expect(existsSync(byDir) && existsSync(byName)).toBe(true);
  });

  test("one directory matching by both name and directory is not ambiguous", async () => {
    const dir = writeExtension(join(paths.extensions, "todo"), manifest("todo"));
    expect((await findInstalled("todo", { cwd, paths })).dir).toBe(dir);
  });
});
