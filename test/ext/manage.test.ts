/** enable/disable rewrites (fields, key order, mode kept) and removal of installed extensions. */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeInstalled, removeTree, serialiseOrdered, setEnabled, topLevelKeys } from "../../src/ext/manage.ts";
import { loadManifest } from "../../src/ext/manifest.ts";
import { tempDir } from "../support/binary.ts";
import { writeExtension } from "../fixtures/ext-install/make.ts";
import { removeTempDirs } from "../support/temp.ts";
import { caughtZotError } from "../support/errors.ts";
import { ZotError } from "../../src/common/errors.ts";

afterAll(removeTempDirs);

let base: string;

beforeEach(() => {
  base = tempDir("zot-manage-");
});

afterEach(() => rmSync(base, { recursive: true, force: true }));


function manifestText(dir: string): string {
  return readFileSync(join(dir, "extension.json"), "utf8");
}

describe("setEnabled", () => {
  test("disable appends enabled:false and keeps every field in the original order", async () => {
    const original = '{"zeta": 1, "name": "todo", "exec": "./todo", "10": "numeric key", "custom": {"b": [1, 2], "a": null}, "args": ["-v"]}';
    const dir = writeExtension(join(base, "todo"), original);

    expect(await setEnabled(dir, false)).toBe("changed");
    const text = manifestText(dir);
    expect(text).toBe(
      '{\n  "zeta": 1,\n  "name": "todo",\n  "exec": "./todo",\n  "10": "numeric key",\n' +
        '  "custom": {\n    "b": [\n      1,\n      2\n    ],\n    "a": null\n  },\n  "args": [\n    "-v"\n  ],\n' +
        '  "enabled": false\n}\n',
    );
    expect((await loadManifest(dir)).enabled).toBe(false);
  });

  test("enable flips an existing field in place", async () => {
    const dir = writeExtension(join(base, "todo"), { name: "todo", enabled: false, exec: "./todo", description: "d" });
    expect(await setEnabled(dir, true)).toBe("changed");
    expect(Object.keys(JSON.parse(manifestText(dir)))).toEqual(["name", "enabled", "exec", "description"]);
    expect(JSON.parse(manifestText(dir)).enabled).toBe(true);
  });

  test("a manifest that already has enabled keeps exactly one, in its place", async () => {
    const dir = writeExtension(join(base, "todo"), '{"enabled": true, "name": "todo", "exec": "./todo", "zeta": [1]}');
    expect(await setEnabled(dir, false)).toBe("changed");
    expect(manifestText(dir)).toBe('{\n  "enabled": false,\n  "name": "todo",\n  "exec": "./todo",\n  "zeta": [\n    1\n  ]\n}\n');
    expect(await setEnabled(dir, true)).toBe("changed");
    expect(manifestText(dir).match(/"enabled"/g)).toHaveLength(1);
    expect(manifestText(dir)).toStartWith('{\n  "enabled": true,\n  "name": "todo"');
  });

  test("never writes through a symlinked manifest or extension directory", async () => {
    const outside = writeExtension(join(base, "outside"), '{"name":"todo","exec":"./todo"}');
    const dir = join(base, "installed", "todo");
    mkdirSync(dir, { recursive: true });
    symlinkSync(join(outside, "extension.json"), join(dir, "extension.json"));
    const linked = await caughtZotError(setEnabled(dir, false));
    expect(linked.code).toBe("ext.manifest_symlink");
    expect(linked.message).toBe(
      `${join(dir, "extension.json")} is a symlink (-> ${join(outside, "extension.json")}); zot does not write through symlinks: ` +
        `set "enabled" in ${join(dir, "extension.json")} by hand`,
    );
    symlinkSync(outside, join(base, "installed", "linked-dir"));
    const linkedDir = await caughtZotError(setEnabled(join(base, "installed", "linked-dir"), false));
    expect(linkedDir.message).toStartWith(`the extension directory ${join(base, "installed", "linked-dir")} is a symlink (-> ${outside})`);
    expect(manifestText(outside)).toBe('{"name":"todo","exec":"./todo"}');
  });

  test("a hardlinked manifest is replaced, not written through", async () => {
    const outside = writeExtension(join(base, "outside"), '{"name":"todo","exec":"./todo"}');
    const dir = join(base, "installed", "todo");
    mkdirSync(dir, { recursive: true });
    linkSync(join(outside, "extension.json"), join(dir, "extension.json"));
    expect(await setEnabled(dir, false)).toBe("changed");
    expect(JSON.parse(manifestText(dir)).enabled).toBe(false);
    expect(manifestText(outside)).toBe('{"name":"todo","exec":"./todo"}');
  });

  test("an already-matching state writes nothing", async () => {
    const compact = '{"name":"todo","exec":"./todo"}';
    const dir = writeExtension(join(base, "todo"), compact);
    expect(await setEnabled(dir, true)).toBe("unchanged");
    expect(manifestText(dir)).toBe(compact);
    await setEnabled(dir, false);
    const disabled = manifestText(dir);
    expect(await setEnabled(dir, false)).toBe("unchanged");
    expect(manifestText(dir)).toBe(disabled);
  });

  test("keeps the file mode and leaves no temp files", async () => {
    const dir = writeExtension(join(base, "todo"), { name: "todo", exec: "./todo" });
    chmodSync(join(dir, "extension.json"), 0o600);
    await setEnabled(dir, false);
    expect(statSync(join(dir, "extension.json")).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["extension.json"]);
  });

  test("invalid JSON is an error naming the file and the file is untouched", async () => {
    const dir = writeExtension(join(base, "bad"), "{ nope");
    let error: unknown;
    try {
      await setEnabled(dir, false);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ZotError);
    expect((error as ZotError).message).toContain(join(dir, "extension.json"));
    expect(manifestText(dir)).toBe("{ nope");
  });
});

