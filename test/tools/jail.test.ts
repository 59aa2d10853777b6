import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinTools, canonicalPath, resolveToolPath } from "../../src/tools/index.ts";
import type { Tool } from "../../src/tools/types.ts";
import { cleanupTempDirs, makeContext, tempDir, textOf } from "./helpers.ts";

afterAll(cleanupTempDirs);

function tool(name: string): Tool {
  const found = builtinTools({ only: [name] })[0];
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

/** root/ (the jail) with a symlink root/escape -> outside/, and outside/secret.txt. */
function sandbox(): { root: string; outside: string } {
  const base = tempDir();
  const root = join(base, "root");
  const outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "secret\n");
  writeFileSync(join(root, "inside.txt"), "inside\n");
  symlinkSync(outside, join(root, "escape"));
  symlinkSync(join(outside, "not-yet.txt"), join(root, "dangling.txt"));
  return { root, outside };
}

describe("jail", () => {
  test("a symlink pointing outside the root is blocked for read, write and edit", async () => {
    const { root, outside } = sandbox();
    const ctx = makeContext(root, { jailRoot: root });
    const attempts: [string, Record<string, unknown>][] = [
      ["read", { path: "escape/secret.txt" }],
      ["write", { path: "escape/new-dir/new.txt", content: "x" }],
      ["write", { path: "dangling.txt", content: "x" }],
      ["edit", { path: "escape/secret.txt", edits: [{ oldText: "secret", newText: "leaked" }] }],
      ["read", { path: "../outside/secret.txt" }],
      ["read", { path: join(outside, "secret.txt") }],
    ];
    for (const [name, args] of attempts) {
      const outcome = await tool(name).execute(args, ctx);
      expect(outcome.isError).toBe(true);
      expect(outcome.status).toBe("blocked");
      expect(textOf(outcome)).toBe(`jailed: path "${String(args.path)}" is outside sandbox root "${root}"`);
    }
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("secret\n");
    expect(existsSync(join(outside, "new-dir"))).toBe(false);
    expect(existsSync(join(outside, "not-yet.txt"))).toBe(false);
  });

  test("write and edit refuse the root's .zot (what zot itself starts); read may look", async () => {
    const { root } = sandbox();
    mkdirSync(join(root, ".zot", "extensions", "e1"), { recursive: true });
    writeFileSync(join(root, ".zot", "extensions", "e1", "lib.sh"), "echo ok\n");
    const ctx = makeContext(root, { jailRoot: root });
    for (const [name, args] of [
      ["write", { path: ".zot/extensions/e1/lib.sh", content: "touch /tmp/pwned\n" }],
      ["write", { path: ".zot/mcp.json", content: "{}" }],
      ["edit", { path: ".zot/extensions/e1/lib.sh", edits: [{ oldText: "ok", newText: "pwned" }] }],
    ] as [string, Record<string, unknown>][]) {
      const outcome = await tool(name).execute(args, ctx);
      expect(outcome.status).toBe("blocked");
      expect(textOf(outcome)).toBe(
        `jailed: path "${String(args.path)}" is in the project's .zot directory, which holds what zot itself runs (extensions, MCP servers, skills); it is read-only under --jail`,
      );
    }
    expect(readFileSync(join(root, ".zot", "extensions", "e1", "lib.sh"), "utf8")).toBe("echo ok\n");
    expect(existsSync(join(root, ".zot", "mcp.json"))).toBe(false);
    expect((await tool("read").execute({ path: ".zot/extensions/e1/lib.sh" }, ctx)).isError).toBe(false);
    // Without --jail the project's own files are the user's to change.
    expect((await tool("write").execute({ path: ".zot/notes.md", content: "x" }, makeContext(root))).isError).toBe(false);
  });

  test.if(process.platform === "linux")("a /proc magic link that names no file (a pipe) is refused, never written as a file named after it", async () => {
    const { root } = sandbox();
    const ctx = makeContext(root, { jailRoot: root });
    const pipe = Bun.spawn(["sleep", "5"], { stdout: "pipe" });
    try {
      // Our own stdout pipe's descriptor, as the model could name it.
      const fd = (await Array.fromAsync(new Bun.Glob("*").scan({ cwd: "/proc/self/fd", onlyFiles: false }))).find((name) => {
        try {
          return readlinkSync(`/proc/self/fd/${name}`).startsWith("pipe:");
        } catch {
          return false;
        }
      });
      expect(fd).toBeDefined();
      const path = `/proc/self/fd/${fd}`;
      const outcome = await tool("write").execute({ path, content: "X" }, ctx);
      expect(outcome.isError).toBe(true);
      expect(textOf(outcome)).toMatch(/^\/proc\/self\/fd\/\d+: does not name a file \(it is pipe:\[\d+\]\)$/);
      expect(readdirSync(root).filter((name) => name.startsWith("pipe:"))).toEqual([]);
    } finally {
      pipe.kill();
      await pipe.exited;
    }
  });

  test("paths inside the root (including new ones) are allowed", async () => {
    const { root } = sandbox();
    const ctx = makeContext(root, { jailRoot: root });
    expect(textOf(await tool("read").execute({ path: "inside.txt" }, ctx))).toBe("inside\n");
    const created = await tool("write").execute({ path: "deep/new/file.txt", content: "ok" }, ctx);
    expect(created.isError).toBe(false);
    expect(readFileSync(join(root, "deep/new/file.txt"), "utf8")).toBe("ok");
  });

  test("without a jail root the same symlink is followed", async () => {
    const { root } = sandbox();
    const outcome = await tool("read").execute({ path: "escape/secret.txt" }, makeContext(root));
    expect(textOf(outcome)).toBe("secret\n");
  });

  test("canonicalPath resolves missing tails under symlinked ancestors and dangling links", async () => {
    const { root, outside } = sandbox();
    expect(await canonicalPath(join(root, "escape", "a", "b.txt"))).toBe(join(outside, "a", "b.txt"));
    expect(await canonicalPath(join(root, "dangling.txt"))).toBe(join(outside, "not-yet.txt"));
    expect(resolveToolPath("/base", "rel/x")).toBe("/base/rel/x");
    expect(resolveToolPath("/base", "/abs/../y")).toBe("/y");
    expect(resolveToolPath("/base", "~/z").endsWith("/z")).toBe(true);
    expect(resolveToolPath("/base", "~/z").startsWith("/base")).toBe(false);
  });
});
