/**
 * What the project fingerprint covers (src/trust/fingerprint.ts), on real
 * files: the manifest, an exec inside the extension directory, the script
 * files an interpreter exec names in args (not other args, not files
 * outside the directory, symlinks resolved), ./.zot/mcp.json; the language
 * guess; changes reported per item; only the first HASH_LIMIT_BYTES + size.
 */
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "../support/temp.ts";
import { HASH_LIMIT_BYTES, compareItems, fingerprintProject, type ExtensionToFingerprint } from "../../src/trust/index.ts";

afterAll(removeTempDirs);

function extension(root: string, name: string, manifest: Record<string, unknown>, files: Record<string, string>): ExtensionToFingerprint {
  const dir = join(root, ".zot", "extensions", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name, ...manifest }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  const exec = manifest.exec as string | undefined;
  return {
    name,
    dir,
    manifestPath: join(dir, "extension.json"),
    ...(exec !== undefined ? { exec, execPath: exec.startsWith(".") ? join(dir, exec) : `/usr/bin/${exec}` } : {}),
    args: (manifest.args as string[] | undefined) ?? [],
  };
}

test("an interpreter exec: the manifest and the named scripts inside the directory are hashed, nothing else", () => {
  const root = tempDir("zot-fp-");
  const py = extension(root, "py", { exec: "python3", args: ["-u", "main.py", "../outside.py", "helper.py"] }, { "main.py": "print(1)\n", "helper.py": "x = 1\n" });
  writeFileSync(join(root, ".zot", "extensions", "outside.py"), "evil\n");
  const first = fingerprintProject(root, [py]);
  expect(first.items).toHaveLength(1);
  expect(first.items[0]).toMatchObject({ kind: "extension", name: "py", exec: "python3 -u main.py ../outside.py helper.py", language: "python" });
  expect(first.items[0]!.files).toEqual([py.manifestPath, join(py.dir, "main.py"), join(py.dir, "helper.py")]);
  // A change to a hashed script changes the item; one to a file outside does not.
  writeFileSync(join(root, ".zot", "extensions", "outside.py"), "more evil\n");
  expect(fingerprintProject(root, [py]).fingerprint).toBe(first.fingerprint);
  writeFileSync(join(py.dir, "helper.py"), "x = 2\n");
  const second = fingerprintProject(root, [py]);
  expect(second.fingerprint).not.toBe(first.fingerprint);
  expect(compareItems(first.items, second.items)).toEqual({ added: [], changed: ["py"], removed: [] });
});

test("an exec inside the directory is hashed (a shebang names the language); a symlink out of it is covered by path only", () => {
  const root = tempDir("zot-fp-");
  const script = extension(root, "tool", { exec: "./run" }, { run: "#!/usr/bin/env bun\nconsole.log(1)\n" });
  chmodSync(join(script.dir, "run"), 0o755);
  const item = fingerprintProject(root, [script]).items[0]!;
  expect(item.files).toEqual([script.manifestPath, join(script.dir, "run")]);
  expect(item.language).toBe("typescript");
  writeFileSync(join(root, "elsewhere"), "#!/bin/sh\n");
  const linked = extension(root, "linked", { exec: "./link" }, {});
  symlinkSync(join(root, "elsewhere"), join(linked.dir, "link"));
  expect(fingerprintProject(root, [linked]).items[0]!.files).toEqual([linked.manifestPath]);
});

test(".zot/mcp.json is an item of its own; removing an extension is reported", () => {
  const root = tempDir("zot-fp-");
  const a = extension(root, "a", { exec: "sh", args: ["a.sh"] }, { "a.sh": "exit 0\n" });
  const b = extension(root, "b", { skills: ["skills"] }, {});
  const before = fingerprintProject(root, [a, b]);
  expect(before.items.map((item) => [item.name, item.language])).toEqual([["a", "shell"], ["b", "-"]]);
  writeFileSync(join(root, ".zot", "mcp.json"), "{}");
  const after = fingerprintProject(root, [a]);
  expect(after.items.map((item) => item.name)).toEqual(["a", ".zot/mcp.json"]);
  expect(compareItems(before.items, after.items)).toEqual({ added: [".zot/mcp.json"], changed: [], removed: ["b"] });
});

test("only the first HASH_LIMIT_BYTES are hashed, plus the size", () => {
  const root = tempDir("zot-fp-");
  const big = extension(root, "big", { exec: "sh", args: ["big.sh"] }, { "big.sh": "" });
  const path = join(big.dir, "big.sh");
  truncateSync(path, HASH_LIMIT_BYTES + 10);
  const first = fingerprintProject(root, [big]).fingerprint;
  // Same size, a change past the limit: not noticed (documented).
  const bytes = new Uint8Array(readFileSync(path));
  bytes[HASH_LIMIT_BYTES + 5] = 1;
  writeFileSync(path, bytes);
  expect(fingerprintProject(root, [big]).fingerprint).toBe(first);
  // A different size is.
  truncateSync(path, HASH_LIMIT_BYTES + 11);
  expect(fingerprintProject(root, [big]).fingerprint).not.toBe(first);
});