describe("key order helpers", () => {
  test("topLevelKeys ignores nested keys and punctuation inside strings", () => {
    const text = '{"a": "x,\\"y\\": {", "b": {"inner": [1, {"deep": 2}]}, "c": [",", "}"], "a": 3}';
    expect(topLevelKeys(text)).toEqual(["a", "b", "c"]);
  });

  test("serialiseOrdered follows the given order and appends unknown keys", () => {
    expect(serialiseOrdered({ b: 1, a: 2, c: 3 }, ["c", "a"])).toBe('{\n  "c": 3,\n  "a": 2,\n  "b": 1\n}\n');
    expect(serialiseOrdered({}, [])).toBe("{}\n");
  });
});

describe("removeInstalled", () => {
  test("deletes the directory with its state", async () => {
    const dir = writeExtension(join(base, "todo"), { name: "todo", exec: "./todo" }, { "state/todos.json": "[]" });
    await removeInstalled(dir);
    expect(existsSync(dir)).toBe(false);
  });

  test("refuses a directory without a manifest", async () => {
    const dir = join(base, "leftover");
    mkdirSync(dir);
    writeFileSync(join(dir, "todos.json"), "[]");
    await expect(removeInstalled(dir)).rejects.toThrow("has no extension.json");
    expect(existsSync(join(dir, "todos.json"))).toBe(true);
  });

  test("a symlinked install is unlinked; its target survives", async () => {
    const target = writeExtension(join(base, "work", "todo"), { name: "todo", exec: "./todo" });
    const link = join(base, "linked");
    symlinkSync(target, link);
    await removeInstalled(link);
    expect(existsSync(link)).toBe(false);
    expect(existsSync(join(target, "extension.json"))).toBe(true);
  });

  test("removeTree handles read-only directories and missing paths", async () => {
    const dir = join(base, "ro");
    mkdirSync(join(dir, "inner"), { recursive: true });
    writeFileSync(join(dir, "inner", "f"), "x");
    chmodSync(join(dir, "inner"), 0o555);
    await removeTree(dir);
    expect(existsSync(dir)).toBe(false);
    await removeTree(join(base, "never-existed"));
  });
});
